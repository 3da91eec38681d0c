// The tabulated e-/e+ specific heat (physics/eos_table.hpp) against the exact gas it replaces
// (physics/eos.hpp's quadrature, itself held to 1e-9 of a direct integration in
// test_physics_eos.cpp): 1e-6 relative over T9 0.01-100 x rho 1-1e10, off the nodes and at the
// exact quadrature's switch points; outside the table's range the exact gas itself; a planted wrong
// table entry caught by the same check.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "physics/eos.hpp"
#include "physics/self_heating.hpp"

namespace zoneode {
namespace {

constexpr double tolerance = 1e-6;  // issue 39, item 4

struct Point {
  double T9, rho, ye;
};

// The largest relative difference of the table's c_v (per gram) from the exact gas over points;
// `where` receives the worst point.
double largest_difference(const ElectronGasTableView& table, const std::vector<Point>& points, Point& where) {
  double worst = 0.0;
  for (const Point& p : points) {
    double c = 0.0;
    const bool inside = electron_gas_table_lookup(table, p.T9, p.rho * p.ye, c);
    EXPECT_TRUE(inside) << "T9 " << p.T9 << " rho " << p.rho << " ye " << p.ye;
    const double tabulated = p.ye * cgs::avogadro * cgs::boltzmann * c;
    const double exact = electron_specific_heat_exact(p.T9 * 1e9, p.rho, p.ye);
    const double error = std::fabs(tabulated / exact - 1.0);
    if (!(error <= worst)) {
      worst = error;
      where = p;
    }
  }
  return worst;
}

// Log-uniform grid points whose T9 and rho avoid the nodes' exact values (irrational offsets).
std::vector<Point> grid_off_the_nodes(int T9_points, int rho_points, double ye) {
  std::vector<Point> points;
  for (int a = 0; a < T9_points; ++a)
    for (int b = 0; b < rho_points; ++b) {
      const double T9 = std::fmin(100.0, 0.01 * std::pow(1e4, (a + 0.3183) / (T9_points - 1)));
      const double rho = std::fmin(1e10, std::pow(1e10, (b + 0.5772) / (rho_points - 1)));
      points.push_back({T9, rho, ye});
    }
  return points;
}

TEST(PhysicsEosTable, MatchesTheExactGasOffTheNodes) {
  const ElectronGasTableView& table = host_electron_gas_table();
  for (double ye : {0.5, 0.7, 1.0}) {
    Point where{};
    const double worst = largest_difference(table, grid_off_the_nodes(61, 41, ye), where);
    EXPECT_LT(worst, tolerance) << "ye " << ye << " worst at T9 " << where.T9 << " rho " << where.rho;
    std::printf("Ye %.1f: 2,501 points, largest relative difference %.2e (T9 %.3g, rho %.3g)\n", ye, worst, where.T9,
                where.rho);
  }
  // The corners and edges of the range itself.
  std::vector<Point> edges;
  for (double T9 : {0.01, 100.0})
    for (double rho : {1.0, 1e10}) edges.push_back({T9, rho, 0.5});
  Point where{};
  EXPECT_LT(largest_difference(table, edges, where), tolerance);
}

// rho [g/cm^3] at which the exact gas's eta is `eta` at T9 (bisection in log rho).
double density_for_eta(double T9, double eta, double ye) {
  double lo = std::log(1e-6), hi = std::log(1e16);
  for (int k = 0; k < 200 && hi - lo > 1e-13; ++k) {
    const double mid = 0.5 * (lo + hi);
    (electron_positron_gas(T9 * 1e9, std::exp(mid), ye).eta < eta ? lo : hi) = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

TEST(PhysicsEosTable, HoldsAtEverySwitchOfTheExactQuadrature) {
  // The exact gas's layout changes at eta = 6 k - 12, 24, 60, 132, ... and where positrons are
  // skipped (test_physics_eos.cpp); a jump there would show in the table's nodes on either side.
  const double ye = 0.5;
  std::vector<Point> points;
  for (double T9 : {0.01, 0.03, 0.1, 0.5, 2.0, 6.0, 20.0, 60.0}) {
    const double beta = eos_table_detail::beta_of_T9(T9);
    std::vector<double> switches = {0.0, 6.0, 12.0, 18.0, 24.0, 60.0, 132.0, 276.0, 564.0, 1140.0};
    switches.push_back(100.0 - 2.0 / beta);
    for (double eta_switch : switches)
      for (double offset : {-0.05, -1e-6, 1e-6, 0.05, 0.5}) {
        const double rho = density_for_eta(T9, eta_switch + offset, ye);
        if (rho >= 1.0 && rho <= 1e10) points.push_back({T9, rho, ye});
      }
  }
  Point where{};
  const double worst = largest_difference(host_electron_gas_table(), points, where);
  EXPECT_LT(worst, tolerance) << "worst at T9 " << where.T9 << " rho " << where.rho;
  EXPECT_GT(points.size(), 100u);
  std::printf("%zu points at the switches: largest relative difference %.2e\n", points.size(), worst);
}

TEST(PhysicsEosTable, SpecificHeatUsesTheTableInRangeAndTheExactGasOutside) {
  // In range: electron_specific_heat is the table's value (not the exact one bit for bit, within 1e-6).
  const double T = 2e9, rho = 1e6, ye = 0.5;
  double c = 0.0;
  ASSERT_TRUE(electron_gas_table_lookup(host_electron_gas_table(), 2.0, rho * ye, c));
  EXPECT_EQ(electron_specific_heat(T, rho, ye), ye * cgs::avogadro * cgs::boltzmann * c);
  EXPECT_NEAR(electron_specific_heat(T, rho, ye), electron_specific_heat_exact(T, rho, ye),
              tolerance * electron_specific_heat_exact(T, rho, ye));
  // Outside (T9 300, T9 0.001, rho Ye 1e-3 and 1e11, Ye 0): the exact gas, bit for bit.
  for (Point p : {Point{300.0, 1e6, 0.5}, Point{0.001, 1e6, 0.5}, Point{1.0, 2e-3, 0.5}, Point{1.0, 1e11, 1.0},
                  Point{3.0, 1e5, 0.0}}) {
    EXPECT_EQ(electron_specific_heat(p.T9 * 1e9, p.rho, p.ye), electron_specific_heat_exact(p.T9 * 1e9, p.rho, p.ye))
        << p.T9 << " " << p.rho << " " << p.ye;
  }
}

TEST(PhysicsEosTable, APlantedWrongEntryIsCaught) {
  // A copy of the table with one node 2e-5 too high in ln c (one wrong entry, as a corrupted build
  // or a shifted index would give): the check above finds it on points around the node.
  ElectronGasTable damaged = build_electron_gas_table();
  damaged.refresh_view();
  const ElectronGasTableView& view = damaged.view;
  // The node nearest T9 1, rho Ye 5e5 (rho 1e6 at Ye 0.5).
  const double T9 = 1.0, rho_ye = 5e5;
  const int row = static_cast<int>(std::lround(
      (eos_table_detail::temperature_coordinate(eos_table_detail::beta_of_T9(T9)) - view.y_first) / view.y_step));
  const int column =
      static_cast<int>(std::lround((eos_table_detail::density_coordinate(T9, rho_ye) - view.x_first) / view.x_step));
  ASSERT_GE(column, view.row_first[row]);
  ASSERT_LT(column, view.row_end[row]);
  std::vector<Point> around;
  for (int a = -5; a <= 5; ++a)
    for (int b = -5; b <= 5; ++b) around.push_back({T9 * std::exp(0.013 * a), 2.0 * rho_ye * std::exp(0.031 * b), 0.5});
  Point where{};
  EXPECT_LT(largest_difference(view, around, where), tolerance);  // intact
  damaged.log_c[view.row_offset[row] + column - view.row_first[row]] += 2e-5;
  const double worst = largest_difference(view, around, where);
  EXPECT_GT(worst, tolerance);
  std::printf("one node 2e-5 off: largest relative difference around it %.2e\n", worst);
}

// The table a StepView carries (StepView::eos_table: the GPU backend's device copy) is the one read,
// on the host too: a copy of the host's table gives the host's bits; a copy with ln c raised by
// ln 2 doubles the e-/e+ c_v (so the copy, not the host's own, was read); outside the range, and
// with Ye 0, the exact gas. self-heating's thermal_response passes it through.
TEST(PhysicsEosTable, AGivenTableIsTheOneRead) {
  ElectronGasTable copy = build_electron_gas_table();
  copy.refresh_view();
  const double T = 2e9, rho = 1e6, ye = 0.5;
  const ElectronGasResponse host = electron_gas_response(T, rho, ye);
  const ElectronGasResponse same = electron_gas_response(T, rho, ye, &copy.view);
  EXPECT_EQ(same.specific_heat, host.specific_heat);
  EXPECT_EQ(same.energy_per_ye, host.energy_per_ye);
  for (double& log_c : copy.log_c) log_c += std::log(2.0);
  const ElectronGasResponse doubled = electron_gas_response(T, rho, ye, &copy.view);
  EXPECT_NEAR(doubled.specific_heat, 2.0 * host.specific_heat, 1e-14 * host.specific_heat);
  EXPECT_EQ(doubled.energy_per_ye, host.energy_per_ye);  // q is not changed
  const ThermalResponse at = thermal_response(2.0, rho, 0.3, ye, &copy.view);
  EXPECT_NEAR(at.cv - thermal_response(2.0, rho, 0.3, ye).cv, host.specific_heat, 1e-12 * at.cv);
  EXPECT_EQ(electron_gas_response(T, rho, 0.0, &copy.view).specific_heat,
            electron_gas_response_exact(T, rho, 0.0).specific_heat);  // Ye 0
  const double far_T = 5e11;  // T9 500: beyond the table
  EXPECT_EQ(electron_gas_response(far_T, rho, ye, &copy.view).specific_heat,
            electron_gas_response_exact(far_T, rho, ye).specific_heat);
}

// The energy per added net electron du_ele/dYe (self-heating's composition term,
// physics/self_heating.hpp) from the same stencil as c: within 1e-6 of (|du/dYe| + N_A k T) of the
// exact gas (measured 4.0e-7 at T9 0.49, rho 2.5, Ye 0.5, the pairs' onset at low density) over the
// grid above and the switch points; it changes sign (pairs: towards -N_A m_e c^2), so the error is
// measured against its size plus the thermal scale N_A k T, the ions' share of dU/dY being 3/2 of
// that. The combined lookup's c is the c-only lookup's, bit for bit.
double largest_energy_difference(const ElectronGasTableView& table, const std::vector<Point>& points, Point& where) {
  double worst = 0.0;
  for (const Point& p : points) {
    double c = 0.0, c_alone = 0.0, q = 0.0;
    EXPECT_TRUE(electron_gas_table_lookup(table, p.T9, p.rho * p.ye, c, q)) << p.T9 << " " << p.rho;
    EXPECT_TRUE(electron_gas_table_lookup(table, p.T9, p.rho * p.ye, c_alone));
    EXPECT_EQ(c, c_alone);
    const double thermal = cgs::avogadro * cgs::boltzmann * p.T9 * 1e9;  // N_A k T [erg/mol]
    const double exact = electron_positron_gas(p.T9 * 1e9, p.rho, p.ye).energy_per_ye;
    const double error = std::fabs(q * thermal - exact) / (std::fabs(exact) + thermal);
    if (!(error <= worst)) {
      worst = error;
      where = p;
    }
  }
  return worst;
}

TEST(PhysicsEosTable, EnergyPerElectronMatchesTheExactGas) {
  const ElectronGasTableView& table = host_electron_gas_table();
  double worst_all = 0.0;
  for (double ye : {0.5, 1.0}) {
    Point where{};
    const double worst = largest_energy_difference(table, grid_off_the_nodes(61, 41, ye), where);
    EXPECT_LT(worst, tolerance) << "ye " << ye << " worst at T9 " << where.T9 << " rho " << where.rho;
    std::printf("Ye %.1f: 2,501 points, du/dYe within %.2e of (|du/dYe| + N_A k T) (worst T9 %.3g, rho %.3g)\n", ye,
                worst, where.T9, where.rho);
    worst_all = std::fmax(worst_all, worst);
  }
  EXPECT_GT(worst_all, 1e-9);  // the comparison sees the interpolation (a table read is not the exact gas)
  // The switch points of the exact quadrature, as for c.
  std::vector<Point> points;
  for (double T9 : {0.01, 0.1, 2.0, 20.0}) {
    for (double eta_switch : {0.0, 12.0, 24.0, 60.0, 132.0})
      for (double offset : {-1e-6, 1e-6}) {
        const double rho = density_for_eta(T9, eta_switch + offset, 0.5);
        if (rho >= 1.0 && rho <= 1e10) points.push_back({T9, rho, 0.5});
      }
  }
  Point where{};
  EXPECT_LT(largest_energy_difference(table, points, where), tolerance) << where.T9 << " " << where.rho;
  // Through electron_gas_response: the table in range, the exact gas with physics.eos exact.
  const ElectronGasResponse read = electron_gas_response(2e9, 1e6, 0.5);
  host_electron_gas_table_enabled() = false;
  const ElectronGasResponse exact = electron_gas_response(2e9, 1e6, 0.5);
  host_electron_gas_table_enabled() = true;
  EXPECT_EQ(exact.energy_per_ye, electron_positron_gas(2e9, 1e6, 0.5).energy_per_ye);
  EXPECT_NE(read.energy_per_ye, exact.energy_per_ye);
  EXPECT_NEAR(read.energy_per_ye, exact.energy_per_ye, tolerance * std::fabs(exact.energy_per_ye));
}

}  // namespace
}  // namespace zoneode
