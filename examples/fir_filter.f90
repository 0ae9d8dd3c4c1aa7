! fir_filter.f90 - a FIR filter over a long signal, in Fortran with the
! rtopo_f08 module: a host hands out overlapping windows of the signal to
! a hypercube of nodes with rtopo_scatter, every node filters its window,
! and the host checks the result against a serial filter (as fir_filter.c).
!
! Build against an installed rtopo and run on 2^d + 1 or 2^d ranks:
!
!   gfortran -O2 fir_filter.f90 $(pkg-config --cflags --libs rtopo-fortran) -o fir_filter_f
!   rtopo-run -n 5 ./fir_filter_f        (host rank 0 outside a 4-node cube)
!   mpirun -n 8 ./fir_filter_f           (host rank 0 is also cube node 0)
!
!   usage: fir_filter_f [OUTPUTS [TAPS]]   (defaults 4096 and 64)
!
! The filter: y(j) = sum over k < TAPS of h(k) * x(j + TAPS - 1 - k).  Node
! i computes OUTPUTS points from j = i*OUTPUTS and needs the window of
! M = OUTPUTS + TAPS - 1 samples from x(i*OUTPUTS): windows that follow
! each other with a stride of OUTPUTS samples and overlap by TAPS - 1.
! rtopo_scatter(cube, x, win, M, OUTPUTS) delivers exactly these: node i
! receives count = M elements from element i*stride of the host's x.  The
! element size is that of the arrays and the host's element count the
! size of x; ranks other than the host pass an empty x.
!
! The outputs come back to the host by circular shifts on a ring of all
! ranks (rtopo_shift): after the shift by q, rank 0 holds the outputs of
! rank p - q.  Samples and taps are small integers, so the distributed
! result must equal the serial one exactly.  Exit status 1 on a mismatch.
program fir_filter
  use, intrinsic :: iso_c_binding, only: c_double
  use rtopo_f08
  implicit none

  type(rtopo_ctx) :: ctx
  type(rtopo_topo) :: cube, ring
  real(c_double), allocatable :: h(:), x(:), win(:), out(:), part(:), all(:)
  integer :: outputs, taps, m, n, rank, nranks, d, node, nodes, q, src, i, j
  integer :: wrong, first_wrong
  character(len=32) :: arg
  logical :: bad

  outputs = 4096
  taps = 64
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) outputs
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) taps
  end if
  if (outputs < 1 .or. taps < 1) error stop 'usage: fir_filter_f [OUTPUTS [TAPS]]'
  m = outputs + taps - 1                      ! a window: its outputs and history

  call rtopo_init(ctx)
  call rtopo_rank(ctx, rank)
  call rtopo_size(ctx, nranks)
  ! the largest d with 2^d <= nranks: 2^d ranks put the host on node 0,
  ! 2^d + 1 ranks put it outside the cube; other sizes fail with
  ! RTOPO_ERR_TOPO
  d = 0
  do while (2 * 2**d <= nranks)
    d = d + 1
  end do
  call rtopo_topo_hypercube_host(ctx, d, 0, cube)
  call rtopo_topo_rank(cube, node)            ! 2^d on a host outside the cube
  call rtopo_topo_size(cube, nodes)
  call rtopo_topo_set_scatter_algo(cube, RTOPO_SCATTER_DECREMENTAL, -1)

  ! the taps, known to every rank: a triangle 1, 2, ..., 2, 1
  allocate(h(0:taps - 1), out(outputs), part(outputs))
  do i = 0, taps - 1
    h(i) = real(min(i + 1, taps - i), c_double)
  end do
  out = 0

  n = 0
  if (rank == 0) then
    n = (nodes - 1) * outputs + m
    allocate(x(0:n - 1), all(0:nodes * outputs - 1))
    do i = 0, n - 1
      x(i) = sample(i)
    end do
  else
    allocate(x(0), all(0))                    ! only the host's x is read
  end if
  if (node < nodes) then
    allocate(win(0:m - 1))
  else
    allocate(win(0))                          ! a host outside the cube gets nothing
  end if

  call rtopo_scatter(cube, x, win, m, outputs)

  bad = .false.
  if (node < nodes) then
    do i = 0, m - 1
      if (abs(win(i) - sample(node * outputs + i)) > 0.5_c_double) then
        write (*, '(a,i0,a,i0,a)') 'node ', node, ': sample ', i, ' of its window is wrong'
        bad = .true.
        exit
      end if
    end do
    do j = 0, outputs - 1
      out(j + 1) = fir_point(win(j:j + taps - 1))
    end do
  end if

  ! back to the host: rank 0 receives rank (0 - q) mod nranks's outputs
  call rtopo_topo_ring(ctx, ring)
  if (rank == 0 .and. node == 0) all(0:outputs - 1) = out
  do q = 1, nranks - 1
    call rtopo_shift(ring, out, part, q)
    if (rank == 0) then
      src = nranks - q
      if (node /= 0) src = src - 1            ! the node of job rank src
      all(src * outputs:(src + 1) * outputs - 1) = part
    end if
  end do

  if (rank == 0) then
    wrong = 0
    first_wrong = -1
    do j = 0, nodes * outputs - 1
      if (abs(all(j) - fir_point(x(j:j + taps - 1))) > 0.5_c_double) then
        wrong = wrong + 1
        if (first_wrong < 0) first_wrong = j
      end if
    end do
    if (wrong > 0) then
      write (*, '(a,i0,a,i0,a,i0)') 'fir_filter_f: ', wrong, ' of ', nodes * outputs, &
          ' outputs differ from the serial filter, the first at ', first_wrong
      bad = .true.
    else
      write (*, '(a,i0,a,a,a,i0,a,i0,a,i0,a)') 'fir_filter_f: OK: ', nodes, ' nodes (host ', &
          trim(merge('on node 0       ', 'outside the cube', node == 0)), '), ', n, ' samples, ', &
          taps, ' taps, ', outputs, ' outputs per node'
    end if
  end if

  call rtopo_topo_free(ring)
  call rtopo_topo_free(cube)
  call rtopo_finalize(ctx)
  if (bad) error stop 1

contains

  ! sample i of the signal: a deterministic integer in -100 .. 100
  pure function sample(i) result(v)
    integer, intent(in) :: i
    real(c_double) :: v
    v = real(modulo(int(i, 8) * 7919_8 + 12345_8, 201_8) - 100, c_double)
  end function

  ! one output point from taps samples w(0 .. taps-1)
  pure function fir_point(w) result(y)
    real(c_double), intent(in) :: w(0:)
    real(c_double) :: y
    integer :: k
    y = 0
    do k = 0, size(w) - 1
      y = y + h(k) * w(size(w) - 1 - k)
    end do
  end function
end program fir_filter
