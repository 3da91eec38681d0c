// Operator splitting as a hydro code does it, with zoneode as the burner: a 1D periodic column of
// zones, each time step a toy hydro step (first-order upwind advection of the composition at a
// constant velocity) and then a burn of every zone over the same dt through the C API.
//
//   column_burn [zones] [steps]
//
// Checks what must hold whatever the network: every call succeeds, every zone burns, and the mass
// fractions of every zone still sum to 1 (advection and burning both conserve them). Exit 0 when
// all holds, 1 otherwise.
#include <zoneode/zoneode.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// A 16-species network (zoneode's s16 generator preset), the implicit method with adaptive steps.
// The burner takes T9, rho and abundances from the driver; the deck says only what and how to burn.
const char* const deck =
    "network: {source: generator, preset: s16}\n"
    "integrator:\n"
    "  method: implicit\n"
    "  schedule: adaptive\n"
    "  start_time: 1.0e-10   # [s] the schedule's origin; each burn covers dt from there\n"
    "  rtol: 1.0e-6\n"
    "run: {threads: 1}\n";

bool ok(int code, const char* what) {
  if (code == ZONEODE_OK) return true;
  std::fprintf(stderr, "column_burn: %s: code %d: %s\n", what, code, zoneode_last_error());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const long zones = argc > 1 ? std::atol(argv[1]) : 32;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  if (zones < 3 || steps < 1) {
    std::fprintf(stderr, "usage: column_burn [zones >= 3] [steps >= 1]\n");
    return 2;
  }
  if (zoneode_api_version() != ZONEODE_API_VERSION) {
    std::fprintf(stderr, "column_burn: built for zoneode API %d, the library is %d\n", ZONEODE_API_VERSION,
                 zoneode_api_version());
    return 1;
  }

  zoneode_burner* burner = nullptr;
  if (!ok(zoneode_burner_create_from_text(deck, nullptr, 0, &burner), "create")) return 1;
  const char* backend = "";
  if (!ok(zoneode_burner_backend(burner, &backend), "backend")) return 1;
  std::printf("zoneode %s, %s\ndata: %s\n", zoneode_version(), backend, zoneode_data_dir());
  int species = 0, he4 = 0, c12 = 0;
  if (!ok(zoneode_burner_species_count(burner, &species), "species count") ||
      !ok(zoneode_burner_species_index(burner, "he4", &he4), "he4") ||
      !ok(zoneode_burner_species_index(burner, "c12", &c12), "c12"))
    return 1;
  std::vector<int> mass_number(species);
  for (int s = 0; s < species; ++s) {
    int charge = 0;
    if (!ok(zoneode_burner_species_nucleons(burner, s, &mass_number[s], &charge), "nucleons")) return 1;
  }

  // The column: a hot pocket in the middle (T9 3 against 1.5), pure he4 left, he4 with 30% c12 right.
  std::vector<double> T9(zones), rho(zones, 1.0e6), Y(zones * species, 0.0), advected(zones * species);
  for (long z = 0; z < zones; ++z) {
    T9[z] = std::labs(z - zones / 2) < zones / 8 ? 3.0 : 1.5;
    const double x_c12 = z < zones / 2 ? 0.0 : 0.3;
    Y[z * species + he4] = (1.0 - x_c12) / 4.0;
    Y[z * species + c12] = x_c12 / 12.0;
  }

  const double courant = 0.5;  // velocity * dt / dx: the upwind step's stability bound is 1
  const double dt = 1.0e-6;    // [s] the hydro step, and each burn's length
  std::vector<zoneode_zone_result> results(zones);
  double released = 0.0;  // [erg/g] summed over zones and steps (zones of equal mass)
  long long integrator_steps = 0;
  for (int step = 1; step <= steps; ++step) {
    // Hydro: upwind advection to the right, periodic.
    for (long z = 0; z < zones; ++z) {
      const long upwind = (z + zones - 1) % zones;
      for (int s = 0; s < species; ++s)
        advected[z * species + s] = Y[z * species + s] - courant * (Y[z * species + s] - Y[upwind * species + s]);
    }
    Y.swap(advected);
    // Burn: every zone over dt, in place.
    if (!ok(zoneode_burn(burner, zones, species, dt, T9.data(), rho.data(), Y.data(), results.data(),
                         ZONEODE_HOST_MEMORY),
            "burn"))
      return 1;
    for (long z = 0; z < zones; ++z) {
      released += results[z].energy_released;
      integrator_steps += results[z].steps;
    }
    double carbon = 0.0;
    for (long z = 0; z < zones; ++z) carbon += 12.0 * Y[z * species + c12];
    std::printf("step %3d  mean X(c12) %.6f  energy released so far %.6e erg/g\n", step, carbon / zones,
                released / zones);
  }

  double worst = 0.0;  // largest |sum X - 1| over zones
  for (long z = 0; z < zones; ++z) {
    double sum = 0.0;
    for (int s = 0; s < species; ++s) sum += mass_number[s] * Y[z * species + s];
    worst = std::fmax(worst, std::fabs(sum - 1.0));
  }
  zoneode_burner_destroy(burner);
  std::printf("%ld zones, %d steps, %lld integrator steps; largest |sum X - 1| = %.2e\n", zones, steps,
              integrator_steps, worst);
  const bool conserved = worst < 1e-6;  // rtol 1e-6 per burn; advection adds only rounding
  const bool burned = released > 0.0 && integrator_steps >= zones * steps;
  if (!conserved || !burned) {
    std::fprintf(stderr, "column_burn: FAILED (%s)\n", !conserved ? "mass fractions not conserved" : "nothing burned");
    return 1;
  }
  std::printf("column_burn: OK\n");
  return 0;
}
