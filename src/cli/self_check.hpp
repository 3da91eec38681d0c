// The accuracy self-check (deck `validation.sample_zones`, inputs/README.md): a few zones of the
// run, spread over its temperature and density range, integrated alongside the run with the
// implicit method at a tight tolerance, and the production result measured against them.
//
// The sampled zones are a function of the global zone indices and the initial T9 and rho only (the
// rule of zoneode-validate: sorted by T9, then rho, then index; evenly spaced in that order), and
// each reference zone is integrated alone and serially, so the reported errors are bitwise the
// same for any number of ranks and threads and any decomposition. The reference starts from the
// run's initial state (after --restart: the restart file's state) and follows the same outer
// steps (same [start_time, end_time], same T9 and rho history).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "decomposition/mpi_context.hpp"
#include "deck/deck.hpp"
#include "integrators/implicit_structure.hpp"
#include "network/compact.hpp"
#include "network/network.hpp"
#include "zones/zone_batch.hpp"
#include "zones/zones.hpp"

namespace zoneode {

// A species counts in the error when its mass fraction in the reference is at least this
// (zoneode-validate's default `--significant`).
inline constexpr double self_check_significant_mass_fraction = 1e-8;

// The production state measured against the reference after one outer step.
struct SelfCheckResult {
  std::int64_t zones = 0;             // sampled
  double rtol = 0.0;                  // the reference's
  double atol = 0.0;                  // [mol/g] the reference's
  std::int64_t compared_zones = 0;    // sampled zones ok in both the production and the reference
  double max_relative_error = 0.0;    // over compared zones and significant species
  std::int64_t worst_zone = -1;       // global index; -1 when nothing was compared
  std::string worst_species;
  double max_energy_rate_error = 0.0;  // relative, of the energy generation rate (mean over the step)
  std::int64_t energy_worst_zone = -1;
  std::vector<std::int64_t> production_failed;  // sampled zones whose production status is not ok
  std::vector<std::int64_t> reference_failed;   // sampled zones whose reference failed (not compared)
  double seconds = 0.0;  // reference integrations and comparisons so far (slowest rank), not in the figure of merit
};

class SelfCheck {
 public:
  // Collective. `batch` holds this rank's zones in their initial state; `global_zones` is the
  // run's zone count.
  SelfCheck(const MpiContext& mpi, const ValidationDeck& validation, const IntegratorSettings& production,
            const Network& network, const CompactNetwork& compact, const ZoneBatch& batch,
            std::int64_t global_zones);
  ~SelfCheck();

  // Collective. After an outer step of the production run: integrates the reference zones over the
  // same step at their current T9 and rho (this rank's share, OpenMP threads over zones), applies
  // the T9 and rho factors, and compares the production's current state of the sampled zones with
  // the reference's.
  const SelfCheckResult& after_outer_step(const ZoneBatch& batch, double temperature_factor, double density_factor);
  const SelfCheckResult& result() const { return result_; }

 private:
  const MpiContext& mpi_;
  const Network& network_;
  const CompactNetwork& compact_;
  IntegratorSettings reference_settings_;
  std::unique_ptr<ImplicitStructure> structure_;
  std::vector<std::int64_t> sampled_;   // global zone indices, in sample order
  std::vector<double> temperature_;     // per sampled zone (every rank holds all; each integrates its share)
  std::vector<double> density_;
  std::vector<double> abundances_;      // [sample][species]
  std::vector<char> reference_failed_;  // sticky over outer steps
  SelfCheckResult result_;
};

}  // namespace zoneode
