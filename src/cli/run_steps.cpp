// One outer step of a run, and what happens between outer steps: stop requests, the cost
// decomposition's rebalancing, progress lines.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "cli/run_steps.hpp"
#include "cli/signals.hpp"
#include "decomposition/rebalance.hpp"
#include "integrators/floor_release.hpp"
#include "network/fit_range.hpp"
#include "physics/screening.hpp"

namespace zoneode {

namespace {

// The pending state file written beside the integration: started on entry, waited for on leaving
// (an integration error included), so that no MPI call of this thread meets the writer's.
class OverlappedWriteWindow {
 public:
  explicit OverlappedWriteWindow(Run& run) : run_(run) { start_pending_write(run_); }
  ~OverlappedWriteWindow() { wait_pending_write(run_); }
  OverlappedWriteWindow(const OverlappedWriteWindow&) = delete;
  OverlappedWriteWindow& operator=(const OverlappedWriteWindow&) = delete;

 private:
  Run& run_;
};

// The per-zone statistics of one outer step, added to the run's totals.
void add_step_statistics(const ZoneBatch& batch, const MpiContext& mpi, RunSummary& summary, double& max_drift) {
  std::int64_t local_steps = 0, local_rejected = 0, local_failed = 0, local_rhs = 0, local_jacobians = 0, local_lu = 0;
  for (const ZoneResult& result : batch.results) {
    max_drift = std::fmax(max_drift, result.max_mass_drift);
    local_steps += result.steps;
    local_rejected += result.rejected_steps;
    local_failed += result.status != zone_ok ? 1 : 0;
    local_rhs += result.rhs_evaluations;
    local_jacobians += result.jacobian_evaluations;
    local_lu += result.factorizations;
  }
  summary.steps += mpi.sum(local_steps);
  summary.rejected_steps += mpi.sum(local_rejected);
  summary.failed_zone_steps += mpi.sum(local_failed);
  summary.rhs_evaluations += mpi.sum(local_rhs);
  summary.jacobian_evaluations += mpi.sum(local_jacobians);
  summary.factorizations += mpi.sum(local_lu);
}

// Re-cuts the blocks by the cost of the step just done (accepted plus rejected integrator steps
// per zone) and moves T9, rho and abundances to their new ranks. Zone results are not moved: the
// next step overwrites them. Returns the zones this rank received from others.
std::int64_t rebalance_by_cost(const MpiContext& mpi, std::vector<std::int64_t>& cuts, ZoneBatch& batch,
                               RunPlan& plan) {
  std::vector<std::int64_t> costs(batch.count);
  for (std::int64_t zone = 0; zone < batch.count; ++zone)
    costs[zone] = std::max<std::int64_t>(1, batch.results[zone].steps + batch.results[zone].rejected_steps);
  std::vector<std::int64_t> new_cuts = cost_balanced_cuts(mpi, costs, plan.block.first, plan.zones);
  if (new_cuts == cuts) return 0;
  const int species = batch.species_count;
  const std::int64_t per_zone = 2 + species;  // T9, rho, Y[species]
  std::vector<double> packed(static_cast<std::size_t>(batch.count * per_zone));
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    double* out = packed.data() + zone * per_zone;
    out[0] = batch.temperature[zone];
    out[1] = batch.density[zone];
    std::copy(batch.zone_abundances(zone), batch.zone_abundances(zone) + species, out + 2);
  }
  packed = move_zones(mpi, cuts, new_cuts, packed, per_zone);
  const ZoneBlock old_block = plan.block;
  plan.block = block_of(new_cuts, mpi.rank());
  cuts = std::move(new_cuts);
  batch.resize(plan.block.count, species);
  batch.first_global_index = plan.block.first;
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    const double* in = packed.data() + zone * per_zone;
    batch.temperature[zone] = in[0];
    batch.density[zone] = in[1];
    std::copy(in + 2, in + 2 + species, batch.zone_abundances(zone));
  }
  const std::int64_t kept = std::max<std::int64_t>(
      0, std::min(old_block.first + old_block.count, plan.block.first + plan.block.count) -
             std::max(old_block.first, plan.block.first));
  return plan.block.count - kept;
}

}  // namespace

void check_weak_screening(Run& run) {
  if (run.deck.physics.screening != ScreeningKind::weak) return;
  // H = Z1 Z2 x the exponent of unit charges, summed over a reaction's pairs (0, 1), (0+1, 2), ...
  // as reaction_screening_factor forms them: the network's largest such sum gives each zone's
  // largest H from one evaluation.
  double largest_charge_product = 0.0;
  for (const Reaction& reaction : run.network.reactions) {
    if (reaction.reactants.size() < 2) continue;
    double product = 0.0, z_compound = run.network.species[reaction.reactants[0]].Z;
    for (std::size_t k = 1; k < reaction.reactants.size(); ++k) {
      const double z = run.network.species[reaction.reactants[k]].Z;
      if (z_compound > 0.0 && z > 0.0) product += z_compound * z;
      z_compound += z;
    }
    largest_charge_product = std::max(largest_charge_product, product);
  }
  const ZoneBatch& batch = run.batch;
  std::int64_t above = 0;
  double largest = 0.0;
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    const double* Y = batch.zone_abundances(zone);
    ScreeningPlasma plasma;
    plasma.temperature = batch.temperature[zone] * 1e9;
    plasma.density = batch.density[zone];
    for (int i = 0; i < run.network.species_count(); ++i) {
      const double Z = run.network.species[i].Z;
      plasma.ye += Z * Y[i];
      plasma.z2_sum += Z * Z * Y[i];
    }
    const double H = largest_charge_product * weak_screening_exponent(1.0, 1.0, plasma);
    if (H > 1.0) ++above;
    largest = std::max(largest, H);
  }
  RunSummary& summary = run.summary;
  summary.weak_screening = true;
  summary.weak_screening_zones_above_1 = std::max(summary.weak_screening_zones_above_1, run.mpi.sum(above));
  summary.weak_screening_largest_h = std::max(summary.weak_screening_largest_h, run.mpi.max(largest));
}

void check_fit_range(Run& run) {
  const ZoneBatch& batch = run.batch;
  std::int64_t above = 0;
  double hottest = 0.0;
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    if (batch.temperature[zone] > reaclib_fit_max_T9) ++above;
    hottest = std::max(hottest, batch.temperature[zone]);
  }
  above = run.mpi.sum(above);
  hottest = run.mpi.max(hottest);
  RunSummary& summary = run.summary;
  // Partition functions beyond the table's last T9 (a custom table may end below the fits' 10 GK):
  // every G is held at its last tabulated value there, said in the summary (issue 40).
  if (run.deck.physics.partition_functions && !run.compact->pf_grid.empty()) {
    const double last_T9 = run.compact->pf_grid.back();
    std::int64_t beyond = 0;
    for (std::int64_t zone = 0; zone < batch.count; ++zone)
      if (batch.temperature[zone] > last_T9) ++beyond;
    beyond = run.mpi.sum(beyond);
    summary.partition_table_last_T9 = last_T9;
    summary.partition_zones_beyond_table = std::max(summary.partition_zones_beyond_table, beyond);
    if (beyond > 0) summary.partition_hottest_T9 = std::max(summary.partition_hottest_T9, hottest);
  }
  if (above == 0 || !(hottest > summary.fit_range_max_T9)) {
    summary.fit_range_zones_above = std::max(summary.fit_range_zones_above, above);
    return;
  }
  summary.fit_range_zones_above = std::max(summary.fit_range_zones_above, above);
  summary.fit_range_max_T9 = hottest;
  summary.fit_range_sets_total = rate_set_count(run.network);
  // Sets whose fit would move lambda by more than x10 between T9 10 and the hottest zone's T9.
  const std::vector<FitRangeSet> sets = rate_sets_beyond_fit(run.network, hottest, std::log(10.0));
  summary.fit_range_sets_rising = 0;
  for (const FitRangeSet& set : sets) summary.fit_range_sets_rising += set.log_change > 0.0 ? 1 : 0;
  summary.fit_range_sets_falling = static_cast<std::int64_t>(sets.size()) - summary.fit_range_sets_rising;
  summary.fit_range_sets.clear();  // the 6 that rise most (those that would stall a burn), else the falling
  for (std::size_t k = 0; k < sets.size() && k < 6; ++k) summary.fit_range_sets.push_back(sets[k].describe(run.network));
}

// The explicit methods' energy from species held at the abundance floor (integrators/floor_release.hpp),
// at each zone's state after the step, at the T9 and rho it was integrated at (self-heated: its final
// T9). At most floor_release_samples zones of the run, evenly by global index (the same zones for any
// ranks or batches): a zone whose species sit at the floor costs its reactions' fits evaluated directly
// (~50 us; io_benchmark.yaml's million zones would take tens of seconds an outer step). Zones that
// failed are left out (they are reported as failed).
void check_floor_release(Run& run) {
  const IntegratorSettings& settings = run.deck.integrator;
  if (settings.method != IntegrationMethod::asymptotic && settings.method != IntegrationMethod::qss2) return;
  const ZoneBatch& batch = run.batch;
  const RateView rates = run.compact->rate_view();
  const StepView net = run.compact->step_view();
  const double to_erg = constants::avogadro * constants::mev_to_erg;
  const std::int64_t stride = std::max<std::int64_t>(1, (run.plan.zones + floor_release_samples - 1) / floor_release_samples);
  std::int64_t zones = 0, sampled = 0;
  double largest = 0.0, largest_share = 0.0;
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    const ZoneResult& result = batch.results[zone];
    if ((batch.first_global_index + zone) % stride != 0 || result.status != zone_ok) continue;
    ++sampled;
    const double rate = std::fabs(to_erg * floor_sustained_release_rate(rates, net, batch.temperature[zone],
                                                                       batch.density[zone], batch.zone_abundances(zone),
                                                                       settings.abundance_floor));
    const double own = std::fabs(result.energy_generation_rate);
    if (!(rate > floor_release_share * own)) continue;
    ++zones;
    largest = std::fmax(largest, rate);
    if (own > 0.0) largest_share = std::fmax(largest_share, rate / own);  // a zone without a rate of its own: counted only
  }
  RunSummary& summary = run.summary;
  summary.abundance_floor = settings.abundance_floor;
  zones = run.mpi.sum(zones);
  sampled = run.mpi.sum(sampled);
  if (zones >= summary.floor_release_zones) {  // the outer step with the most: its sample size beside it
    summary.floor_release_zones = zones;
    summary.floor_release_sampled = sampled;
  }
  summary.floor_release_largest = std::fmax(summary.floor_release_largest, run.mpi.max(largest));
  summary.floor_release_largest_share = std::fmax(summary.floor_release_largest_share, run.mpi.max(largest_share));
}

void integrate_outer_step(Run& run) {
  const MpiContext& mpi = run.mpi;
  ZoneBatch& batch = run.batch;
  RunSummary& summary = run.summary;
  mpi.barrier();
  double integrate_seconds = 0.0, transfer_seconds = 0.0;
  collectively(mpi, exit_runtime_error, [&] {
    const OverlappedWriteWindow window(run);
    BatchSeconds seconds;
    integrate_in_batches(*run.backend, batch.span(0, batch.count), seconds);  // backends/backend.hpp
    integrate_seconds = seconds.integrate;
    transfer_seconds = seconds.transfer;
  });
  report_overlapped_write(run);
  check_floor_release(run);  // at the T9 and rho the step integrated at, before the history moves them
  // The figure of merit: integration only, the slowest rank's time.
  summary.integrate_seconds += mpi.max(integrate_seconds);
  run.rank_totals.integrate_seconds += integrate_seconds;
  for (const ZoneResult& result : batch.results)
    run.rank_totals.integrator_steps += result.steps + result.rejected_steps;
  summary.transfer_seconds += mpi.max(transfer_seconds);
  // The prescribed history: T9 and rho at the end of this step, the conditions of the next.
  const StepsDeck& history = run.deck.steps;
  for (std::int64_t zone = 0; zone < batch.count; ++zone) {
    batch.temperature[zone] *= history.temperature_factor;
    batch.density[zone] *= history.density_factor;
  }
  add_step_statistics(batch, mpi, summary, run.rank_totals.max_mass_drift);
  check_weak_screening(run);  // the state after the step: the next one's start
  check_fit_range(run);
  if (run.self_check) {
    collectively(mpi, exit_runtime_error, [&] {
      summary.self_check = run.self_check->after_outer_step(batch, history.temperature_factor, history.density_factor);
    });
  }
}

bool stop_agreed(Run& run, std::int64_t step) {
  const int stop_signal = run.mpi.max_int(stop_signal_received());  // the highest any rank received
  if (stop_signal == 0) return false;
  if (step == run.plan.last_step) {
    if (run.mpi.root())
      std::cerr << "zoneode: " << stop_signal_name(stop_signal) << " in the last outer step: the run is complete\n";
    return true;
  }
  run.stopped_after = step;
  run.summary.outer_steps = step - run.plan.first_step + 1;
  if (!run.deck.output.prefix.empty()) {
    write_step(run, step, StateFileKind::checkpoint);
  } else if (run.mpi.root()) {
    std::cerr << "zoneode: stopped by " << stop_signal_name(stop_signal) << " after outer step " << step
              << "; no checkpoint: the deck has no output.prefix\n";
  }
  return true;
}

void rebalance_zones(Run& run, std::int64_t step) {
  if (run.deck.zones.decomposition != Decomposition::cost || run.mpi.size() <= 1 || step >= run.plan.last_step) return;
  const double rebalance_start = MPI_Wtime();
  collectively(run.mpi, exit_runtime_error, [&] {
    run.rank_totals.zones_received += rebalance_by_cost(run.mpi, run.cuts, run.batch, run.plan);
  });
  run.summary.rebalance_seconds += run.mpi.max(MPI_Wtime() - rebalance_start);
}

void print_progress(Run& run, std::int64_t step) {
  const double now = MPI_Wtime();
  const RunPlan& plan = run.plan;
  if (run.options.quiet || step >= plan.last_step || now - run.last_progress < run.options.progress_seconds) return;
  run.last_progress = now;
  const std::int64_t done = step - plan.first_step + 1, left = plan.last_step - step;
  char line[256];
  std::snprintf(line, sizeof line,
                "progress: outer step %lld of %lld, zones done %lld of %lld, elapsed %.1f s, about %.1f s remaining\n",
                static_cast<long long>(step), static_cast<long long>(plan.last_step),
                static_cast<long long>(done * plan.zones),
                static_cast<long long>((plan.last_step - plan.first_step + 1) * plan.zones), now - run.start,
                (now - run.loop_start) / static_cast<double>(done) * static_cast<double>(left));
  run.out << line << std::flush;
}

}  // namespace zoneode
