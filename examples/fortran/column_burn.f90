! The operator-split driver of examples/cpp in Fortran: a 1D periodic column, each time step an
! upwind advection of the composition, then a burn of every zone over dt through the zoneode module.
! Exit 0 when every call succeeds, every zone burns and sum X stays 1 within 1e-6 in every zone.
program column_burn
  use, intrinsic :: iso_c_binding
  use zoneode
  implicit none
  integer, parameter :: nzones = 24, nsteps = 6
  real(c_double), parameter :: courant = 0.5d0, dt = 1.0d-6
  character(len=*), parameter :: nl = new_line('a')
  character(len=*), parameter :: deck = &
      "network: {source: generator, preset: s16}" // nl // &
      "integrator: {method: implicit, schedule: adaptive, start_time: 1.0e-10, rtol: 1.0e-6}" // nl // &
      "run: {threads: 1}" // nl
  type(c_ptr) :: burner
  type(zoneode_zone_result) :: results(nzones)
  real(c_double), allocatable :: Y(:, :), advected(:, :)
  real(c_double) :: T9(nzones), rho(nzones), released, worst
  integer(c_int) :: nspecies, he4, c12, ierr, A, Z
  integer(c_int), allocatable :: mass_number(:)
  integer :: zone, step, s, upwind
  integer(c_int64_t) :: work

  if (zoneode_api_version() /= ZONEODE_API_VERSION_F) stop 1
  ierr = zoneode_burner_create_from_text(zoneode_c_string(deck), c_null_ptr, 0_c_int, burner)
  if (ierr /= ZONEODE_OK) call failed("create")
  ierr = zoneode_burner_species_count(burner, nspecies)
  ierr = ior(ierr, zoneode_burner_species_index(burner, zoneode_c_string("he4"), he4))
  ierr = ior(ierr, zoneode_burner_species_index(burner, zoneode_c_string("c12"), c12))
  if (ierr /= ZONEODE_OK) call failed("species")
  allocate(Y(nspecies, nzones), advected(nspecies, nzones), mass_number(nspecies))
  do s = 1, nspecies
    if (zoneode_burner_species_nucleons(burner, s - 1, A, Z) /= ZONEODE_OK) call failed("nucleons")
    mass_number(s) = A
  end do

  ! A hot pocket in the middle; pure he4 left, he4 with 30% c12 right (species indices are 0-based).
  Y = 0
  rho = 1.0d6
  do zone = 1, nzones
    T9(zone) = merge(3.0d0, 1.5d0, abs(zone - 1 - nzones / 2) < nzones / 8)
    if (zone - 1 < nzones / 2) then
      Y(he4 + 1, zone) = 1.0d0 / 4
    else
      Y(he4 + 1, zone) = 0.7d0 / 4
      Y(c12 + 1, zone) = 0.3d0 / 12
    end if
  end do

  released = 0
  work = 0
  do step = 1, nsteps
    do zone = 1, nzones
      upwind = modulo(zone - 2, nzones) + 1
      advected(:, zone) = Y(:, zone) - courant * (Y(:, zone) - Y(:, upwind))
    end do
    Y = advected
    ierr = zoneode_burn(burner, int(nzones, c_int64_t), nspecies, dt, T9, rho, Y, results, ZONEODE_HOST_MEMORY)
    if (ierr /= ZONEODE_OK) call failed("burn")
    released = released + sum(results%energy_released)
    work = work + sum(results%steps)
    print '(a, i3, a, es13.6, a)', "step ", step, "  energy released so far ", released / nzones, " erg/g"
  end do
  worst = 0
  do zone = 1, nzones
    worst = max(worst, abs(sum(mass_number * Y(:, zone)) - 1.0d0))
  end do
  call zoneode_burner_destroy(burner)
  print '(i0, a, i0, a, i0, a, es9.2)', nzones, " zones, ", nsteps, " steps, ", work, &
      " integrator steps; largest |sum X - 1| = ", worst
  if (worst >= 1.0d-6 .or. released <= 0 .or. work < nzones * nsteps) then
    print '(a)', "column_burn (Fortran): FAILED"
    stop 1
  end if
  print '(a)', "column_burn (Fortran): OK"

contains

  subroutine failed(what)
    character(len=*), intent(in) :: what
    print '(a, a, a)', what, ": ", zoneode_error_message()
    stop 1
  end subroutine

end program column_burn
