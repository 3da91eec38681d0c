// The cost of one call of the self-heating EOS on this machine's CPU, printed by itself (issue 39,
// item 4): for each point of a grid T9 0.01-100 x rho 1-1e10 (Ye 0.5), the median over 7
// repetitions of the time per call of a loop of calls, for the exact gas (specific_heat_exact,
// with the quadrature passes, Newton iterations, the point takes) and for the tabulated one
// self-heating uses (specific_heat, physics/eos_table.hpp; the table's one-off build timed apart),
// in the same run; and self-heating's read of the table's c_v with du_ele/dYe (the energy per added
// electron, issue 39 item 1: electron_gas_response, one stencil for both). One thread.
// Run: ./build/zoneode-eos-cost [calls_per_point]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "physics/eos.hpp"

template <typename Function>
double median_ns_per_call(int calls, double T9, double rho, double ions, double ye, Function evaluate,
                          volatile double& sink) {
  std::vector<double> loops;
  for (int repeat = 0; repeat < 7; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    double sum = 0.0;
    for (int k = 0; k < calls; ++k)  // a tiny change a call, so no call is folded into another
      sum += evaluate(T9 * 1e9 * (1.0 + 1e-12 * k), rho, ions, ye);
    const auto stop = std::chrono::steady_clock::now();
    sink = sink + sum;
    loops.push_back(std::chrono::duration<double, std::nano>(stop - start).count() / calls);
  }
  std::sort(loops.begin(), loops.end());
  return loops[3];
}

int main(int argc, char** argv) {
  const int calls = argc > 1 ? std::atoi(argv[1]) : 200;
  const double ye = 0.5, ions = 1.0 / 12.0;
  const double T9s[] = {0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0};
  const double rhos[] = {1.0, 1e2, 1e4, 1e6, 1e8, 1e10};
  volatile double sink = 0.0;
  const auto build_start = std::chrono::steady_clock::now();
  const zoneode::ElectronGasTableView& table = zoneode::host_electron_gas_table();
  const double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - build_start).count();
  std::printf("# the table: %d nodes, built in %.2f s (once per process)\n", table.row_offset[table.rows], build_s);
  std::printf("# ns per call (median of 7 loops of %d calls): exact [Newton passes] / table\n", calls);
  std::printf("%8s", "T9\\rho");
  for (double rho : rhos) std::printf("  %17.0e", rho);
  std::printf("\n");
  std::vector<double> exact_all, table_all, response_all;
  // c_v and du_ele/dYe from one table read (what a self-heated step reads since issue 39 item 1).
  auto response = [](double T, double rho, double ions, double ye) {
    const zoneode::ElectronGasResponse r = zoneode::electron_gas_response(T, rho, ye);
    return zoneode::ion_specific_heat(ions) + r.specific_heat + r.energy_per_ye;
  };
  for (double T9 : T9s) {
    std::printf("%8g", T9);
    for (double rho : rhos) {
      const double exact_ns = median_ns_per_call(calls, T9, rho, ions, ye, zoneode::specific_heat_exact, sink);
      const double table_ns = median_ns_per_call(calls, T9, rho, ions, ye, zoneode::specific_heat, sink);
      const double response_ns = median_ns_per_call(calls, T9, rho, ions, ye, response, sink);
      response_all.push_back(response_ns);
      const int passes = zoneode::electron_positron_gas(T9 * 1e9, rho, ye).iterations;
      std::printf("  %8.0f [%d] / %4.0f", exact_ns, passes, table_ns);
      exact_all.push_back(exact_ns);
      table_all.push_back(table_ns);
    }
    std::printf("\n");
  }
  std::sort(exact_all.begin(), exact_all.end());
  std::sort(table_all.begin(), table_all.end());
  std::sort(response_all.begin(), response_all.end());
  std::printf("over the %zu points, ns per call: exact median %.0f (min %.0f, max %.0f); table median %.0f (min %.0f, max %.0f)\n",
              exact_all.size(), exact_all[exact_all.size() / 2], exact_all.front(), exact_all.back(),
              table_all[table_all.size() / 2], table_all.front(), table_all.back());
  std::printf("table read of c_v with du/dYe (electron_gas_response): median %.0f (min %.0f, max %.0f)\n",
              response_all[response_all.size() / 2], response_all.front(), response_all.back());
  return sink == 12345.0;  // never: keeps the loops
}
