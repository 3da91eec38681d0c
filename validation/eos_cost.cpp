// The cost of one call of the self-heating EOS (physics/eos.hpp, specific_heat) on this machine's
// CPU, printed by itself (issue 39, item 4): for each point of a grid T9 0.01-100 x rho 1-1e10
// (Ye 0.5), the median over 7 repetitions of the time per call of a loop of calls, with the
// quadrature passes (Newton iterations) the point takes. One thread.
// Run: ./build/zoneode-eos-cost [calls_per_point]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "physics/eos.hpp"

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200;
  const double ye = 0.5, ions = 1.0 / 12.0;
  const double T9s[] = {0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0};
  const double rhos[] = {1.0, 1e2, 1e4, 1e6, 1e8, 1e10};
  volatile double sink = 0.0;
  std::vector<double> all;
  std::printf("# ns per call of specific_heat (median of 7 loops of %d calls), Newton passes in brackets\n", calls);
  std::printf("%8s", "T9\\rho");
  for (double rho : rhos) std::printf("  %12.0e", rho);
  std::printf("\n");
  for (double T9 : T9s) {
    std::printf("%8g", T9);
    for (double rho : rhos) {
      std::vector<double> loops;
      for (int repeat = 0; repeat < 7; ++repeat) {
        const auto start = std::chrono::steady_clock::now();
        double sum = 0.0;
        for (int k = 0; k < calls; ++k)  // a tiny change a call, so no call is folded into another
          sum += zoneode::specific_heat(T9 * 1e9 * (1.0 + 1e-12 * k), rho, ions, ye);
        const auto stop = std::chrono::steady_clock::now();
        sink = sink + sum;
        loops.push_back(std::chrono::duration<double, std::nano>(stop - start).count() / calls);
      }
      std::sort(loops.begin(), loops.end());
      const int passes = zoneode::electron_positron_gas(T9 * 1e9, rho, ye).iterations;
      std::printf("  %8.0f [%d]", loops[3], passes);
      all.push_back(loops[3]);
    }
    std::printf("\n");
  }
  std::sort(all.begin(), all.end());
  std::printf("over the %zu points: median %.0f ns, min %.0f ns, max %.0f ns per call\n", all.size(),
              all[all.size() / 2], all.front(), all.back());
  return sink == 12345.0;  // never: keeps the loops
}
