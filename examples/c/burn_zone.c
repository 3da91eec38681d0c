/* One zone burned through the C API from C, built with pkg-config:
 *   cc burn_zone.c $(pkg-config --cflags --libs zoneode) -o burn_zone
 * The decay chain x0 -> x1 -> x2 -> x3 (rates 3, 0.7, 0.05 per second) over 2 s: x0 = exp(-6)
 * exactly; exit 0 when the burn matches it within 1e-5 (relative), 1 otherwise. */
#include <math.h>
#include <stdio.h>
#include <zoneode/zoneode.h>

int main(void) {
  const char* deck =
      "network: {source: decay_chain, rates: [3.0, 0.7, 0.05]}\n"
      "integrator: {method: implicit, schedule: adaptive, start_time: 1.0e-6, rtol: 1.0e-8, atol: 1.0e-14}\n";
  zoneode_burner* burner = NULL;
  double T9 = 1.0, rho = 1.0, Y[4] = {1.0, 0.0, 0.0, 0.0};
  zoneode_zone_result result;
  if (zoneode_burner_create_from_text(deck, NULL, 0, &burner) != ZONEODE_OK ||
      zoneode_burn(burner, 1, 4, 2.0, &T9, &rho, Y, &result, ZONEODE_HOST_MEMORY) != ZONEODE_OK) {
    fprintf(stderr, "burn_zone: %s\n", zoneode_last_error());
    zoneode_burner_destroy(burner);
    return 1;
  }
  zoneode_burner_destroy(burner);
  const double exact = exp(-6.0), error = fabs(Y[0] - exact) / exact;
  printf("x0 = %.10f (exact %.10f, relative error %.1e) in %lld steps\n", Y[0], exact, error, (long long)result.steps);
  return error < 1e-5 ? 0 : 1;
}
