! hello.f90 - built by CMake against an installed rtopo (rtopo::fortran):
! one allreduce on a ring, checked, one line printed by rank 0.
program hello
  use, intrinsic :: iso_c_binding, only: c_int32_t
  use rtopo_f08
  implicit none
  type(rtopo_ctx) :: ctx
  type(rtopo_topo) :: ring
  integer :: rank, nranks
  integer(c_int32_t) :: one, total

  call rtopo_init(ctx)
  call rtopo_rank(ctx, rank)
  call rtopo_size(ctx, nranks)
  call rtopo_topo_ring(ctx, ring)
  one = 1
  call rtopo_allreduce(ring, one, total, 1, RTOPO_INT32, RTOPO_SUM)
  if (total /= nranks) error stop 'hello_f: wrong sum'
  if (rank == 0) write (*, '(a,i0,a,a)') 'hello_f: OK, ', nranks, ' ranks, rtopo ', rtopo_version()
  call rtopo_topo_free(ring)
  call rtopo_finalize(ctx)
end program hello
