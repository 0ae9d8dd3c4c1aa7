! mpi_f08_check.f90 - rtopo_f08 beside mpi_f08 in one program: rtopo
! bootstraps through an allgather callback over MPI_COMM_WORLD, then the
! results of rtopo's collectives (blocking, nonblocking, persistent) are
! compared with MPI's, and the binding's own argument checks are tried.
! Prints "mpi_f08_check: OK" on rank 0 and exits 0 when all match.
module cb
  use, intrinsic :: iso_c_binding
  use mpi_f08
  implicit none
contains
  function mpi_allgather_cb(sendbuf, recvbuf, len, arg) bind(c) result(rc)
    type(c_ptr), value :: sendbuf, recvbuf, arg
    integer(c_size_t), value :: len
    integer(c_int) :: rc
    character(kind=c_char), pointer :: s(:), r(:)
    integer, pointer :: handle
    type(MPI_Comm) :: comm
    integer :: n, ierr

    call c_f_pointer(arg, handle)      ! the communicator, as its integer handle
    comm%MPI_VAL = handle
    call MPI_Comm_size(comm, n)
    call c_f_pointer(sendbuf, s, [len])
    call c_f_pointer(recvbuf, r, [len * n])
    call MPI_Allgather(s, int(len), MPI_BYTE, r, int(len), MPI_BYTE, comm, ierr)
    rc = int(ierr, c_int)
  end function
end module cb

program mpi_f08_check
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use rtopo_f08
  use cb
  implicit none

  type(rtopo_ctx) :: ctx
  type(rtopo_topo) :: ring
  type(rtopo_request) :: req
  integer :: me, np, rme, rnp, q, ierr, k, st, fails
  real(c_double), asynchronous :: v(3), r1(3), r2(3)
  integer(c_int32_t) :: ib(5)
  integer(c_int64_t) :: sv(2), sr(2), sm(2)
  real(c_double) :: sendb(7), recvb(7), mpib(7), small(2), strided(10)
  real(c_double), allocatable :: keys(:), sorted(:), everything(:)
  logical :: flag
  integer, target :: world

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, me)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  fails = 0

  world = MPI_COMM_WORLD%MPI_VAL
  call rtopo_init(ctx, rank=me, nranks=np, allgather=mpi_allgather_cb, &
      allgather_arg=c_loc(world))
  call rtopo_rank(ctx, rme)
  call rtopo_size(ctx, rnp)
  call expect(rme == me .and. rnp == np, 'rank and size as MPI''s')
  call rtopo_topo_ring(ctx, ring)

  ! allreduce, three ways, against MPI_Allreduce
  v = [real(me + 1, c_double), real(2 * me, c_double), 1.0_c_double]
  call MPI_Allreduce(v, r1, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call rtopo_allreduce(ring, v, r2, 3, RTOPO_DOUBLE, RTOPO_SUM)
  call expect(all(r1 == r2), 'rtopo_allreduce')
  r2 = 0
  call rtopo_iallreduce(ring, v, r2, 3, RTOPO_DOUBLE, RTOPO_SUM, req)
  call rtopo_wait(req)
  call rtopo_req_free(req)
  call expect(all(r1 == r2), 'rtopo_iallreduce')
  call rtopo_allreduce_init(ring, v, r2, 3, RTOPO_DOUBLE, RTOPO_MAX, req)
  do k = 1, 2
    r2 = 0
    call rtopo_start(req)
    do
      call rtopo_test(req, flag)
      if (flag) exit
    end do
    call MPI_Allreduce(v, r1, 3, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD)
    call expect(all(r1 == r2), 'rtopo_allreduce_init')
  end do
  call rtopo_req_free(req)

  ! scan of int64 against MPI_Scan
  sv = [int(me, c_int64_t), 10_c_int64_t]
  call rtopo_scan(ring, sv, sr, 2, RTOPO_INT64, RTOPO_SUM)
  call MPI_Scan(sv, sm, 2, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
  call expect(all(sr == sm), 'rtopo_scan')

  ! broadcast from rank 1 (0 on one rank)
  ib = int(me, c_int32_t)
  call rtopo_bcast(ring, ib, 5, RTOPO_INT32, min(1, np - 1))
  call expect(all(ib == min(1, np - 1)), 'rtopo_bcast')

  ! shifts by every q against MPI_Sendrecv
  do q = 1, np - 1
    sendb = me * 100 + [(k, k = 1, 7)]
    call rtopo_shift(ring, sendb, recvb, q)
    call MPI_Sendrecv(sendb, 7, MPI_DOUBLE_PRECISION, modulo(me + q, np), 0, mpib, 7, &
        MPI_DOUBLE_PRECISION, modulo(me - q, np), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call expect(all(recvb == mpib) .and. all(recvb == modulo(me - q, np) * 100 + [(k, k = 1, 7)]), &
        'rtopo_shift')
  end do

  ! sort, descending, checked against the gathered keys
  allocate(keys(4), sorted(4), everything(4 * np))
  keys = [(real(modulo(me * 37 + k * 11, 23), c_double), k = 1, 4)]
  call rtopo_sort(ring, keys, sorted, RTOPO_DOUBLE, descending=.true.)
  call MPI_Allgather(keys, 4, MPI_DOUBLE_PRECISION, everything, 4, MPI_DOUBLE_PRECISION, &
      MPI_COMM_WORLD)
  do k = 1, 4 * np     ! selection of the keys in descending order
    everything(k:) = cshift(everything(k:), maxloc(everything(k:), 1) - 1)
  end do
  call expect(all(sorted == everything(me * 4 + 1:me * 4 + 4)), 'rtopo_sort')

  ! the binding's checks: a receive buffer too small, a strided buffer
  call rtopo_shift(ring, sendb, small, 1, ierr)
  call expect(ierr == RTOPO_ERR_INVAL .and. index(rtopo_last_error(), 'recvbuf') > 0, &
      'small recvbuf refused')
  call rtopo_allreduce(ring, strided(1:10:2), r2, 3, RTOPO_DOUBLE, RTOPO_SUM, ierr)
  call expect(ierr == RTOPO_ERR_INVAL .and. index(rtopo_last_error(), 'contiguous') > 0, &
      'strided buffer refused')
  call rtopo_bcast(ring, ib, 5, 99, 0, ierr)     ! refused by the C library, on every rank
  call expect(ierr == RTOPO_ERR_INVAL, 'unknown datatype refused')
  call expect(rtopo_err_name(RTOPO_ERR_TOPO) == 'RTOPO_ERR_TOPO' .and. &
      len(rtopo_strerror(RTOPO_ERR_TOPO)) > 0, 'rtopo_err_name, rtopo_strerror')

  call rtopo_topo_free(ring)
  call rtopo_finalize(ctx)
  call MPI_Allreduce(MPI_IN_PLACE, fails, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (me == 0 .and. fails == 0) write (*, '(a,i0,a,a)') 'mpi_f08_check: OK on ', np, &
      ' ranks, rtopo ', rtopo_version()
  call MPI_Finalize()
  st = merge(0, 1, fails == 0)
  if (st /= 0) error stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) return
    write (*, '(a,i0,a,a)') 'rank ', me, ': wrong: ', what
    fails = fails + 1
  end subroutine
end program mpi_f08_check
