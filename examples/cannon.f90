! cannon.f90 - Cannon's matrix multiplication on an s x s wraparound mesh
! of ranks, in Fortran with the rtopo_f08 module: the same algorithm as
! cannon.c, with rtopo's shifts along one dimension of the mesh, in place.
!
! Build against an installed rtopo and run on a square number of ranks:
!
!   gfortran -O2 cannon.f90 $(pkg-config --cflags --libs rtopo-fortran) -o cannon_f
!   rtopo-run -n 4 ./cannon_f          (2 x 2 mesh)
!   mpirun -n 9 ./cannon_f             (3 x 3 mesh; rtopo bootstraps through PMIx)
!
! C = A * B for n x n matrices, n = s * NB.  Rank (i, j) of the mesh owns
! the NB x NB blocks A(i,j), B(i,j) and computes C(i,j):
!
!   skew:   row i of A rotates i blocks to the left, column j of B j
!           blocks up;
!   s times: C(i,j) += A(i,j) * B(i,j), then every row of A rotates one
!           block left and every column of B one block up.
!
! Dimensions and coordinates are numbered from 0 as in C: dimension 0 of
! the mesh is the row index, dimension 1 the column index, so a row is a
! line along dimension 1.  rtopo_shift_dim(mesh, 1, a, a, -1) rotates
! every row one block to the left; the skew, where row i moves by -i, is
! rtopo_shift_dim_rule(mesh, 1, a, a, -1, 0), which shifts line L by
! -1*L + 0.  Passing one array as sendbuf and recvbuf shifts in place.
! The byte count is the size of the array.
!
! The matrices hold small integers, so every sum is exact: each rank
! checks its block of C against the formula, prints one line and ends
! with exit status 1 if the block is wrong.  Without ierror arguments
! an rtopo error stops the program with a message.
program cannon
  use, intrinsic :: iso_c_binding, only: c_double
  use rtopo_f08
  implicit none

  integer, parameter :: NB = 192             ! block edge
  type(rtopo_ctx) :: ctx
  type(rtopo_topo) :: mesh
  type(rtopo_mem) :: amem, bmem
  real(c_double), allocatable, target :: a(:, :), b(:, :), c(:, :)
  integer :: nranks, s, me, coords(2), i, j, k, gr, gc
  real(c_double) :: want
  logical :: bad

  call rtopo_init(ctx)
  call rtopo_size(ctx, nranks)
  s = 1
  do while ((s + 1) * (s + 1) <= nranks)
    s = s + 1
  end do
  ! fails with RTOPO_ERR_TOPO unless the job has s*s ranks
  call rtopo_topo_mesh(ctx, s, s, mesh)
  call rtopo_topo_rank(mesh, me)
  call rtopo_topo_coords(mesh, me, coords)     ! (row, column)

  allocate(a(NB, NB), b(NB, NB), c(NB, NB))
  call rtopo_mem_register(ctx, a, amem)        ! shifted by RDMA, no copy
  call rtopo_mem_register(ctx, b, bmem)
  do j = 1, NB
    do i = 1, NB
      a(i, j) = a_elem(coords(1) * NB + i - 1, coords(2) * NB + j - 1)
      b(i, j) = b_elem(coords(1) * NB + i - 1, coords(2) * NB + j - 1)
    end do
  end do
  c = 0

  ! skew: line L moves by -L (row i by -i, column j by -j)
  call rtopo_shift_dim_rule(mesh, 1, a, a, -1, 0)
  call rtopo_shift_dim_rule(mesh, 0, b, b, -1, 0)
  do k = 1, s
    c = c + matmul(a, b)
    if (k == s) exit                           ! nothing moves after the last product
    call rtopo_shift_dim(mesh, 1, a, a, -1)    ! rows: one block left
    call rtopo_shift_dim(mesh, 0, b, b, -1)    ! columns: one block up
  end do

  bad = .false.
  check: do j = 1, NB
    do i = 1, NB
      gr = coords(1) * NB + i - 1
      gc = coords(2) * NB + j - 1
      want = 0
      do k = 0, s * NB - 1
        want = want + a_elem(gr, k) * b_elem(k, gc)
      end do
      if (abs(c(i, j) - want) > 0.5_c_double) then   ! integers: exact when right
        write (*, '(a,i0,a,i0,a,g0,a,g0)') 'C(', gr, ',', gc, ') = ', c(i, j), &
            ', expected ', want
        bad = .true.
        exit check
      end if
    end do
  end do check
  write (*, '(a,i0,a,i0,a,a,a,i0,a)') '(', coords(1), ',', coords(2), '): C block ', &
      merge('WRONG  ', 'correct', bad), ' after ', s, ' multiply-shift rounds'

  call rtopo_mem_deregister(amem)
  call rtopo_mem_deregister(bmem)
  call rtopo_topo_free(mesh)
  call rtopo_finalize(ctx)
  if (bad) error stop 1

contains

  ! elements of the global A and B, rows and columns from 0
  pure function a_elem(r, col) result(v)
    integer, intent(in) :: r, col
    real(c_double) :: v
    v = real(mod(r + 2 * col, 7) - 3, c_double)
  end function

  pure function b_elem(r, col) result(v)
    integer, intent(in) :: r, col
    real(c_double) :: v
    v = real(mod(3 * r + col, 5) - 2, c_double)
  end function
end program cannon
