! rtopo_f08 - the Fortran 2008 binding of rtopo.
!
! Every function of rtopo.h has a subroutine (or, for the four string
! queries, a function) of the same name here; rtopo_f08(3) maps each C
! call to its Fortran form.  The conventions follow mpi_f08:
!
!  - handles are derived types: type(rtopo_ctx), type(rtopo_topo),
!    type(rtopo_mem), type(rtopo_request); component ptr holds the C
!    handle (a type(c_ptr)), for code that mixes the binding with C;
!  - buffers are assumed-type, assumed-rank (type(*), dimension(..)) and
!    must be contiguous; where a C call takes a byte count, it is the size
!    of sendbuf (sendrec for the routing calls), and the receiving buffer
!    is checked to be large enough; calls with a count and a datatype keep
!    them, and the buffers are checked to hold count elements;
!  - every subroutine ends with integer, optional, intent(out) :: ierror.
!    When ierror is present it receives RTOPO_OK or the negative status
!    code, and nothing else happens.  When it is absent and the call
!    fails, the binding prints the call, the status and its detail on
!    the standard error and ends the process with exit status 1, as
!    MPI_ERRORS_ARE_FATAL does;
!  - ranks, coordinates and dimensions are numbered from 0, as in C.
!
! The buffers of nonblocking and persistent operations have the
! asynchronous attribute, as in mpi_f08: the actual arguments should have
! it too (or be module variables, or allocated arrays, that the compiler
! cannot keep in registers across rtopo_wait).
module rtopo_f08
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit, output_unit
  implicit none
  private

  ! version of the C library this module was built with
  integer, parameter, public :: RTOPO_VERSION_MAJOR = 0
  integer, parameter, public :: RTOPO_VERSION_MINOR = 1
  integer, parameter, public :: RTOPO_VERSION_PATCH = 0
  integer, parameter, public :: RTOPO_MAX_DIMS = 32

  ! status codes (rtopo_strerror(3))
  integer, parameter, public :: RTOPO_OK = 0
  integer, parameter, public :: RTOPO_ERR_INVAL = -1
  integer, parameter, public :: RTOPO_ERR_NOMEM = -2
  integer, parameter, public :: RTOPO_ERR_TOPO = -3
  integer, parameter, public :: RTOPO_ERR_MISMATCH = -4
  integer, parameter, public :: RTOPO_ERR_PEER = -5
  integer, parameter, public :: RTOPO_ERR_TIMEOUT = -6
  integer, parameter, public :: RTOPO_ERR_TRANSPORT = -7
  integer, parameter, public :: RTOPO_ERR_UNSUPPORTED = -8
  integer, parameter, public :: RTOPO_ERR_AUTH = -9
  integer, parameter, public :: RTOPO_ERR_BOOTSTRAP = -10
  integer, parameter, public :: RTOPO_ERR_BUSY = -11
  integer, parameter, public :: RTOPO_ERR_LAST = -12

  ! shift algorithms (rtopo_topo_set_shift_algo(3))
  integer, parameter, public :: RTOPO_SHIFT_AUTO = 0
  integer, parameter, public :: RTOPO_SHIFT_RING = 1
  integer, parameter, public :: RTOPO_SHIFT_MESH = 2
  integer, parameter, public :: RTOPO_SHIFT_HYPERCUBE = 3
  integer, parameter, public :: RTOPO_SHIFT_ECUBE = 4
  integer, parameter, public :: RTOPO_SHIFT_DIRECT = 5

  ! scatter strategies (rtopo_topo_set_scatter_algo(3))
  integer, parameter, public :: RTOPO_SCATTER_AUTO = 0
  integer, parameter, public :: RTOPO_SCATTER_SEQ = 1
  integer, parameter, public :: RTOPO_SCATTER_BINOMIAL = 2
  integer, parameter, public :: RTOPO_SCATTER_SEQSCATTER = 3
  integer, parameter, public :: RTOPO_SCATTER_DECREMENTAL = 4

  ! collective algorithms (rtopo_topo_set_coll_algo(3))
  integer, parameter, public :: RTOPO_COLL_AUTO = 0
  integer, parameter, public :: RTOPO_COLL_TOPO = 1
  integer, parameter, public :: RTOPO_COLL_GENERIC = 2

  ! placement of new topologies (rtopo_set_place(3))
  integer, parameter, public :: RTOPO_PLACE_AUTO = 0
  integer, parameter, public :: RTOPO_PLACE_RANK = 1
  integer, parameter, public :: RTOPO_PLACE_HOST = 2

  ! datatypes: RTOPO_INT32 is integer(c_int32_t), RTOPO_INT64
  ! integer(c_int64_t), RTOPO_FLOAT real(c_float), RTOPO_DOUBLE
  ! real(c_double)
  integer, parameter, public :: RTOPO_INT32 = 0
  integer, parameter, public :: RTOPO_INT64 = 1
  integer, parameter, public :: RTOPO_FLOAT = 2
  integer, parameter, public :: RTOPO_DOUBLE = 3

  ! operators
  integer, parameter, public :: RTOPO_SUM = 0
  integer, parameter, public :: RTOPO_PROD = 1
  integer, parameter, public :: RTOPO_MIN = 2
  integer, parameter, public :: RTOPO_MAX = 3

  type, public, bind(c) :: rtopo_ctx
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public, bind(c) :: rtopo_topo
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public, bind(c) :: rtopo_mem
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public, bind(c) :: rtopo_request
    type(c_ptr) :: ptr = c_null_ptr
  end type

  ! the out-of-band allgather of rtopo_init (rtopo_init(3)): every rank
  ! contributes len bytes at sendbuf, recvbuf receives size*len bytes in
  ! rank order; returns 0 on success
  abstract interface
    function rtopo_allgather_function(sendbuf, recvbuf, len, arg) bind(c)
      import :: c_ptr, c_size_t, c_int
      type(c_ptr), value :: sendbuf, recvbuf, arg
      integer(c_size_t), value :: len
      integer(c_int) :: rtopo_allgather_function
    end function
  end interface
  public :: rtopo_allgather_function

  ! rtopo_config_t
  type, bind(c) :: f08_config
    integer(c_size_t) :: size
    integer(c_int) :: rank
    integer(c_int) :: nranks
    type(c_funptr) :: allgather
    type(c_ptr) :: allgather_arg
    type(c_ptr) :: transport
    integer(c_int) :: timeout_ms
  end type

  public :: rtopo_strerror, rtopo_err_name, rtopo_last_error, rtopo_version
  public :: rtopo_init, rtopo_finalize, rtopo_rank, rtopo_size, rtopo_barrier
  public :: rtopo_set_place
  public :: rtopo_mem_register, rtopo_mem_deregister
  public :: rtopo_topo_ring, rtopo_topo_mesh, rtopo_topo_hypercube, &
      rtopo_topo_hypercube_host, rtopo_topo_otis_mesh, rtopo_topo_otis_hypercube, &
      rtopo_topo_free, rtopo_topo_set_shift_algo, rtopo_topo_set_scatter_algo, &
      rtopo_topo_set_coll_algo, rtopo_topo_rank, rtopo_topo_size, rtopo_topo_ndims, &
      rtopo_topo_extent, rtopo_topo_coords, rtopo_topo_rank_at, rtopo_topo_sub
  public :: rtopo_shift, rtopo_ishift, rtopo_shift_init
  public :: rtopo_scatter, rtopo_iscatter, rtopo_scatter_init
  public :: rtopo_shift_dim, rtopo_ishift_dim, rtopo_shift_dim_init, &
      rtopo_shift_dim_rule, rtopo_ishift_dim_rule, rtopo_shift_dim_rule_init
  public :: rtopo_bcast, rtopo_ibcast, rtopo_bcast_init, &
      rtopo_allreduce, rtopo_iallreduce, rtopo_allreduce_init, &
      rtopo_scan, rtopo_iscan, rtopo_scan_init, &
      rtopo_window_bcast, rtopo_iwindow_bcast, rtopo_window_bcast_init
  public :: rtopo_shift_fill, rtopo_ishift_fill, rtopo_shift_fill_init, &
      rtopo_accumulate, rtopo_iaccumulate, rtopo_accumulate_init, &
      rtopo_adjacent_sum, rtopo_iadjacent_sum, rtopo_adjacent_sum_init, &
      rtopo_consecutive_sum, rtopo_iconsecutive_sum, rtopo_consecutive_sum_init
  public :: rtopo_select_rank, rtopo_iselect_rank, rtopo_select_rank_init, &
      rtopo_concentrate, rtopo_iconcentrate, rtopo_concentrate_init, &
      rtopo_distribute, rtopo_idistribute, rtopo_distribute_init, &
      rtopo_generalize, rtopo_igeneralize, rtopo_generalize_init, &
      rtopo_random_write, rtopo_irandom_write, rtopo_random_write_init, &
      rtopo_random_read, rtopo_irandom_read, rtopo_random_read_init
  public :: rtopo_bpc, rtopo_ibpc, rtopo_bpc_init, rtopo_bpc_dest
  public :: rtopo_sort, rtopo_isort, rtopo_sort_init
  public :: rtopo_start, rtopo_wait, rtopo_test, rtopo_req_free

  interface
    ! bindings/fortran/rtopo_f08_buf.c: address, size in bytes and element
    ! size of a contiguous buffer
    function f08_c_buf(buf, addr, bytes, elem) bind(c, name='rtopo_f08_buf')
      import
      integer(c_int) :: f08_c_buf
      type(*), dimension(..), intent(in) :: buf
      type(c_ptr), intent(out) :: addr
      integer(c_size_t), intent(out) :: bytes, elem
    end function

    subroutine c_exit(status) bind(c, name='exit')
      import
      integer(c_int), value :: status
    end subroutine

    ! the detail of an error raised by the binding (a buffer that is not
    ! contiguous or too small), per thread, which rtopo_last_error returns
    ! until the next call reaches the C library
    subroutine f08_set_error(msg, len) bind(c, name='rtopo_f08_set_error')
      import
      character(kind=c_char), intent(in) :: msg(*)
      integer(c_size_t), value :: len
    end subroutine

    subroutine f08_clear() bind(c, name='rtopo_f08_clear_error')
    end subroutine

    function f08_error() bind(c, name='rtopo_f08_error')
      import
      type(c_ptr) :: f08_error
    end function

    function c_strlen(s) bind(c, name='strlen')
      import
      type(c_ptr), value :: s
      integer(c_size_t) :: c_strlen
    end function

    function c_rtopo_strerror(status) bind(c, name='rtopo_strerror')
      import
      integer(c_int), value :: status
      type(c_ptr) :: c_rtopo_strerror
    end function

    function c_rtopo_err_name(status) bind(c, name='rtopo_err_name')
      import
      integer(c_int), value :: status
      type(c_ptr) :: c_rtopo_err_name
    end function

    function c_rtopo_last_error() bind(c, name='rtopo_last_error')
      import
      type(c_ptr) :: c_rtopo_last_error
    end function

    function c_rtopo_version() bind(c, name='rtopo_version')
      import
      type(c_ptr) :: c_rtopo_version
    end function

    function c_rtopo_init(cfg, ctx) bind(c, name='rtopo_init')
      import
      type(f08_config), intent(in) :: cfg
      type(c_ptr) :: ctx
      integer(c_int) :: c_rtopo_init
    end function

    function c_rtopo_finalize(ctx) bind(c, name='rtopo_finalize')
      import
      type(c_ptr), value :: ctx
      integer(c_int) :: c_rtopo_finalize
    end function

    function c_rtopo_rank(ctx) bind(c, name='rtopo_rank')
      import
      type(c_ptr), value :: ctx
      integer(c_int) :: c_rtopo_rank
    end function

    function c_rtopo_size(ctx) bind(c, name='rtopo_size')
      import
      type(c_ptr), value :: ctx
      integer(c_int) :: c_rtopo_size
    end function

    function c_rtopo_barrier(ctx) bind(c, name='rtopo_barrier')
      import
      type(c_ptr), value :: ctx
      integer(c_int) :: c_rtopo_barrier
    end function

    function c_rtopo_set_place(ctx, place) bind(c, name='rtopo_set_place')
      import
      type(c_ptr), value :: ctx
      integer(c_int), value :: place
      integer(c_int) :: c_rtopo_set_place
    end function

    function c_rtopo_mem_register(ctx, buf, len, mem) bind(c, name='rtopo_mem_register')
      import
      type(c_ptr), value :: ctx, buf
      integer(c_size_t), value :: len
      type(c_ptr) :: mem
      integer(c_int) :: c_rtopo_mem_register
    end function

    function c_rtopo_mem_deregister(mem) bind(c, name='rtopo_mem_deregister')
      import
      type(c_ptr), value :: mem
      integer(c_int) :: c_rtopo_mem_deregister
    end function

    function c_rtopo_topo_ring(ctx, topo) bind(c, name='rtopo_topo_ring')
      import
      type(c_ptr), value :: ctx
      type(c_ptr) :: topo
      integer(c_int) :: c_rtopo_topo_ring
    end function

    function c_rtopo_topo_mesh(ctx, rows, cols, topo) bind(c, name='rtopo_topo_mesh')
      import
      type(c_ptr), value :: ctx
      integer(c_int), value :: rows, cols
      type(c_ptr) :: topo
      integer(c_int) :: c_rtopo_topo_mesh
    end function

    function c_rtopo_topo_hypercube(ctx, dim, topo) bind(c, name='rtopo_topo_hypercube')
      import
      type(c_ptr), value :: ctx
      integer(c_int), value :: dim
      type(c_ptr) :: topo
      integer(c_int) :: c_rtopo_topo_hypercube
    end function

    function c_rtopo_topo_hypercube_host(ctx, dim, host, topo) &
        bind(c, name='rtopo_topo_hypercube_host')
      import
      type(c_ptr), value :: ctx
      integer(c_int), value :: dim, host
      type(c_ptr) :: topo
      integer(c_int) :: c_rtopo_topo_hypercube_host
    end function

    function c_rtopo_topo_otis_mesh(ctx, n, topo) bind(c, name='rtopo_topo_otis_mesh')
      import
      type(c_ptr), value :: ctx
      integer(c_int), value :: n
      type(c_ptr) :: topo
      integer(c_int) :: c_rtopo_topo_otis_mesh
    end function

    function c_rtopo_topo_otis_hypercube(ctx, n, topo) &
        bind(c, name='rtopo_topo_otis_hypercube')
      import
      type(c_ptr), value :: ctx
      integer(c_int), value :: n
      type(c_ptr) :: topo
      integer(c_int) :: c_rtopo_topo_otis_hypercube
    end function

    function c_rtopo_topo_free(topo) bind(c, name='rtopo_topo_free')
      import
      type(c_ptr), value :: topo
      integer(c_int) :: c_rtopo_topo_free
    end function

    function c_rtopo_topo_set_shift_algo(topo, algo) bind(c, name='rtopo_topo_set_shift_algo')
      import
      type(c_ptr), value :: topo
      integer(c_int), value :: algo
      integer(c_int) :: c_rtopo_topo_set_shift_algo
    end function

    function c_rtopo_topo_set_scatter_algo(topo, algo, x) &
        bind(c, name='rtopo_topo_set_scatter_algo')
      import
      type(c_ptr), value :: topo
      integer(c_int), value :: algo, x
      integer(c_int) :: c_rtopo_topo_set_scatter_algo
    end function

    function c_rtopo_topo_set_coll_algo(topo, algo) bind(c, name='rtopo_topo_set_coll_algo')
      import
      type(c_ptr), value :: topo
      integer(c_int), value :: algo
      integer(c_int) :: c_rtopo_topo_set_coll_algo
    end function

    function c_rtopo_topo_rank(topo) bind(c, name='rtopo_topo_rank')
      import
      type(c_ptr), value :: topo
      integer(c_int) :: c_rtopo_topo_rank
    end function

    function c_rtopo_topo_size(topo) bind(c, name='rtopo_topo_size')
      import
      type(c_ptr), value :: topo
      integer(c_int) :: c_rtopo_topo_size
    end function

    function c_rtopo_topo_ndims(topo) bind(c, name='rtopo_topo_ndims')
      import
      type(c_ptr), value :: topo
      integer(c_int) :: c_rtopo_topo_ndims
    end function

    function c_rtopo_topo_extent(topo, dim) bind(c, name='rtopo_topo_extent')
      import
      type(c_ptr), value :: topo
      integer(c_int), value :: dim
      integer(c_int) :: c_rtopo_topo_extent
    end function

    function c_rtopo_topo_coords(topo, rank, coords) bind(c, name='rtopo_topo_coords')
      import
      type(c_ptr), value :: topo
      integer(c_int), value :: rank
      integer(c_int) :: coords(*)
      integer(c_int) :: c_rtopo_topo_coords
    end function

    function c_rtopo_topo_rank_at(topo, coords) bind(c, name='rtopo_topo_rank_at')
      import
      type(c_ptr), value :: topo
      integer(c_int), intent(in) :: coords(*)
      integer(c_int) :: c_rtopo_topo_rank_at
    end function

    function c_rtopo_topo_sub(topo, keep, sub) bind(c, name='rtopo_topo_sub')
      import
      type(c_ptr), value :: topo
      integer(c_int), value :: keep
      type(c_ptr) :: sub
      integer(c_int) :: c_rtopo_topo_sub
    end function

    function c_rtopo_bpc_dest(topo, vector, rank) bind(c, name='rtopo_bpc_dest')
      import
      type(c_ptr), value :: topo, vector
      integer(c_int), value :: rank
      integer(c_int) :: c_rtopo_bpc_dest
    end function

    function c_rtopo_start(req) bind(c, name='rtopo_start')
      import
      type(c_ptr), value :: req
      integer(c_int) :: c_rtopo_start
    end function

    function c_rtopo_wait(req) bind(c, name='rtopo_wait')
      import
      type(c_ptr), value :: req
      integer(c_int) :: c_rtopo_wait
    end function

    function c_rtopo_test(req, done) bind(c, name='rtopo_test')
      import
      type(c_ptr), value :: req
      integer(c_int) :: done
      integer(c_int) :: c_rtopo_test
    end function

    function c_rtopo_req_free(req) bind(c, name='rtopo_req_free')
      import
      type(c_ptr), value :: req
      integer(c_int) :: c_rtopo_req_free
    end function

    ! the C functions of the collectives, in their three call forms
    ! (call_forms.def)
    include 'rtopo_f08_cforms.inc'

  end interface

contains

  ! ---- helpers --------------------------------------------------------

  ! a C string as a Fortran string
  function f08_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: cs(:)
    integer :: i, n

    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, cs, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = cs(i)
    end do
  end function

  ! a status raised by the binding, with its detail
  function f08_raise(st, detail) result(res)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: detail
    integer(c_int) :: res

    call f08_set_error(detail, len(detail, c_size_t))
    res = st
  end function

  ! every call ends here: ierror, or a fatal error when it is absent
  subroutine f08_status(st, name, ierror)
    integer(c_int), intent(in) :: st
    character(len=*), intent(in) :: name
    integer, optional, intent(out) :: ierror

    if (present(ierror)) ierror = int(st)
    if (st == RTOPO_OK .or. present(ierror)) return
    write (error_unit, '(a)') name // ' failed: ' // rtopo_err_name(int(st)) // ': ' // &
        rtopo_strerror(int(st)) // ' (' // rtopo_last_error() // ')'
    flush (output_unit)
    flush (error_unit)
    call c_exit(1_c_int)   ! not ERROR STOP, whose backtrace would bury the message
  end subroutine

  ! address and bytes of one buffer
  function f08_buf(buf, addr, bytes, elem) result(st)
    type(*), dimension(..), intent(in) :: buf
    type(c_ptr), intent(out) :: addr
    integer(c_size_t), intent(out) :: bytes, elem
    integer(c_int) :: st

    call f08_clear()
    st = f08_c_buf(buf, addr, bytes, elem)
    if (st /= RTOPO_OK) st = f08_raise(st, &
        'the binding takes contiguous buffers of known size only')
  end function

  ! ... of a send and a receive buffer
  function f08_bufs(sendbuf, recvbuf, sp, sb, rp, rb, elem) result(st)
    type(*), dimension(..), intent(in) :: sendbuf, recvbuf
    type(c_ptr), intent(out) :: sp, rp
    integer(c_size_t), intent(out) :: sb, rb, elem
    integer(c_int) :: st
    integer(c_size_t) :: relem

    st = f08_buf(sendbuf, sp, sb, elem)
    if (st == RTOPO_OK) st = f08_buf(recvbuf, rp, rb, relem)
  end function

  ! a buffer of have bytes where need bytes go
  function f08_fits(have, need, what) result(st)
    integer(c_size_t), intent(in) :: have, need
    character(len=*), intent(in) :: what
    integer(c_int) :: st
    character(len=64) :: h, n

    st = RTOPO_OK
    if (have >= need) return
    write (h, '(i0)') have
    write (n, '(i0)') need
    st = f08_raise(RTOPO_ERR_INVAL, what // ' holds ' // trim(h) // ' bytes, the call needs ' &
        // trim(n))
  end function

  ! bytes of count elements of datatype (0 for an unknown type, which the
  ! C library then refuses)
  function f08_typed(count, datatype) result(bytes)
    integer, intent(in) :: count, datatype
    integer(c_size_t) :: bytes

    select case (datatype)
    case (RTOPO_INT32, RTOPO_FLOAT)
      bytes = 4
    case (RTOPO_INT64, RTOPO_DOUBLE)
      bytes = 8
    case default
      bytes = 0
    end select
    bytes = bytes * int(max(count, 0), c_size_t)
  end function

  ! a C function that returns a value or a negative status
  subroutine f08_value(ret, val, name, ierror)
    integer(c_int), intent(in) :: ret
    integer, intent(out) :: val
    character(len=*), intent(in) :: name
    integer, optional, intent(out) :: ierror

    call f08_clear()
    val = int(ret)
    if (ret >= 0) then
      call f08_status(int(RTOPO_OK, c_int), name, ierror)
    else
      call f08_status(ret, name, ierror)
    end if
  end subroutine

  ! ---- errors and version ---------------------------------------------

  function rtopo_strerror(status) result(s)
    integer, intent(in) :: status
    character(len=:), allocatable :: s

    s = f08_string(c_rtopo_strerror(int(status, c_int)))
  end function

  function rtopo_err_name(status) result(s)
    integer, intent(in) :: status
    character(len=:), allocatable :: s

    s = f08_string(c_rtopo_err_name(int(status, c_int)))
  end function

  ! the detail of the last error: the binding's own when it raised the
  ! last one, else the C library's
  function rtopo_last_error() result(s)
    character(len=:), allocatable :: s
    type(c_ptr) :: own

    own = f08_error()
    if (c_associated(own)) then
      s = f08_string(own)
    else
      s = f08_string(c_rtopo_last_error())
    end if
  end function

  function rtopo_version() result(s)
    character(len=:), allocatable :: s

    s = f08_string(c_rtopo_version())
  end function

  ! ---- context ---------------------------------------------------------

  ! rtopo_config_t as optional arguments: rank, nranks, allgather and
  ! allgather_arg for the out-of-band bootstrap; transport and timeout_ms
  subroutine rtopo_init(ctx, ierror, rank, nranks, allgather, allgather_arg, transport, &
      timeout_ms)
    type(rtopo_ctx), intent(out) :: ctx
    integer, optional, intent(out) :: ierror
    integer, optional, intent(in) :: rank, nranks, timeout_ms
    procedure(rtopo_allgather_function), optional :: allgather
    type(c_ptr), optional, intent(in) :: allgather_arg
    character(len=*), optional, intent(in) :: transport
    type(f08_config) :: cfg
    character(kind=c_char, len=:), allocatable, target :: ctransport
    integer(c_int) :: st

    call f08_clear()
    cfg%size = c_sizeof(cfg)
    cfg%rank = -1
    cfg%nranks = 0
    cfg%allgather = c_null_funptr
    cfg%allgather_arg = c_null_ptr
    cfg%transport = c_null_ptr
    cfg%timeout_ms = 0
    if (present(rank)) cfg%rank = int(rank, c_int)
    if (present(nranks)) cfg%nranks = int(nranks, c_int)
    if (present(allgather)) cfg%allgather = c_funloc(allgather)
    if (present(allgather_arg)) cfg%allgather_arg = allgather_arg
    if (present(transport)) then
      ctransport = transport // c_null_char
      cfg%transport = c_loc(ctransport)
    end if
    if (present(timeout_ms)) cfg%timeout_ms = int(timeout_ms, c_int)
    st = c_rtopo_init(cfg, ctx%ptr)
    call f08_status(st, 'rtopo_init', ierror)
  end subroutine

  subroutine rtopo_finalize(ctx, ierror)
    type(rtopo_ctx), intent(inout) :: ctx
    integer, optional, intent(out) :: ierror
    integer(c_int) :: st

    call f08_clear()
    st = c_rtopo_finalize(ctx%ptr)
    if (st == RTOPO_OK) ctx%ptr = c_null_ptr
    call f08_status(st, 'rtopo_finalize', ierror)
  end subroutine

  subroutine rtopo_rank(ctx, rank, ierror)
    type(rtopo_ctx), intent(in) :: ctx
    integer, intent(out) :: rank
    integer, optional, intent(out) :: ierror

    call f08_value(c_rtopo_rank(ctx%ptr), rank, 'rtopo_rank', ierror)
  end subroutine

  subroutine rtopo_size(ctx, size, ierror)
    type(rtopo_ctx), intent(in) :: ctx
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror

    call f08_value(c_rtopo_size(ctx%ptr), size, 'rtopo_size', ierror)
  end subroutine

  subroutine rtopo_barrier(ctx, ierror)
    type(rtopo_ctx), intent(in) :: ctx
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_barrier(ctx%ptr), 'rtopo_barrier', ierror)
  end subroutine

  subroutine rtopo_set_place(ctx, place, ierror)
    type(rtopo_ctx), intent(in) :: ctx
    integer, intent(in) :: place
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_set_place(ctx%ptr, int(place, c_int)), 'rtopo_set_place', ierror)
  end subroutine

  ! ---- memory registration ---------------------------------------------

  subroutine rtopo_mem_register(ctx, buf, mem, ierror)
    type(rtopo_ctx), intent(in) :: ctx
    type(*), dimension(..), intent(in) :: buf
    type(rtopo_mem), intent(out) :: mem
    integer, optional, intent(out) :: ierror
    type(c_ptr) :: p
    integer(c_size_t) :: b, el
    integer(c_int) :: st

    st = f08_buf(buf, p, b, el)
    if (st == RTOPO_OK) st = c_rtopo_mem_register(ctx%ptr, p, b, mem%ptr)
    call f08_status(st, 'rtopo_mem_register', ierror)
  end subroutine

  subroutine rtopo_mem_deregister(mem, ierror)
    type(rtopo_mem), intent(inout) :: mem
    integer, optional, intent(out) :: ierror
    integer(c_int) :: st

    call f08_clear()
    st = c_rtopo_mem_deregister(mem%ptr)
    if (st == RTOPO_OK) mem%ptr = c_null_ptr
    call f08_status(st, 'rtopo_mem_deregister', ierror)
  end subroutine

  ! ---- topologies ------------------------------------------------------

  subroutine rtopo_topo_ring(ctx, topo, ierror)
    type(rtopo_ctx), intent(in) :: ctx
    type(rtopo_topo), intent(out) :: topo
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_topo_ring(ctx%ptr, topo%ptr), 'rtopo_topo_ring', ierror)
  end subroutine

  subroutine rtopo_topo_mesh(ctx, rows, cols, topo, ierror)
    type(rtopo_ctx), intent(in) :: ctx
    integer, intent(in) :: rows, cols
    type(rtopo_topo), intent(out) :: topo
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_topo_mesh(ctx%ptr, int(rows, c_int), int(cols, c_int), &
        topo%ptr), 'rtopo_topo_mesh', ierror)
  end subroutine

  subroutine rtopo_topo_hypercube(ctx, dim, topo, ierror)
    type(rtopo_ctx), intent(in) :: ctx
    integer, intent(in) :: dim
    type(rtopo_topo), intent(out) :: topo
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_topo_hypercube(ctx%ptr, int(dim, c_int), topo%ptr), &
        'rtopo_topo_hypercube', ierror)
  end subroutine

  subroutine rtopo_topo_hypercube_host(ctx, dim, host, topo, ierror)
    type(rtopo_ctx), intent(in) :: ctx
    integer, intent(in) :: dim, host
    type(rtopo_topo), intent(out) :: topo
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_topo_hypercube_host(ctx%ptr, int(dim, c_int), int(host, c_int), &
        topo%ptr), 'rtopo_topo_hypercube_host', ierror)
  end subroutine

  subroutine rtopo_topo_otis_mesh(ctx, n, topo, ierror)
    type(rtopo_ctx), intent(in) :: ctx
    integer, intent(in) :: n
    type(rtopo_topo), intent(out) :: topo
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_topo_otis_mesh(ctx%ptr, int(n, c_int), topo%ptr), &
        'rtopo_topo_otis_mesh', ierror)
  end subroutine

  subroutine rtopo_topo_otis_hypercube(ctx, n, topo, ierror)
    type(rtopo_ctx), intent(in) :: ctx
    integer, intent(in) :: n
    type(rtopo_topo), intent(out) :: topo
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_topo_otis_hypercube(ctx%ptr, int(n, c_int), topo%ptr), &
        'rtopo_topo_otis_hypercube', ierror)
  end subroutine

  subroutine rtopo_topo_free(topo, ierror)
    type(rtopo_topo), intent(inout) :: topo
    integer, optional, intent(out) :: ierror
    integer(c_int) :: st

    call f08_clear()
    st = c_rtopo_topo_free(topo%ptr)
    if (st == RTOPO_OK) topo%ptr = c_null_ptr
    call f08_status(st, 'rtopo_topo_free', ierror)
  end subroutine

  subroutine rtopo_topo_set_shift_algo(topo, algo, ierror)
    type(rtopo_topo), intent(in) :: topo
    integer, intent(in) :: algo
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_topo_set_shift_algo(topo%ptr, int(algo, c_int)), &
        'rtopo_topo_set_shift_algo', ierror)
  end subroutine

  subroutine rtopo_topo_set_scatter_algo(topo, algo, x, ierror)
    type(rtopo_topo), intent(in) :: topo
    integer, intent(in) :: algo, x
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_topo_set_scatter_algo(topo%ptr, int(algo, c_int), int(x, c_int)), &
        'rtopo_topo_set_scatter_algo', ierror)
  end subroutine

  subroutine rtopo_topo_set_coll_algo(topo, algo, ierror)
    type(rtopo_topo), intent(in) :: topo
    integer, intent(in) :: algo
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_topo_set_coll_algo(topo%ptr, int(algo, c_int)), &
        'rtopo_topo_set_coll_algo', ierror)
  end subroutine

  subroutine rtopo_topo_rank(topo, rank, ierror)
    type(rtopo_topo), intent(in) :: topo
    integer, intent(out) :: rank
    integer, optional, intent(out) :: ierror

    call f08_value(c_rtopo_topo_rank(topo%ptr), rank, 'rtopo_topo_rank', ierror)
  end subroutine

  subroutine rtopo_topo_size(topo, size, ierror)
    type(rtopo_topo), intent(in) :: topo
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror

    call f08_value(c_rtopo_topo_size(topo%ptr), size, 'rtopo_topo_size', ierror)
  end subroutine

  subroutine rtopo_topo_ndims(topo, ndims, ierror)
    type(rtopo_topo), intent(in) :: topo
    integer, intent(out) :: ndims
    integer, optional, intent(out) :: ierror

    call f08_value(c_rtopo_topo_ndims(topo%ptr), ndims, 'rtopo_topo_ndims', ierror)
  end subroutine

  subroutine rtopo_topo_extent(topo, dim, extent, ierror)
    type(rtopo_topo), intent(in) :: topo
    integer, intent(in) :: dim
    integer, intent(out) :: extent
    integer, optional, intent(out) :: ierror

    call f08_value(c_rtopo_topo_extent(topo%ptr, int(dim, c_int)), extent, &
        'rtopo_topo_extent', ierror)
  end subroutine

  ! coords(1:ndims) receives the coordinates of dimensions 0 .. ndims-1
  subroutine rtopo_topo_coords(topo, rank, coords, ierror)
    type(rtopo_topo), intent(in) :: topo
    integer, intent(in) :: rank
    integer, intent(inout) :: coords(:)
    integer, optional, intent(out) :: ierror
    integer(c_int) :: c(RTOPO_MAX_DIMS), st
    integer :: n

    call f08_clear()
    n = int(c_rtopo_topo_ndims(topo%ptr))
    if (n < 0) then
      st = int(n, c_int)
    else if (size(coords) < n) then
      st = f08_raise(RTOPO_ERR_INVAL, 'coords has fewer elements than the topology has dimensions')
    else
      st = c_rtopo_topo_coords(topo%ptr, int(rank, c_int), c)
      if (st == RTOPO_OK) coords(1:n) = int(c(1:n))
    end if
    call f08_status(st, 'rtopo_topo_coords', ierror)
  end subroutine

  subroutine rtopo_topo_rank_at(topo, coords, rank, ierror)
    type(rtopo_topo), intent(in) :: topo
    integer, intent(in) :: coords(:)
    integer, intent(out) :: rank
    integer, optional, intent(out) :: ierror
    integer(c_int) :: c(RTOPO_MAX_DIMS), st
    integer :: n

    call f08_clear()
    n = int(c_rtopo_topo_ndims(topo%ptr))
    rank = -1
    if (n < 0) then
      st = int(n, c_int)
    else if (size(coords) < n) then
      st = f08_raise(RTOPO_ERR_INVAL, 'coords has fewer elements than the topology has dimensions')
    else
      c = 0
      c(1:n) = int(coords(1:n), c_int)
      st = c_rtopo_topo_rank_at(topo%ptr, c)
      if (st >= 0) then
        rank = int(st)
        st = RTOPO_OK
      end if
    end if
    call f08_status(st, 'rtopo_topo_rank_at', ierror)
  end subroutine

  ! keep(k+1) .true. keeps dimension k, as remain_dims of MPI_Cart_sub
  subroutine rtopo_topo_sub(topo, keep, sub, ierror)
    type(rtopo_topo), intent(in) :: topo
    logical, intent(in) :: keep(:)
    type(rtopo_topo), intent(out) :: sub
    integer, optional, intent(out) :: ierror
    integer(c_int) :: mask, st
    integer :: k

    call f08_clear()
    if (size(keep) > RTOPO_MAX_DIMS) then
      st = f08_raise(RTOPO_ERR_INVAL, 'keep has more elements than RTOPO_MAX_DIMS')
    else
      mask = 0
      do k = 1, size(keep)
        if (keep(k)) mask = ibset(mask, k - 1)
      end do
      st = c_rtopo_topo_sub(topo%ptr, mask, sub%ptr)
    end if
    call f08_status(st, 'rtopo_topo_sub', ierror)
  end subroutine

  subroutine rtopo_bpc_dest(topo, vector, rank, dest, ierror)
    type(rtopo_topo), intent(in) :: topo
    character(len=*), intent(in) :: vector
    integer, intent(in) :: rank
    integer, intent(out) :: dest
    integer, optional, intent(out) :: ierror
    character(kind=c_char, len=len(vector) + 1), target :: cvec

    cvec = vector // c_null_char
    call f08_value(c_rtopo_bpc_dest(topo%ptr, c_loc(cvec), int(rank, c_int)), dest, &
        'rtopo_bpc_dest', ierror)
  end subroutine

  ! ---- requests ----------------------------------------------------------

  subroutine rtopo_start(request, ierror)
    type(rtopo_request), intent(in) :: request
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_start(request%ptr), 'rtopo_start', ierror)
  end subroutine

  subroutine rtopo_wait(request, ierror)
    type(rtopo_request), intent(in) :: request
    integer, optional, intent(out) :: ierror

    call f08_clear()
    call f08_status(c_rtopo_wait(request%ptr), 'rtopo_wait', ierror)
  end subroutine

  subroutine rtopo_test(request, flag, ierror)
    type(rtopo_request), intent(in) :: request
    logical, intent(out) :: flag
    integer, optional, intent(out) :: ierror
    integer(c_int) :: done, st

    call f08_clear()
    done = 0
    st = c_rtopo_test(request%ptr, done)
    flag = st == RTOPO_OK .and. done /= 0
    call f08_status(st, 'rtopo_test', ierror)
  end subroutine

  subroutine rtopo_req_free(request, ierror)
    type(rtopo_request), intent(inout) :: request
    integer, optional, intent(out) :: ierror
    integer(c_int) :: st

    call f08_clear()
    st = c_rtopo_req_free(request%ptr)
    if (st == RTOPO_OK) request%ptr = c_null_ptr
    call f08_status(st, 'rtopo_req_free', ierror)
  end subroutine

  ! ---- collectives: blocking, nonblocking (request) and persistent
  ! (_init, then rtopo_start and rtopo_wait), each written once in
  ! call_forms.def, from which call_forms.awk makes the three forms ----------

  include 'rtopo_f08_forms.inc'

end module rtopo_f08
