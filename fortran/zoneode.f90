! zoneode's burner from Fortran: iso_c_binding interfaces to the C API (include/zoneode/zoneode.h).
! Shipped as source (a .mod file is compiler-specific): compile it with your code and link
! zoneode::zoneode (CMake: ${zoneode_FORTRAN_MODULE}, examples/fortran) or -lzoneode.
!
!   use zoneode
!   type(c_ptr) :: burner
!   ierr = zoneode_burner_create_from_text(zoneode_c_string(deck), c_null_ptr, 0, burner)
!   ierr = zoneode_burn(burner, int(nzones, c_int64_t), nspecies, dt, T9, rho, Y, results, ZONEODE_HOST_MEMORY)
!
! Y(species, zone): Fortran's column-major array of shape (nspecies, nzones) is the C API's
! zone-major [zone][species] layout, so it is passed as it is.
module zoneode
  use, intrinsic :: iso_c_binding
  implicit none
  private
  public :: zoneode_zone_result, zoneode_c_string, zoneode_error_message
  public :: zoneode_api_version, zoneode_burner_create_from_text, zoneode_burner_create_from_file
  public :: zoneode_burner_destroy, zoneode_burner_species_count, zoneode_burner_species_index
  public :: zoneode_burner_species_nucleons, zoneode_burner_deck_abundances, zoneode_burn

  integer(c_int), parameter, public :: ZONEODE_API_VERSION_F = 1  ! ZONEODE_API_VERSION of the header
  integer(c_int), parameter, public :: ZONEODE_OK = 0, ZONEODE_ZONES_FAILED = 1
  integer(c_int), parameter, public :: ZONEODE_ERROR_NULL_ARGUMENT = -1, ZONEODE_ERROR_INVALID_ARGUMENT = -2
  integer(c_int), parameter, public :: ZONEODE_ERROR_INPUT = -3, ZONEODE_ERROR_UNSUPPORTED = -4
  integer(c_int), parameter, public :: ZONEODE_ERROR_OUT_OF_MEMORY = -5, ZONEODE_ERROR_RUNTIME = -6
  integer(c_int), parameter, public :: ZONEODE_HOST_MEMORY = 0, ZONEODE_DEVICE_MEMORY = 1
  integer(c_int32_t), parameter, public :: ZONEODE_ZONE_OK = 0

  ! zoneode_zone_result, field for field (96 bytes).
  type, bind(c) :: zoneode_zone_result
    integer(c_int32_t) :: status, reserved
    integer(c_int64_t) :: steps, rejected_steps, rhs_evaluations, jacobian_evaluations, factorizations
    real(c_double) :: energy_released, energy_rate, time_burned, final_T9, mass_fraction_sum, max_mass_drift
  end type zoneode_zone_result

  interface
    function zoneode_api_version() bind(c, name="zoneode_api_version")
      import :: c_int
      integer(c_int) :: zoneode_api_version
    end function
    function zoneode_last_error_c() bind(c, name="zoneode_last_error")
      import :: c_ptr
      type(c_ptr) :: zoneode_last_error_c
    end function
    ! overrides: c_null_ptr with override_count 0, or c_loc of an array of c_ptr to NUL-terminated strings.
    function zoneode_burner_create_from_text(deck_yaml, overrides, override_count, burner) &
        bind(c, name="zoneode_burner_create_from_text")
      import :: c_int, c_char, c_ptr
      character(kind=c_char), intent(in) :: deck_yaml(*)
      type(c_ptr), value :: overrides
      integer(c_int), value :: override_count
      type(c_ptr), intent(out) :: burner
      integer(c_int) :: zoneode_burner_create_from_text
    end function
    function zoneode_burner_create_from_file(deck_path, overrides, override_count, burner) &
        bind(c, name="zoneode_burner_create_from_file")
      import :: c_int, c_char, c_ptr
      character(kind=c_char), intent(in) :: deck_path(*)
      type(c_ptr), value :: overrides
      integer(c_int), value :: override_count
      type(c_ptr), intent(out) :: burner
      integer(c_int) :: zoneode_burner_create_from_file
    end function
    subroutine zoneode_burner_destroy(burner) bind(c, name="zoneode_burner_destroy")
      import :: c_ptr
      type(c_ptr), value :: burner
    end subroutine
    function zoneode_burner_species_count(burner, species_count) bind(c, name="zoneode_burner_species_count")
      import :: c_int, c_ptr
      type(c_ptr), value :: burner
      integer(c_int), intent(out) :: species_count
      integer(c_int) :: zoneode_burner_species_count
    end function
    ! species: 0-based, as in C.
    function zoneode_burner_species_index(burner, name, species) bind(c, name="zoneode_burner_species_index")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: burner
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: species
      integer(c_int) :: zoneode_burner_species_index
    end function
    function zoneode_burner_species_nucleons(burner, species, mass_number, charge) &
        bind(c, name="zoneode_burner_species_nucleons")
      import :: c_int, c_ptr
      type(c_ptr), value :: burner
      integer(c_int), value :: species
      integer(c_int), intent(out) :: mass_number, charge
      integer(c_int) :: zoneode_burner_species_nucleons
    end function
    function zoneode_burner_deck_abundances(burner, species_count, Y) bind(c, name="zoneode_burner_deck_abundances")
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: burner
      integer(c_int), value :: species_count
      real(c_double), intent(out) :: Y(*)
      integer(c_int) :: zoneode_burner_deck_abundances
    end function
    function zoneode_burn(burner, zone_count, species_count, dt, T9, rho, Y, results, memory) &
        bind(c, name="zoneode_burn")
      import :: c_int, c_int64_t, c_ptr, c_double, zoneode_zone_result
      type(c_ptr), value :: burner
      integer(c_int64_t), value :: zone_count
      integer(c_int), value :: species_count
      real(c_double), value :: dt
      real(c_double), intent(inout) :: T9(*)
      real(c_double), intent(in) :: rho(*)
      real(c_double), intent(inout) :: Y(*)
      type(zoneode_zone_result), intent(out) :: results(*)
      integer(c_int), value :: memory
      integer(c_int) :: zoneode_burn
    end function
    function c_strlen(text) bind(c, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: text
      integer(c_size_t) :: c_strlen
    end function
  end interface

contains

  ! A Fortran string as a NUL-terminated C string.
  function zoneode_c_string(text) result(c_text)
    character(len=*), intent(in) :: text
    character(kind=c_char, len=len_trim(text) + 1) :: c_text
    c_text = trim(text) // c_null_char
  end function

  ! The message of the last call that failed on this thread.
  function zoneode_error_message() result(message)
    character(len=:), allocatable :: message
    type(c_ptr) :: text
    character(kind=c_char), pointer :: chars(:)
    integer :: k, length
    text = zoneode_last_error_c()
    length = int(c_strlen(text))
    call c_f_pointer(text, chars, [length])
    allocate(character(len=length) :: message)
    do k = 1, length
      message(k:k) = chars(k)
    end do
  end function

end module zoneode
