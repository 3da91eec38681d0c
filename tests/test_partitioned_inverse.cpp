// The implicit solves as a partitioned inverse (src/integrators/partitioned_inverse.*, issue 36),
// the host reference of a design for the team kernels. Checks, on s16, the default network (both
// with electron captures), rp-z12, rp-z24 and s150:
// - a solve agrees with the serial sparse LU's (sparse_lu_solve) within 1e-12 relative, on matrices
//   shaped like the method's (I / (h gamma) - J, J random), for 1, 2, 8 partitions and as many as
//   the levels; its rounds and entries are those zoneode-solve-partitions prints;
// - the implicit method (Rodas3) with it takes the serial method's accepted and rejected steps on
//   every zone and agrees within 1e-3 x rtol (the implicit validation rule);
// - a planted fault (one forming operation dropped) breaks the first check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "codegen_networks.hpp"
#include "integrators/implicit.hpp"
#include "integrators/implicit_structure.hpp"
#include "integrators/method_data.hpp"
#include "integrators/partitioned_inverse.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "team_testing.hpp"

namespace zoneode {
namespace {

// The largest relative difference between the partitioned inverse's solve and the serial LU's,
// over `trials` random matrices M = d I - J (J's entries uniform in [-1, 1], d = 4 x J's largest
// row sum, as 1/(h gamma) dominates in a stiff step) and right-hand sides.
double worst_solve_difference(const ImplicitStructure& structure, const PartitionedInverse& inverse, int trials) {
  const ImplicitView view = structure.view();
  const SparseLuView lu = structure.lu_view();
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  double worst = 0.0;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<double> jacobian(structure.entry_position.size()), b(lu.n), row_sum(lu.n, 0.0);
    for (std::size_t e = 0; e < jacobian.size(); ++e) {
      jacobian[e] = value(random);
      row_sum[structure.entry_row[e]] += std::fabs(jacobian[e]);
    }
    for (double& v : b) v = value(random);
    const double diagonal = 4.0 * *std::max_element(row_sum.begin(), row_sum.end());
    std::vector<double> matrix(lu.filled_count), work(lu.n), x_serial(lu.n), matrix2(lu.filled_count), x(lu.n);
    implicit::SparseLinearAlgebra<double*> serial{view, matrix.data(), work.data()};
    serial.factor(diagonal, jacobian.data());
    serial.solve(b.data(), x_serial.data());
    PartitionedInverseAlgebra partitioned(view, inverse, matrix2.data());
    partitioned.factor(diagonal, jacobian.data());
    partitioned.solve(b.data(), x.data());
    double scale = 0.0;
    for (const double v : x_serial) scale = std::max(scale, std::fabs(v));
    for (int i = 0; i < lu.n; ++i) worst = std::max(worst, std::fabs(x[i] - x_serial[i]) / scale);
    std::vector<double> in_place = b;  // x may be b
    partitioned.solve(in_place.data(), in_place.data());
    for (int i = 0; i < lu.n; ++i) worst = std::max(worst, std::fabs(in_place[i] - x[i]) / scale);
  }
  return worst;
}

std::vector<std::string> networks() {
  std::vector<std::string> names = codegen_network_names();
  names.push_back("s150");
  return names;
}
Network network_named(const std::string& name) {
  return name == "s150" ? generate_network(generator_preset("s150")) : codegen_network(name);
}

TEST(PartitionedInverse, SolvesAsTheSerialLuWithin1e12) {
  for (const std::string& name : networks()) {
    const CompactNetwork compact(network_named(name));
    const ImplicitStructure structure(compact);
    for (const int partitions : {1, 2, 8, 1000}) {
      const PartitionedInverse inverse(structure, partitions);
      const double worst = worst_solve_difference(structure, inverse, 4);
      std::printf("  %-8s %4d partitions (L %d of %d levels, U %d of %d): %6lld entries, forming %7lld multiply-adds, worst %.1e\n",
                  name.c_str(), partitions, inverse.partitions(0), inverse.levels(0), inverse.partitions(1),
                  inverse.levels(1), static_cast<long long>(inverse.entries()),
                  static_cast<long long>(inverse.forming_multiply_adds()), worst);
      EXPECT_LE(worst, 1e-12) << name << ", " << partitions << " partitions";
      EXPECT_LE(inverse.partitions(0), inverse.levels(0));
      if (partitions == 1000) {  // as many rounds as levels: W_t holds exactly the factors' entries
        EXPECT_EQ(inverse.partitions(0), inverse.levels(0));
        EXPECT_EQ(inverse.entries(), structure.filled_entries() - structure.species_count());
        EXPECT_EQ(inverse.forming_multiply_adds(), inverse.entries());
      }
    }
  }
}

// s150 with 8 partitions: the counts of kernels/EXPERIMENTS.md's table, which the first version of
// zoneode-solve-partitions made by a graph walk of its own (L 3,090 + U 3,953 entries; forming
// 10,019 + 11,349 multiply-adds beyond the first copy of each column, which this class counts as an
// operation too: + the factors' 2,338 + 2,309 entries). The tool now prints this class's counts.
TEST(PartitionedInverse, S150EightPartitionsHaveTheSizedEntries) {
  const CompactNetwork compact(generate_network(generator_preset("s150")));
  const ImplicitStructure structure(compact);
  const PartitionedInverse inverse(structure, 8);
  EXPECT_EQ(inverse.levels(0), 85);
  EXPECT_EQ(inverse.levels(1), 85);
  EXPECT_EQ(inverse.entries(), 3090 + 3953);
  EXPECT_EQ(inverse.forming_multiply_adds(), 10019 + 11349 + 2338 + 2309);
}

TEST(PartitionedInverse, ADroppedFormingOperationIsCaught) {
  const CompactNetwork compact(network_named("default"));
  const ImplicitStructure structure(compact);
  const PartitionedInverse faulty(structure, 8, PartitionedInverseFault::drop_entry);
  EXPECT_GT(worst_solve_difference(structure, faulty, 4), 1e-6);
}

// Rodas3 with the partitioned inverse's solves against the serial method, under the implicit rule.
TEST(PartitionedInverse, TheImplicitMethodWithItKeepsTheRule) {
  for (const std::string& name : networks()) {
    if (sanitized_build && name == "s150") continue;  // team_testing.hpp: the slow cases
    const Network raw = network_named(name);
    const CompactNetwork compact(raw);
    const MethodData data(IntegrationMethod::implicit, compact);
    const MethodNetwork& network = data.view();
    const ImplicitStructure structure(compact);
    const PartitionedInverse inverse(structure, 8);
    long steps = 0, rejected = 0;
    double worst_all = 0.0;
    for (const StepSchedule schedule : {StepSchedule::geometric, StepSchedule::adaptive}) {
      IntegratorSettings s;
      s.method = IntegrationMethod::implicit;
      s.schedule = schedule;
      s.start_time = 1e-10;
      s.end_time = name == "s16" ? 1e-4 : 1e-6;  // as test_implicit_codegen.cpp: rejected steps on every network
      s.dt_fraction = 0.05;
      s.rtol = 1e-6;
      s.atol = 1e-16;
      if (schedule == StepSchedule::adaptive) s.dt_initial = s.end_time;  // the whole burn: rejected first
      for (const TeamTestZone& zone : team_test_zones(raw, 3, 0.3, 4.0)) {
        std::vector<double> workspace(network.implicit.layout.total, NAN), Y_serial = zone.Y, Y = zone.Y;
        ZoneResult serial, other;
        implicit::integrate_zone(network, s, zone.T9, zone.rho, Y_serial.data(), workspace.data(), serial);
        std::vector<double> workspace2(network.implicit.layout.total, NAN);
        const ImplicitWorkspace<double*> work = implicit_workspace_at(network.implicit.layout, workspace2.data());
        PartitionedInverseAlgebra algebra(network.implicit, inverse, work.matrix);
        implicit::integrate_zone_with(network, s, zone.T9, zone.rho, Y.data(), workspace2.data(), other, algebra);
        ASSERT_EQ(serial.status, zone_ok) << name;
        EXPECT_EQ(other.status, serial.status) << name;
        EXPECT_EQ(other.steps, serial.steps) << name;
        EXPECT_EQ(other.rejected_steps, serial.rejected_steps) << name;
        steps += serial.steps;
        rejected += serial.rejected_steps;
        double worst = 0.0;
        for (std::size_t i = 0; i < Y.size(); ++i) {
          const double big = std::max(std::fabs(Y[i]), std::fabs(Y_serial[i]));
          if (big > s.atol) worst = std::max(worst, std::fabs(Y[i] - Y_serial[i]) / big);
        }
        EXPECT_LE(worst, 1e-3 * s.rtol) << name << " at T9 " << zone.T9;
        worst_all = std::max(worst_all, worst);
      }
    }
    std::printf("  %-8s 8 partitions: %ld steps, %ld rejected, the serial ones; worst %.1e relative (%.1e x rtol)\n",
                name.c_str(), steps, rejected, worst_all, worst_all / 1e-6);
    EXPECT_GT(steps, 30) << name;
    EXPECT_GT(rejected, 0) << name << ": no rejected step, the retry path is untested";
  }
}

}  // namespace
}  // namespace zoneode
