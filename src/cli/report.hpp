// What a run reports: the network at start-up, and at the end a human summary and the same
// numbers as JSON.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli/self_check.hpp"
#include "integrators/settings.hpp"  // zone_status_count
#include "io/provenance.hpp"
#include "network/compact.hpp"
#include "network/q_values.hpp"

namespace zoneode {

// One line of counts (species, reactions, sets, F+/F- terms); a per-species table when asked.
void print_network(const Network& network, const CompactNetwork& compact, bool per_species, std::ostream& out);
// The source's Q values (REACLIB headers, a network file's) against the masses' differences: the
// largest |difference| and the `rows` reactions that disagree most. Species without a mass take the
// shipped table's; where that has none, says so instead.
void print_q_values(Network header_network, QValueSource used, int rows, std::ostream& out);
// The implicit method's structure and counted work per zone-step (network info; the implicit ladder's
// floors): LU fill, the flops by part, values and indices moved.
void print_implicit_work(const CompactNetwork& compact, std::ostream& out);
std::string hex64(std::uint64_t value);

struct RunSummary {
  std::string deck;
  std::string network;
  std::string network_hash;          // hex
  int species = 0;
  int reactions = 0;
  std::int64_t rate_sets = 0;
  std::int64_t creation_terms = 0;
  std::int64_t destruction_terms = 0;
  std::int64_t zones = 0;
  Provenance provenance;             // what ran: the same as every state file of the run records
  std::string backend_notes;         // what the backend decided while integrating (Backend::notes), by rank; "" if nothing
  std::string hdf5_mode;             // "parallel" or "serial"
  std::int64_t outer_steps = 0;      // outer steps run (after a restart: those after it)
  std::int64_t first_outer_step = 1;
  std::int64_t steps = 0;            // accepted integrator steps over all zones and outer steps
  std::int64_t failed_zone_steps = 0;  // (zone, outer step) pairs that failed
  std::int64_t rejected_steps = 0;
  // Work over all zones and outer steps, as the method counts it (ZoneResult); the asymptotic
  // method does not count its flux evaluations (work_counted false: RHS reported as n/a).
  bool work_counted = false;
  std::int64_t rhs_evaluations = 0;
  std::int64_t jacobian_evaluations = 0;
  std::int64_t factorizations = 0;
  std::array<std::int64_t, zone_status_count> zones_by_status{};  // in the last outer step
  double setup_seconds = 0;          // deck, network and zone set-up (not in the figure of merit)
  double integrate_seconds = 0;      // the figure of merit's time: integration only (max over ranks)
  double transfer_seconds = 0;       // zones to and from the backend's memory (max over ranks)
  std::int64_t files_written = 0;
  double output_seconds = 0;         // writing state files (max over ranks of each file's write)
  double output_bytes = 0;           // zone data written
  double output_file_bytes = 0;      // the files' sizes (less than output_bytes when compressed)
  double output_stall_seconds = 0;   // the outer steps' wait for output: all of output_seconds unless overlapped
  bool output_overlapped = false;    // output.overlap in effect
  std::string output_storage;        // "contiguous", "chunks of N zones, gzip-4", ...
  double loop_seconds = 0;           // the outer steps and the state files, wall time (max over ranks)
  std::int64_t binding_mismatches = 0;  // ranks not on their GPU's NUMA node (decomposition/binding.hpp)
  double max_mass_drift = 0;
  double min_energy_rate = 0;        // [erg/(g s)] over zones
  double max_energy_rate = 0;
  std::string result_hash;           // FNV-1a over every zone's final Y, steps and status bits
  // Load balance: each rank's own integration time summed over outer steps [s], and its zones'
  // integrator steps (accepted + rejected), over the ranks.
  struct Spread {
    double min = 0, mean = 0, max = 0;
    double imbalance() const { return mean > 0 ? max / mean : 0.0; }
  };
  Spread integrate_seconds_per_rank;
  Spread integrator_steps_per_rank;
  std::string decomposition = "count";  // zones.decomposition
  std::int64_t zones_moved = 0;        // between ranks by the cost decomposition, over the run
  double rebalance_seconds = 0;        // re-cutting and moving zones (max over ranks; not in the figure of merit)
  std::int64_t stopped_after_outer_step = -1;  // stopped by a signal after this step; -1: ran to the end
  std::string checkpoint;              // the checkpoint written when stopped, "" for none
  // Physics caveats. Partition functions on: the nuclides of reverse rates taken as G = 1.
  bool partition_functions = false;
  std::vector<std::string> partition_untabulated;
  std::vector<std::string> partition_held;   // "na19 (T9 > 10)": G held above its row's last T9
  std::string partition_table;
  double partition_table_last_T9 = 0;              // [GK] the table's last T9
  std::int64_t partition_zones_beyond_table = 0;   // most zones above it in one outer step (G held there)
  double partition_hottest_T9 = 0;                 // [GK] the hottest such zone
  // physics.screening: weak, checked at each outer step's start and end: the most zones with a
  // reaction's H > 1 at one check, and the largest H seen (physics/screening.hpp).
  bool weak_screening = false;
  std::int64_t weak_screening_zones_above_1 = 0;
  double weak_screening_largest_h = 0;
  // Zones above T9 10 (every REACLIB fit held at T9 10 there, network/rates.hpp): the most at one
  // check, the hottest T9 seen, the network's rate sets, and those whose fits would rise or fall by
  // more than x10 between T9 10 and that T9 (how many; 6 named, those that rise most first).
  std::int64_t fit_range_zones_above = 0;
  double fit_range_max_T9 = 0;
  std::int64_t fit_range_sets_total = 0;
  std::int64_t fit_range_sets_rising = 0;
  std::int64_t fit_range_sets_falling = 0;
  std::vector<std::string> fit_range_sets;
  // The explicit methods (asymptotic, qss2): zones whose end state has reactions consuming a species
  // held at integrator.abundance_floor that release more than floor_release_share of the zone's own
  // energy rate (integrators/floor_release.hpp): the most at one outer step, the largest such rate
  // [erg/(g s)] and the largest ratio to its zone's rate.
  double abundance_floor = 0;                // [mol/g]
  std::int64_t floor_release_zones = 0;
  std::int64_t floor_release_sampled = 0;    // the zones checked at that outer step
  double floor_release_largest = 0;
  double floor_release_largest_share = 0;
  bool self_checked = false;           // validation.sample_zones > 0
  SelfCheckResult self_check;          // after the last outer step run

  std::int64_t failed_zones() const { return zones - zones_by_status[0]; }
  double write_bandwidth() const { return output_seconds > 0 ? output_bytes / output_seconds : 0.0; }
  double zone_steps_per_second() const { return integrate_seconds > 0 ? steps / integrate_seconds : 0.0; }
};

void print_summary(const RunSummary& summary, std::ostream& out);
// The summary's self-check line: "  self-check       max rel. error 3.1e-02 (zone 517, ...) ...\n".
std::string self_check_line(const SelfCheckResult& check);
std::string summary_json(const RunSummary& summary);
// The caveat lines of the physics options ("" when none): G = 1 nuclides, weak screening beyond H = 1.
std::string partition_untabulated_warning(const RunSummary& summary);
// "" or the line naming the nuclides whose G the table holds above a T9 (no high-temperature row).
std::string partition_held_warning(const RunSummary& summary);
std::string fit_range_warning(const RunSummary& summary);
// Zones above a partition table's last T9 (G held there), or "".
std::string partition_beyond_table_warning(const RunSummary& summary);
std::string weak_screening_warning(const RunSummary& summary);
// Zones whose energy rate counts reactions on species held at the abundance floor, or "".
std::string floor_release_warning(const RunSummary& summary);
inline constexpr double floor_release_share = 1e-3;  // of a zone's energy rate, above which it is said
inline constexpr std::int64_t floor_release_samples = 4096;  // zones of the run checked at each outer step, at most

}  // namespace zoneode
