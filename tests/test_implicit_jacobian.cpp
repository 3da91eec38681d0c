// The implicit method's linear algebra (integrators/jacobian.hpp, sparse_lu.hpp): the analytic
// Jacobian against finite differences (generated networks, electron captures, the REACLIB slice,
// screening), the minimum-degree ordering and the sparse LU against a dense product.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "common/constants.hpp"
#include "deck/deck.hpp"
#include "deck/yaml_schema.hpp"
#include "integrators/implicit.hpp"
#include "integrators/implicit_structure.hpp"
#include "network/analytic.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "network/reaclib.hpp"
#include "zones/zone_batch.hpp"

#include "implicit_testing.hpp"

namespace zoneode {
namespace {


// A real REACLIB slice: rp-z12 from the test data (ZONEODE_REACLIB_DATA, ../shared/reaclib), else
// the rp-z24 slice the project ships (inputs/networks/), so that a plain clone runs these tests too.
Network reaclib_slice() {
  const std::string dir = ZONEODE_REACLIB_DATA;
  std::string path = dir + "/rp-z12.reaclib", list = dir + "/rp-z12.nuclides";
  if (!std::filesystem::exists(path) || !std::filesystem::exists(list)) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string_view(ci) == "true") ADD_FAILURE() << "no " << path << " with CI=true";
    path = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.reaclib";
    list = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.nuclides";
  }
  return read_reaclib(path, read_nuclide_list(list));
}

// Random abundances spread over decades, normalised to sum A Y = 1.
std::vector<double> random_abundances(const Network& network, unsigned seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> decades(-8.0, 0.0);
  std::vector<double> Y(network.species_count());
  double mass = 0.0;
  for (int i = 0; i < network.species_count(); ++i) {
    Y[i] = std::pow(10.0, decades(random));
    mass += network.species[i].A * Y[i];
  }
  for (double& y : Y) y /= mass;
  return Y;
}

struct Evaluated {
  std::vector<double> dense;       // J [row][column], species order
  std::vector<double> energy_row;  // d(sum Q flux)/dY
};

// At T9 [GK], rho [g/cm^3] (screening, when the network's physics has it, depends on them);
// screening_columns false leaves out screening's composition dependence (a planted fault).
Evaluated analytic_jacobian(const CompactNetwork& compact, const ImplicitStructure& structure,
                            const std::vector<double>& rate, const std::vector<double>& Y, double T9, double rho,
                            bool screening_columns = true) {
  const int S = compact.species_count();
  const StepView net = compact.step_view();
  const JacobianView jac = structure.jacobian_view();
  std::vector<double> slot(jac.slot_count), entries(jac.entry_count), ye_column(S), screening_column(S, 0.0);
  Evaluated out{std::vector<double>(S * S, 0.0), std::vector<double>(S)};
  flux_derivative_slots(net, jac, rate.data(), Y.data(), slot.data(), T9, rho);
  jacobian_from_slots(S, jac, slot.data(), entries.data(), ye_column.data(), out.energy_row.data());
  if (net.screening != 0 && screening_columns) {
    std::vector<double> flux(net.reaction_count);
    zone_fluxes(net, rate.data(), Y.data(), flux.data(), T9, rho);
    screening_jacobian_columns(net, T9, rho, Y.data(), flux.data(), ye_column.data(), screening_column.data(),
                               out.energy_row.data());
  }
  for (int e = 0; e < jac.entry_count; ++e) out.dense[jac.entry_row[e] * S + jac.entry_column[e]] += entries[e];
  // The rank-one Ye part u Z^T, and weak screening's v (Z^2)^T.
  const bool weak = net.screening == static_cast<int>(ScreeningKind::weak);
  for (int i = 0; i < S; ++i)
    for (int m = 0; m < S; ++m) {
      const double Z = compact.species_Z[m];
      out.dense[i * S + m] += ye_column[i] * Z;
      if (weak) out.dense[i * S + m] += screening_column[i] * Z * Z;
    }
  return out;
}

// f(Y), S(Y) = sum Q flux, and the rounding scales: per species F+ + F- (the sizes of the terms that
// cancel in f), and sum |Q flux|.
struct Rhs {
  std::vector<double> f, magnitude;
  double release = 0.0, release_magnitude = 0.0;
};
Rhs rhs(const CompactNetwork& compact, const std::vector<double>& rate, const std::vector<double>& Y, double T9,
        double rho) {
  const StepView net = compact.step_view();
  std::vector<double> flux(net.reaction_count);
  zone_fluxes(net, rate.data(), Y.data(), flux.data(), T9, rho);
  Rhs out;
  out.f.resize(net.species_count);
  species_rates(net, flux.data(), out.f.data());
  for (int i = 0; i < net.species_count; ++i)
    out.magnitude.push_back(creation_sum(net, i, flux.data()) + destruction_sum(net, i, flux.data()));
  out.release = energy_release_rate(net, flux.data());
  for (int r = 0; r < net.reaction_count; ++r) out.release_magnitude += std::fabs(flux[r] * net.q_value_MeV[r]);
  return out;
}

// Every entry of J and of the energy row, structural zeros included, against central differences.
// Fluxes are polynomials in each Y_j of degree <= 3 (identical reactants, times Ye), so a central
// difference with h = 1e-3 Y_j is exact up to ~h^2/Y_j^2 = 1e-6 relative; rounding adds about
// eps (F+ + F-) / h, allowed here with a 1e4 margin. With screening, fluxes also carry exp(h(ye,
// sum Z^2 Y)), smooth on the scale of h. Returns the entries that differ beyond the tolerance
// (EXPECTed to be none unless `expect_fail`, which checks a planted fault instead).
int check_jacobian(const Network& network, double T9, double rho, unsigned seed, const PhysicsOptions& physics = {},
                   bool expect_fail = false) {
  const CompactNetwork compact(network, physics);
  const ImplicitStructure structure(compact);
  const int S = compact.species_count();
  std::vector<double> rate(compact.reaction_count());
  zone_rate_factors(compact.rate_view(), T9, rho, rate.data());
  const std::vector<double> Y = random_abundances(network, seed);
  const Evaluated J = analytic_jacobian(compact, structure, rate, Y, T9, rho, !expect_fail);
  int checked = 0, above_noise = 0, wrong = 0;
  for (int j = 0; j < S; ++j) {
    const double h = 1e-3 * Y[j];
    std::vector<double> up = Y, down = Y;
    up[j] += h;
    down[j] -= h;
    const Rhs a = rhs(compact, rate, up, T9, rho), b = rhs(compact, rate, down, T9, rho);
    for (int i = 0; i < S; ++i) {
      const double fd = (a.f[i] - b.f[i]) / (2 * h);
      const double noise = 1e-12 * (a.magnitude[i] + b.magnitude[i]) / h;
      const double analytic = J.dense[i * S + j];
      const bool within = std::fabs(fd - analytic) <= 1e-5 * std::fabs(analytic) + noise;
      wrong += within ? 0 : 1;
      if (!expect_fail)
        EXPECT_TRUE(within) << network.name << ": J[" << network.species[i].name << "][" << network.species[j].name
                            << "] analytic " << analytic << " finite difference " << fd;
      if (std::fabs(analytic) > 2 * noise) ++above_noise;  // zeroing it would fail
      ++checked;
    }
    const double fd_energy = (a.release - b.release) / (2 * h);
    const double energy_noise = 1e-12 * (a.release_magnitude + b.release_magnitude) / h;
    const bool energy_within = std::fabs(fd_energy - J.energy_row[j]) <= 1e-5 * std::fabs(J.energy_row[j]) + energy_noise;
    wrong += energy_within ? 0 : 1;
    if (!expect_fail) EXPECT_TRUE(energy_within) << network.name << ": energy row " << network.species[j].name;
  }
  EXPECT_EQ(checked, S * S);
  // The check has teeth: a quarter and more of the pattern's entries would fail if dropped.
  EXPECT_GT(above_noise, structure.jacobian_view().entry_count / 4) << network.name;
  return wrong;
}

TEST(ImplicitJacobian, MatchesFiniteDifferencesOnGeneratedNetworks) {
  check_jacobian(generate_network(generator_preset("s16")), 2.0, 1e7, 1);
  check_jacobian(generate_network(generator_preset("default")), 2.5, 1e7, 2);
}

TEST(ImplicitJacobian, ElectronCapturesFollowYe) {
  const Network network = with_electron_captures(generate_network(generator_preset("s16")));
  check_jacobian(network, 2.0, 1e7, 3);
  // Planted fault: without the Ye slots the captures' dependence on every charged species is lost,
  // so J differs from the finite differences in a column of a species the captures do not involve.
  const CompactNetwork compact(network);
  const ImplicitStructure structure(compact);
  EXPECT_GT(structure.jacobian_view().slot_count, [&] {
    int reactants = 0;
    for (const Reaction& r : network.reactions) reactants += static_cast<int>(r.reactants.size());
    return reactants;
  }());
}

TEST(ImplicitJacobian, MatchesFiniteDifferencesOnTheReaclibSlice) {
  const Network network = reaclib_slice();
  check_jacobian(network, 0.4, 1e5, 4);
  check_jacobian(network, 0.8, 1e6, 5);
}

// Screening's exp(h) depends on the composition (weak: through sum (Z^2 + Z) Y; chugunov2007:
// through Ye): J carries it as rank-one columns (jacobian.hpp), checked entry by entry against
// finite differences of the screened right-hand side, and the check fails without them.
TEST(ImplicitJacobian, ScreeningFollowsTheComposition) {
  for (ScreeningKind kind : {ScreeningKind::weak, ScreeningKind::chugunov2007}) {
    PhysicsOptions physics;
    physics.screening = kind;
    const Network network = with_electron_captures(generate_network(generator_preset("s16")));
    EXPECT_EQ(check_jacobian(network, 0.3, 1e8, 6, physics), 0) << screening_kind_name(kind);
    EXPECT_GT(check_jacobian(network, 0.3, 1e8, 6, physics, true), 0) << screening_kind_name(kind) << ": planted fault";
    const Network slice = reaclib_slice();
    EXPECT_EQ(check_jacobian(slice, 0.8, 1e6, 7, physics), 0) << screening_kind_name(kind);
    EXPECT_GT(check_jacobian(slice, 0.8, 1e6, 7, physics, true), 0) << screening_kind_name(kind) << ": planted fault";
  }
}

TEST(ImplicitSparseLu, MinimumDegreePutsTheHubOfAnArrowLast) {
  // Node 0 touches all others: eliminated first it would fill the whole matrix.
  std::vector<std::vector<std::int32_t>> arrow(6);
  for (int i = 1; i < 6; ++i) arrow[0].push_back(i);
  const auto order = minimum_degree_order(arrow);
  ASSERT_EQ(order.size(), 6u);
  // Leaves first (degree 1); the hub only when one leaf is left (then both have degree 1).
  for (int p = 0; p < 4; ++p) EXPECT_NE(order[p], 0) << p;
}

// Solves M x = b with M = I/(h gamma) - J and checks M x = b with a dense product.
void check_solve(const Network& network, double T9, double rho, double h) {
  const CompactNetwork compact(network);
  const ImplicitStructure structure(compact);
  const int S = compact.species_count();
  std::vector<double> rate(compact.reaction_count());
  zone_rate_factors(compact.rate_view(), T9, rho, rate.data());
  const std::vector<double> Y = random_abundances(network, 7);
  const Evaluated J = analytic_jacobian(compact, structure, rate, Y, T9, rho);
  const ImplicitView view = structure.view();
  const JacobianView jac = structure.jacobian_view();
  std::vector<double> slot(jac.slot_count), entries(jac.entry_count), ye_column(S), energy(S),
      values(view.lu.filled_count, 0.0);
  flux_derivative_slots(compact.step_view(), jac, rate.data(), Y.data(), slot.data());
  jacobian_from_slots(S, jac, slot.data(), entries.data(), ye_column.data(), energy.data());
  const double diagonal = 1.0 / (h * rodas3::gamma);
  for (int p = 0; p < S; ++p) values[view.lu.diagonal[p]] = diagonal;
  for (int e = 0; e < jac.entry_count; ++e) values[view.entry_position[e]] -= entries[e];
  sparse_lu_factor(view.lu, values.data());
  std::vector<double> b(S), x(S), work(S);
  for (int i = 0; i < S; ++i) b[i] = std::sin(1.0 + i);
  sparse_lu_solve(view.lu, values.data(), b.data(), x.data(), work.data());
  // Sherman-Morrison for the Ye part, as integrate_zone_implicit does.
  std::vector<double> w(S);
  sparse_lu_solve(view.lu, values.data(), ye_column.data(), w.data(), work.data());
  double z_dot_w = 0.0, z_dot_x = 0.0;
  for (int i = 0; i < S; ++i) {
    z_dot_w += compact.species_Z[i] * w[i];
    z_dot_x += compact.species_Z[i] * x[i];
  }
  for (int i = 0; i < S; ++i) x[i] += w[i] * z_dot_x / (1.0 - z_dot_w);
  double worst = 0.0, scale = 0.0;
  for (int i = 0; i < S; ++i) {
    double product = diagonal * x[i], magnitude = std::fabs(diagonal * x[i]);
    for (int j = 0; j < S; ++j) {
      product -= J.dense[i * S + j] * x[j];
      magnitude += std::fabs(J.dense[i * S + j] * x[j]);
    }
    worst = std::fmax(worst, std::fabs(product - b[i]) / magnitude);
    scale = std::fmax(scale, magnitude);
  }
  EXPECT_LT(worst, 1e-10) << network.name << " h " << h;
  // No dense storage: the filled pattern stays below N^2.
  EXPECT_LT(structure.filled_entries(), static_cast<std::int64_t>(S) * S) << network.name;
  EXPECT_GE(structure.filled_entries(), structure.matrix_entries());
}

TEST(ImplicitSparseLu, SolvesAgainstDenseProduct) {
  for (double h : {1e-12, 1e-6, 1e-2}) {
    check_solve(generate_network(generator_preset("s16")), 2.0, 1e7, h);
    check_solve(generate_network(generator_preset("s150")), 1.5, 1e7, h);
    check_solve(with_electron_captures(generate_network(generator_preset("default"))), 2.0, 1e7, h);
  }
}

}  // namespace
}  // namespace zoneode
