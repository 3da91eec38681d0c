#include "cli/self_check.hpp"

#include <mpi.h>

#include <algorithm>
#include <cmath>

#include "integrators/implicit.hpp"

namespace zoneode {

namespace {

// Sums `values` over ranks, in place. Used where exactly one rank contributes each nonzero value
// (x + 0 = x exactly), so the result is that rank's value bit for bit.
void sum_over_ranks(const MpiContext& mpi, std::vector<double>& values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, mpi.comm());
}

// T9 and rho of every zone, on rank 0 (16 bytes per zone there); empty elsewhere.
void gather_conditions(const MpiContext& mpi, const ZoneBatch& batch, std::int64_t global_zones,
                       std::vector<double>& temperature, std::vector<double>& density) {
  const int count = static_cast<int>(batch.count);
  std::vector<int> counts(mpi.size()), offsets(mpi.size());
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, mpi.comm());
  for (int r = 1; r < mpi.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  if (mpi.root()) {
    temperature.resize(global_zones);
    density.resize(global_zones);
  }
  MPI_Gatherv(batch.temperature.data(), count, MPI_DOUBLE, temperature.data(), counts.data(), offsets.data(),
              MPI_DOUBLE, 0, mpi.comm());
  MPI_Gatherv(batch.density.data(), count, MPI_DOUBLE, density.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0,
              mpi.comm());
}

// A zone's status as a double that is never 0 (0: a rank that does not hold the zone).
double status_code(int status) { return static_cast<double>(status) + 1.0; }
const double ok_code = status_code(zone_ok);

// This rank's zone holding global index `zone`, or -1.
std::int64_t local_index(const ZoneBatch& batch, std::int64_t zone) {
  const std::int64_t local = zone - batch.first_global_index;
  return local >= 0 && local < batch.count ? local : -1;
}

}  // namespace

SelfCheck::SelfCheck(const MpiContext& mpi, const ValidationDeck& validation, const IntegratorSettings& production,
                     const Network& network, const CompactNetwork& compact, const ZoneBatch& batch,
                     std::int64_t global_zones)
    : mpi_(mpi), network_(network), compact_(compact) {
  const double start = MPI_Wtime();
  reference_settings_ = production;
  reference_settings_.method = IntegrationMethod::implicit;
  reference_settings_.schedule = StepSchedule::adaptive;
  reference_settings_.rtol = validation.sample_rtol;
  reference_settings_.atol = validation.sample_atol;
  reference_settings_.dt_initial = 0.0;
  reference_settings_.renormalize = false;  // the reference is the ODE's solution, not the rescaled one
  reference_settings_.max_steps = std::max<std::int64_t>(production.max_steps, 10000000);
  structure_ = std::make_unique<ImplicitStructure>(compact);

  std::vector<double> all_temperature, all_density;
  gather_conditions(mpi, batch, global_zones, all_temperature, all_density);
  if (mpi.root()) sampled_ = spread_zones(all_temperature, all_density, validation.sample_zones);
  std::int64_t sampled = static_cast<std::int64_t>(sampled_.size());
  MPI_Bcast(&sampled, 1, MPI_INT64_T, 0, mpi.comm());
  sampled_.resize(sampled);
  MPI_Bcast(sampled_.data(), static_cast<int>(sampled), MPI_INT64_T, 0, mpi.comm());

  // Every rank gets every sampled zone's initial state from the rank that holds it.
  const int n = batch.species_count;
  temperature_.assign(sampled, 0.0);
  density_.assign(sampled, 0.0);
  abundances_.assign(sampled * n, 0.0);
  for (std::int64_t k = 0; k < sampled; ++k) {
    const std::int64_t local = local_index(batch, sampled_[k]);
    if (local < 0) continue;
    temperature_[k] = batch.temperature[local];
    density_[k] = batch.density[local];
    std::copy(batch.zone_abundances(local), batch.zone_abundances(local) + n, abundances_.begin() + k * n);
  }
  sum_over_ranks(mpi, temperature_);
  sum_over_ranks(mpi, density_);
  sum_over_ranks(mpi, abundances_);
  reference_failed_.assign(sampled, 0);
  result_.zones = sampled;
  result_.rtol = reference_settings_.rtol;
  result_.atol = reference_settings_.atol;
  result_.seconds = mpi.max(MPI_Wtime() - start);
}

SelfCheck::~SelfCheck() = default;

const SelfCheckResult& SelfCheck::after_outer_step(const ZoneBatch& batch, double temperature_factor,
                                                   double density_factor) {
  const double start = MPI_Wtime();
  const std::int64_t sampled = static_cast<std::int64_t>(sampled_.size());
  const int n = network_.species_count();
  const MethodNetwork network{compact_.rate_view(), compact_.step_view(), structure_->view()};
  const IntegratorSettings& settings = reference_settings_;

  // This rank's share, round robin over sample order; results summed over ranks below.
  std::vector<double> reference(sampled * (n + 2), 0.0);  // Y, energy rate, status + 1 (0: not mine)
#pragma omp parallel
  {
    std::vector<double> workspace(structure_->workspace_doubles());
    const std::int64_t mine = (sampled - mpi_.rank() + mpi_.size() - 1) / mpi_.size();
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t j = 0; j < mine; ++j) {
      const std::int64_t k = mpi_.rank() + j * mpi_.size();
      double* Y = abundances_.data() + k * n;
      ZoneResult zone_result;
      implicit::integrate_zone(network, settings, temperature_[k], density_[k], Y, workspace.data(), zone_result);
      double* out = reference.data() + k * (n + 2);
      std::copy(Y, Y + n, out);
      out[n] = zone_result.energy_generation_rate;
      out[n + 1] = status_code(zone_result.status);
    }
  }
  // Every rank gets every reference state, and every production state of a sampled zone.
  sum_over_ranks(mpi_, reference);
  std::vector<double> production(sampled * (n + 2), 0.0);
  for (std::int64_t k = 0; k < sampled; ++k) {
    const std::int64_t local = local_index(batch, sampled_[k]);
    if (local < 0) continue;
    double* out = production.data() + k * (n + 2);
    std::copy(batch.zone_abundances(local), batch.zone_abundances(local) + n, out);
    out[n] = batch.results[local].energy_generation_rate;
    out[n + 1] = status_code(batch.results[local].status);
  }
  sum_over_ranks(mpi_, production);

  SelfCheckResult& r = result_;
  r.compared_zones = 0;
  r.max_relative_error = 0.0;
  r.worst_zone = -1;
  r.worst_species.clear();
  r.max_energy_rate_error = 0.0;
  r.energy_worst_zone = -1;
  r.production_failed.clear();
  r.reference_failed.clear();
  for (std::int64_t k = 0; k < sampled; ++k) {
    const double* ref = reference.data() + k * (n + 2);
    const double* prod = production.data() + k * (n + 2);
    std::copy(ref, ref + n, abundances_.begin() + k * n);  // every rank continues from the same state
    if (ref[n + 1] != ok_code) reference_failed_[k] = 1;
    temperature_[k] *= temperature_factor;
    density_[k] *= density_factor;
    if (prod[n + 1] != ok_code) r.production_failed.push_back(sampled_[k]);
    if (reference_failed_[k]) r.reference_failed.push_back(sampled_[k]);
    if (prod[n + 1] != ok_code || reference_failed_[k]) continue;
    ++r.compared_zones;
    for (int i = 0; i < n; ++i) {
      if (network_.species[i].A * ref[i] < self_check_significant_mass_fraction) continue;
      const double error = std::fabs(prod[i] - ref[i]) / ref[i];
      if (r.worst_zone < 0 || !(error <= r.max_relative_error)) {
        r.max_relative_error = std::isfinite(error) ? error : INFINITY;
        r.worst_zone = sampled_[k];
        r.worst_species = network_.species[i].name;
      }
    }
    const double energy_error =
        prod[n] == ref[n] ? 0.0 : std::fabs(prod[n] - ref[n]) / std::fabs(ref[n]);  // inf when ref is 0 and prod not
    if (r.energy_worst_zone < 0 || !(energy_error <= r.max_energy_rate_error)) {
      r.max_energy_rate_error = std::isfinite(energy_error) ? energy_error : INFINITY;
      r.energy_worst_zone = sampled_[k];
    }
  }
  r.seconds += mpi_.max(MPI_Wtime() - start);
  return r;
}

}  // namespace zoneode
