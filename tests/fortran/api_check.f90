! api_check.f90 - the calls of rtopo_f08 on 4 ranks under rtopo-run, each
! checked against what its man page says: coordinates and sub-topologies
! of a 2 x 2 mesh, the line operations in their three forms, selection,
! routing and random access on a 4-rank OTIS-hypercube, BPC, sort,
! registration, errors returned in ierror.  "api_check fatal" instead
! makes one failing call without ierror, which must stop the program
! with a message.  Prints "api_check: OK" on rank 0 when all is right.
program api_check
  use, intrinsic :: iso_c_binding
  use rtopo_f08
  implicit none

  type(rtopo_ctx) :: ctx
  type(rtopo_topo) :: ring, mesh, row, cube, otis, bad
  type(rtopo_request) :: req
  type(rtopo_mem) :: mem
  integer :: me, np, c(2), c2(2), r, k, n, ierr, fails, left, right, dest
  integer(c_int64_t), asynchronous :: s1(2), r1(2), acc(2, 2)
  integer(c_int64_t), target, asynchronous :: cnt, d64
  integer(c_int), target, asynchronous :: sel, got
  real(c_double), asynchronous :: keys(3), sorted(3)
  real(c_double), allocatable :: big(:, :)
  integer(c_int32_t), asynchronous :: ib(4)
  character(len=16) :: arg
  logical :: flag

  fails = 0
  call rtopo_init(ctx)
  call rtopo_rank(ctx, me)
  call rtopo_size(ctx, np)
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    if (arg == 'fatal') then
      call rtopo_topo_mesh(ctx, 3, 3, bad)      ! 9 ranks needed: stops here
      write (*, '(a)') 'api_check: still running after a fatal error'
      stop 0
    end if
  end if
  if (np /= 4) error stop 'api_check runs on 4 ranks'
  call rtopo_barrier(ctx)

  ! ---- mesh: coordinates, extents, sub-topology -------------------------
  call rtopo_topo_mesh(ctx, 2, 2, mesh)
  call rtopo_topo_ndims(mesh, n)
  call expect(n == 2, 'rtopo_topo_ndims')
  call rtopo_topo_extent(mesh, 1, k)
  call expect(k == 2, 'rtopo_topo_extent')
  call rtopo_topo_rank(mesh, r)
  call rtopo_topo_coords(mesh, r, c)
  call rtopo_topo_rank_at(mesh, c, k)
  call expect(k == r .and. all(c >= 0) .and. all(c <= 1), 'rtopo_topo_coords, rank_at')
  call rtopo_topo_rank_at(mesh, [c(1), 1 - c(2)], right)   ! the other end of the row
  left = right
  call rtopo_topo_sub(mesh, [.false., .true.], row)
  call rtopo_topo_size(row, n)
  call expect(n == 2, 'rtopo_topo_sub keeps a row')
  call rtopo_topo_free(row)

  ! shift along a row, persistent, twice
  s1 = [int(r, c_int64_t), 7_c_int64_t]
  call rtopo_shift_dim_init(mesh, 1, s1, r1, 1, req)
  do k = 1, 2
    r1 = -1
    call rtopo_start(req)
    call rtopo_wait(req)
    call expect(all(r1 == [int(left, c_int64_t), 7_c_int64_t]), 'rtopo_shift_dim_init')
  end do
  call rtopo_req_free(req)
  call expect(.not. c_associated(req%ptr), 'rtopo_req_free nulls the handle')

  ! zero-fill shift, nonblocking: column 1 gets column 0's data, column 0 zeros
  r1 = -1
  call rtopo_ishift_fill(mesh, 1, s1, r1, 1, req)
  do
    call rtopo_test(req, flag)
    if (flag) exit
  end do
  call rtopo_req_free(req)
  if (c(2) == 1) then
    call expect(all(r1 == [int(left, c_int64_t), 7_c_int64_t]), 'rtopo_ishift_fill')
  else
    call expect(all(r1 == 0), 'rtopo_ishift_fill zeros')
  end if

  ! accumulation of m = 2 blocks, adjacent and consecutive sums
  acc = -1
  call rtopo_accumulate(mesh, 1, s1, acc, 2)
  call expect(all(acc(:, 1) == s1) .and. acc(1, 2) == right, 'rtopo_accumulate')
  call rtopo_adjacent_sum(mesh, 1, s1, r1, 2, RTOPO_INT64, RTOPO_SUM, 2)
  call expect(all(r1 == [int(r + right, c_int64_t), 14_c_int64_t]), 'rtopo_adjacent_sum')
  s1 = [int(10 * r, c_int64_t), int(r, c_int64_t)]     ! value j of this rank
  r1 = -1
  call rtopo_consecutive_sum(mesh, 1, s1, r1, 1, RTOPO_INT64, RTOPO_SUM, 2)
  ! place j = column c(2) gets value j of both ranks of the row
  if (c(2) == 0) then
    call expect(r1(1) == 10 * (r + right), 'rtopo_consecutive_sum')
  else
    call expect(r1(1) == r + right, 'rtopo_consecutive_sum')
  end if
  call rtopo_consecutive_sum(mesh, 1, s1(1:1), r1, 1, RTOPO_INT64, RTOPO_SUM, 2, ierr)
  call expect(ierr == RTOPO_ERR_INVAL, 'consecutive_sum sendbuf of 1 value refused')
  call rtopo_barrier(ctx)
  call rtopo_topo_free(mesh)

  ! ---- ring: collectives in three forms, selection, BPC, sort -------------
  call rtopo_topo_ring(ctx, ring)
  call rtopo_topo_set_shift_algo(ring, RTOPO_SHIFT_DIRECT)
  call rtopo_topo_set_coll_algo(ring, RTOPO_COLL_GENERIC)
  call rtopo_bcast_init(ring, ib, 4, RTOPO_INT32, 2, req)
  do k = 1, 2
    ib = int(me * k, c_int32_t)
    call rtopo_start(req)
    call rtopo_wait(req)
    call expect(all(ib == 2 * k), 'rtopo_bcast_init')
  end do
  call rtopo_req_free(req)
  s1 = int(me + 1, c_int64_t)
  call rtopo_iscan(ring, s1, r1, 2, RTOPO_INT64, RTOPO_PROD, req)
  call rtopo_wait(req)
  call rtopo_req_free(req)
  call expect(all(r1 == product([(k, k = 1, me + 1)])), 'rtopo_iscan')
  call rtopo_ishift(ring, s1, r1, 3, req)
  call rtopo_wait(req)
  call rtopo_req_free(req)
  call expect(all(r1 == modulo(me - 3, 4) + 1), 'rtopo_ishift')
  call rtopo_iwindow_bcast(ring, ib, 4, RTOPO_INT32, 0, 1, req, ierr)
  call expect(ierr == RTOPO_ERR_UNSUPPORTED .or. ierr == RTOPO_ERR_TOPO .or. &
      ierr == RTOPO_ERR_INVAL, 'rtopo_iwindow_bcast refused off the OTIS-mesh')

  sel = int(modulo(me, 2), c_int)
  call rtopo_select_rank(ring, sel, cnt)
  call expect(cnt == me / 2, 'rtopo_select_rank')

  s1 = int(me, c_int64_t)
  call rtopo_ibpc(ring, 'reversal', s1, r1, req)
  call rtopo_wait(req)
  call rtopo_req_free(req)
  do k = 0, 3
    call rtopo_bpc_dest(ring, 'reversal', k, dest)
    if (dest == me) call expect(all(r1 == k), 'rtopo_ibpc, rtopo_bpc_dest')
  end do

  keys = [real(modulo(me * 5 + 3, 7), c_double), real(me, c_double), -1.0_c_double]
  call rtopo_isort(ring, keys, sorted, RTOPO_DOUBLE, req, descending=.false.)
  call rtopo_wait(req)
  call rtopo_req_free(req)
  call expect(sorted(1) <= sorted(2) .and. sorted(2) <= sorted(3), 'rtopo_isort order')
  if (me == 0) call expect(all(sorted == -1), 'rtopo_isort: the four -1 come first')

  allocate(big(64, 8))
  call rtopo_mem_register(ctx, big, mem)
  big = me
  call rtopo_shift(ring, big, big, 1)           ! in place, registered
  call expect(all(big == modulo(me - 1, 4)), 'rtopo_shift in place, registered')
  call rtopo_mem_deregister(mem)
  call rtopo_shift(ring, big(1:64:2, :), big, 1, ierr)
  call expect(ierr == RTOPO_ERR_INVAL, 'strided buffer refused')
  call rtopo_topo_free(ring)

  ! ---- OTIS-hypercube of 4 ranks: routing and random access -------------
  call rtopo_topo_otis_hypercube(ctx, 2, otis)
  call rtopo_topo_rank(otis, r)
  s1 = [int(100 + r, c_int64_t), 0_c_int64_t]
  sel = merge(1, 0, r == 1 .or. r == 3)
  r1 = -1
  call rtopo_concentrate_init(otis, s1, sel, r1, got, req)
  call rtopo_start(req)
  call rtopo_wait(req)
  call rtopo_req_free(req)
  select case (r)
  case (0)
    call expect(got == 1 .and. r1(1) == 101, 'rtopo_concentrate_init')
  case (1)
    call expect(got == 1 .and. r1(1) == 103, 'rtopo_concentrate_init')
  case default
    call expect(got == 0, 'rtopo_concentrate_init')
  end select
  d64 = -1
  if (r <= 1) d64 = 2 * r + 1                  ! ranks 0, 1 to ranks 1, 3
  call rtopo_distribute(otis, s1, d64, r1, got)
  if (r == 1 .or. r == 3) then
    call expect(got == 1 .and. r1(1) == 100 + r / 2, 'rtopo_distribute')
  else
    call expect(got == 0, 'rtopo_distribute')
  end if
  call rtopo_igeneralize(otis, s1, d64, r1, got, req)
  call rtopo_wait(req)
  call rtopo_req_free(req)
  if (r >= 1) call expect(got == 1 .and. r1(1) == 100 + merge(0, 1, r < 3), &
      'rtopo_igeneralize')
  d64 = modulo(r + 1, 4)
  call rtopo_random_write(otis, s1, d64, r1, got)
  call expect(got == 1 .and. r1(1) == 100 + modulo(r - 1, 4), 'rtopo_random_write')
  d64 = 3
  call rtopo_random_read_init(otis, s1, d64, r1, got, req)
  call rtopo_start(req)
  call rtopo_wait(req)
  call rtopo_req_free(req)
  call expect(got == 1 .and. r1(1) == 103, 'rtopo_random_read_init')
  call rtopo_topo_free(otis)

  ! ---- errors in ierror ---------------------------------------------------
  call rtopo_topo_hypercube(ctx, 2, cube)
  call rtopo_topo_free(cube)
  call rtopo_topo_mesh(ctx, 3, 3, bad, ierr)
  call expect(ierr == RTOPO_ERR_TOPO .and. len(rtopo_last_error()) > 0, &
      'rtopo_topo_mesh 3x3 on 4 ranks: RTOPO_ERR_TOPO')
  call rtopo_topo_hypercube_host(ctx, 2, 0, cube)
  call rtopo_topo_coords(cube, 0, c2(1:0), ierr)
  call expect(ierr == RTOPO_ERR_INVAL, 'coords too short refused')
  call rtopo_topo_free(cube)

  call rtopo_finalize(ctx)
  call expect(.not. c_associated(ctx%ptr), 'rtopo_finalize nulls the handle')
  if (fails /= 0) error stop 1
  if (me == 0) write (*, '(a)') 'api_check: OK'

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) return
    write (*, '(a,i0,a,a)') 'rank ', me, ': wrong: ', what
    fails = fails + 1
  end subroutine
end program api_check
