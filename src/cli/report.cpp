#include "cli/report.hpp"

#include "common/errors.hpp"
#include "common/numbers.hpp"
#include "integrators/implicit_structure.hpp"
#include "integrators/implicit_work.hpp"
#include "network/work.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/errors.hpp"
#include "common/json.hpp"
#include "integrators/settings.hpp"
#include "zoneode_version.hpp"

namespace zoneode {

std::string hex64(std::uint64_t value) {
  char buffer[20];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

void print_network(const Network& network, const CompactNetwork& compact, bool per_species, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line,
                "network %s (hash %s): %d species, %d reactions, %lld rate sets, %lld F+ terms, %lld F- terms "
                "(%lld flux terms); compact: %.1f KiB rate block (once per zone), %.1f KiB step block (every step)\n",
                excerpt(network.name).c_str(), hex64(network_hash(network)).c_str(), network.species_count(),
                network.reaction_count(), static_cast<long long>(compact.set_count()),
                static_cast<long long>(compact.creation_terms()), static_cast<long long>(compact.destruction_terms()),
                static_cast<long long>(compact.flux_terms()), compact.rate_block_bytes() / 1024.0,
                compact.step_block_bytes() / 1024.0);
  out << line;
  if (!per_species) return;
  const StepWork work = count_step_work(compact);
  std::snprintf(line, sizeof line,
                "work per zone-step (geometric): %lld flops, %lld terms, %lld B on chip; per zone %lld B of device memory\n",
                static_cast<long long>(work.flops), static_cast<long long>(work.terms),
                static_cast<long long>(work.on_chip_bytes), static_cast<long long>(work.zone_hbm_bytes));
  out << line;
  out << "  species    Z    A   F+ terms  F- terms\n";
  for (int i = 0; i < network.species_count(); ++i) {
    std::snprintf(line, sizeof line, "  %-8s %3d  %3d  %8d  %8d\n", excerpt(network.species[i].name).c_str(),
                  network.species[i].Z, network.species[i].A,
                  compact.creation_offsets[i + 1] - compact.creation_offsets[i],
                  compact.destruction_offsets[i + 1] - compact.destruction_offsets[i]);
    out << line;
  }
}

void print_q_values(Network header_network, QValueSource used, int rows, std::ostream& out) {
  MassTable table;
  try {
    table = read_mass_table(default_mass_table_path());
    fill_missing_masses(header_network, table, header_network.name);
  } catch (const InputError& error) {
    out << "Q values: " << q_value_source_name(used) << "; no comparison with the masses: " << error.what() << "\n";
    return;
  }
  const std::vector<QValueDisagreement> rows_sorted = q_value_disagreements(header_network);
  const std::vector<QValueDisagreement>& table_rows = rows_sorted;
  double sum_squares = 0.0;
  for (const QValueDisagreement& row : table_rows) sum_squares += row.difference_MeV() * row.difference_MeV();
  // '#': a nuclide's mass is NUBASE's estimate from systematics (where the table gave it).
  auto estimated = [&](const Reaction& reaction) {
    bool any = false;
    for (const auto* side : {&reaction.reactants, &reaction.products})
      for (int i : *side) {
        const Species& species = header_network.species[i];
        const auto it = table.estimated.find({species.Z, species.A});
        const double* mass = table.find(species.Z, species.A);
        any = any || (it != table.estimated.end() && it->second && mass && *mass == species.mass_excess_MeV);
      }
    return any;
  };
  char line[256];
  std::snprintf(line, sizeof line,
                "Q values: %s (network.q_values); header - masses over %zu reactions: largest |difference| %.1f keV, "
                "rms %.1f keV\n",
                std::string(q_value_source_name(used)).c_str(), table_rows.size(),
                table_rows.empty() ? 0.0 : 1e3 * std::fabs(table_rows.front().difference_MeV()),
                table_rows.empty() ? 0.0 : 1e3 * std::sqrt(sum_squares / static_cast<double>(table_rows.size())));
  out << line;
  out << "  reaction                                    Q header [MeV]   Q masses [MeV]   difference [keV]"
         "  (# a mass from systematics)\n";
  for (std::size_t k = 0; k < table_rows.size() && k < static_cast<std::size_t>(rows); ++k) {
    const QValueDisagreement& row = table_rows[k];
    const Reaction& reaction = header_network.reactions[row.reaction];
    std::snprintf(line, sizeof line, "  %-42s %15.6f  %15.6f%s %17.3f\n", excerpt(header_network.describe(reaction)).c_str(),
                  row.header_MeV, row.mass_MeV, estimated(reaction) ? "#" : " ", 1e3 * row.difference_MeV());
    out << line;
  }
}

void print_implicit_work(const CompactNetwork& compact, std::ostream& out) {
  const ImplicitStructure structure(compact);
  const ImplicitStepWork work = count_implicit_step_work(compact, structure);
  char line[512];
  std::snprintf(line, sizeof line,
                "implicit per zone-step (Rodas3, no captures): M %lld entries, %lld with fill, %lld LU updates; "
                "%lld flops (Jacobian %lld, LU %lld, solves %lld, f %lld), %lld B of values, %lld B of indices; "
                "workspace %lld B per zone\n",
                static_cast<long long>(structure.matrix_entries()), static_cast<long long>(structure.filled_entries()),
                static_cast<long long>(structure.factor_updates()), static_cast<long long>(work.flops),
                static_cast<long long>(work.jacobian_flops), static_cast<long long>(work.factor_flops),
                static_cast<long long>(work.solve_flops), static_cast<long long>(work.rhs_flops),
                static_cast<long long>(work.value_bytes), static_cast<long long>(work.index_bytes),
                static_cast<long long>(8 * structure.workspace_doubles()));
  out << line;
}

namespace {
// A JSON number, or the string "inf" (as zoneode-compare writes it) for an infinite error.
std::string json_number(double value) { return std::isfinite(value) ? format_number_17g(value) : "\"inf\""; }
}  // namespace

std::string self_check_line(const SelfCheckResult& c) {
  char line[512];
  std::string text = "  self-check       ";
  if (c.compared_zones > 0) {
    std::snprintf(line, sizeof line,
                  "max rel. error %.1e (zone %lld, %s), energy rate %.1e, against implicit rtol %.0e (%lld of %lld "
                  "zones compared)",
                  c.max_relative_error, static_cast<long long>(c.worst_zone), c.worst_species.c_str(),
                  c.max_energy_rate_error, c.rtol, static_cast<long long>(c.compared_zones),
                  static_cast<long long>(c.zones));
  } else {
    std::snprintf(line, sizeof line, "n/a: none of %lld sampled zones was ok in both the run and the reference",
                  static_cast<long long>(c.zones));
  }
  text += line;
  const auto list = [&](const char* what, const std::vector<std::int64_t>& zones) {
    if (zones.empty()) return;
    text += std::string("; ") + what + ":";
    for (std::size_t k = 0; k < zones.size() && k < 8; ++k) text += " " + std::to_string(zones[k]);
    if (zones.size() > 8) text += " (" + std::to_string(zones.size()) + " in all)";
  };
  list("failed in the run", c.production_failed);
  list("reference failed", c.reference_failed);
  std::snprintf(line, sizeof line, "; %.3f s\n", c.seconds);
  return text + line;
}

void print_summary(const RunSummary& s, std::ostream& out) {
  char line[256];
  out << "== zoneode summary ==\n";
  std::snprintf(line, sizeof line, "  zones            %lld (%lld failed in the last outer step)\n",
                static_cast<long long>(s.zones), static_cast<long long>(s.failed_zones()));
  out << line;
  for (int status = 1; status < zone_status_count; ++status) {
    if (s.zones_by_status[status] == 0) continue;
    std::snprintf(line, sizeof line, "    %-14s %lld\n", zone_status_name(status),
                  static_cast<long long>(s.zones_by_status[status]));
    out << line;
  }
  std::snprintf(line, sizeof line, "  network          %s: %d species, %d reactions, %lld F+ / %lld F- terms\n",
                excerpt(s.network).c_str(), s.species, s.reactions, static_cast<long long>(s.creation_terms),
                static_cast<long long>(s.destruction_terms));
  out << line;
  std::snprintf(line, sizeof line, "  backend          %s (kernel %s, %s), %d rank(s) x %d thread(s)\n",
                s.provenance.backend.c_str(), s.provenance.kernel_variant.c_str(), s.provenance.device.c_str(),
                s.provenance.ranks, s.provenance.threads);
  out << line;
  if (!s.backend_notes.empty()) out << "  backend chose    " << s.backend_notes << "\n";
  std::snprintf(line, sizeof line, "  outer steps      %lld (from step %lld), %lld failed zone-steps\n",
                static_cast<long long>(s.outer_steps), static_cast<long long>(s.first_outer_step),
                static_cast<long long>(s.failed_zone_steps));
  out << line;
  std::snprintf(line, sizeof line, "  steps            %lld accepted, %lld rejected (%.1f per zone)\n",
                static_cast<long long>(s.steps), static_cast<long long>(s.rejected_steps),
                s.zones ? static_cast<double>(s.steps) / s.zones : 0.0);
  out << line;
  if (s.work_counted) {
    std::snprintf(line, sizeof line, "  work             %lld RHS, %lld Jacobian evaluations, %lld LU factorisations\n",
                  static_cast<long long>(s.rhs_evaluations), static_cast<long long>(s.jacobian_evaluations),
                  static_cast<long long>(s.factorizations));
  } else {
    std::snprintf(line, sizeof line,
                  "  work             RHS n/a (not counted by this method), %lld Jacobian evaluations, %lld LU "
                  "factorisations\n",
                  static_cast<long long>(s.jacobian_evaluations), static_cast<long long>(s.factorizations));
  }
  out << line;
  if (s.self_checked) out << self_check_line(s.self_check);
  std::snprintf(line, sizeof line, "  max mass drift   %.3e\n", s.max_mass_drift);
  out << line;
  std::snprintf(line, sizeof line, "  energy rate      %.4e .. %.4e erg/(g s)\n", s.min_energy_rate, s.max_energy_rate);
  out << line;
  std::snprintf(line, sizeof line, "  set-up time      %.3f s (not in the figure of merit)\n", s.setup_seconds);
  out << line;
  std::snprintf(line, sizeof line, "  integrate time   %.3f s (transfers %.3f s, not in the figure of merit)\n",
                s.integrate_seconds, s.transfer_seconds);
  out << line;
  std::snprintf(line, sizeof line, "  figure of merit  %.4e zone-steps/s (%.1f ns per zone-step, %.2f us per zone)\n",
                s.zone_steps_per_second(), s.steps ? 1e9 * s.integrate_seconds / s.steps : 0.0,
                s.zones ? 1e6 * s.integrate_seconds / s.zones : 0.0);
  out << line;
  std::snprintf(line, sizeof line,
                "  per rank         integrate %.3f / %.3f / %.3f s (min / mean / max), imbalance %.3f; %s decomposition\n",
                s.integrate_seconds_per_rank.min, s.integrate_seconds_per_rank.mean, s.integrate_seconds_per_rank.max,
                s.integrate_seconds_per_rank.imbalance(), s.decomposition.c_str());
  out << line;
  std::snprintf(line, sizeof line,
                "                   integrator steps %.0f / %.0f / %.0f, imbalance %.3f; %lld zone moves in %.3f s\n",
                s.integrator_steps_per_rank.min, s.integrator_steps_per_rank.mean, s.integrator_steps_per_rank.max,
                s.integrator_steps_per_rank.imbalance(), static_cast<long long>(s.zones_moved), s.rebalance_seconds);
  out << line;
  if (s.files_written > 0) {
    std::snprintf(line, sizeof line, "  output           %lld file(s), %.3e bytes in %.3f s: %.1f MB/s (%s HDF5, %s)\n",
                  static_cast<long long>(s.files_written), s.output_bytes, s.output_seconds, s.write_bandwidth() / 1e6,
                  s.hdf5_mode.c_str(), s.output_storage.c_str());
    out << line;
    std::snprintf(line, sizeof line,
                  "                   %.3e bytes on disk; %s: the outer steps waited %.3f s for output (loop %.3f s)\n",
                  s.output_file_bytes, s.output_overlapped ? "overlapped with the integration" : "not overlapped",
                  s.output_stall_seconds, s.loop_seconds);
    out << line;
  }
  out << "  result hash      " << s.result_hash << "\n";
  out << partition_untabulated_warning(s) << partition_held_warning(s) << weak_screening_warning(s)
      << fit_range_warning(s) << partition_beyond_table_warning(s) << floor_release_warning(s);
  if (s.stopped_after_outer_step >= 0) {
    out << "  stopped early    after outer step " << s.stopped_after_outer_step << " by a signal; checkpoint "
        << (s.checkpoint.empty() ? std::string("none (no output.prefix)") : s.checkpoint) << "\n";
  }
}

std::string partition_untabulated_warning(const RunSummary& s) {
  if (!s.partition_functions || s.partition_untabulated.empty()) return "";
  return "  warning          partition functions: G = 1 for " + std::to_string(s.partition_untabulated.size()) +
         " nuclide(s) of reverse rates untabulated in " + s.partition_table + ": " + comma_list(s.partition_untabulated) +
         " (physics.partition_missing: unity)\n";
}

std::string partition_held_warning(const RunSummary& s) {
  if (!s.partition_functions || s.partition_held.empty()) return "";
  return "  warning          partition functions: no high-temperature row for " + std::to_string(s.partition_held.size()) +
         " nuclide(s) of reverse rates in " + s.partition_table + ", G held at its last tabulated value above: " +
         comma_list(s.partition_held) + "\n";
}

std::string partition_beyond_table_warning(const RunSummary& s) {
  if (!s.partition_functions || s.partition_zones_beyond_table == 0) return "";
  char line[160];
  std::snprintf(line, sizeof line, "%lld zone(s) above T9 %.4g (up to T9 %.4g)",
                static_cast<long long>(s.partition_zones_beyond_table), s.partition_table_last_T9, s.partition_hottest_T9);
  return "  warning          partition functions beyond their table: " + std::string(line) + ", the last T9 of " +
         s.partition_table + "; every G held at its value there (extend the table to the burn's T9)\n";
}

std::string floor_release_warning(const RunSummary& s) {
  if (s.floor_release_zones == 0) return "";
  char share[64] = "";
  if (s.floor_release_largest_share > 0.0)
    std::snprintf(share, sizeof share, ", up to %.3g times the zone's energy rate", s.floor_release_largest_share);
  char line[704];
  std::snprintf(line, sizeof line,
                "  warning          energy from the abundance floor: in %lld of %lld zone(s) checked, reactions consuming "
                "species held at integrator.abundance_floor (%.3g mol/g) release up to %.3g erg/(g s)%s; the explicit "
                "update puts such a species back at the floor after every step while its reactions count in full, so "
                "their energy and products come from nothing (inputs/README.md, \"The abundance floor\"): the rate "
                "scales with the floor (lower integrator.abundance_floor) or use integrator.method: implicit\n",
                static_cast<long long>(s.floor_release_zones), static_cast<long long>(s.floor_release_sampled),
                s.abundance_floor, s.floor_release_largest, share);
  return line;
}

std::string fit_range_warning(const RunSummary& s) {
  if (s.fit_range_zones_above == 0) return "";
  char line[512];
  std::snprintf(line, sizeof line,
                "  warning          rates beyond their fits' range: %lld zone(s) above T9 10 (up to T9 %.4g); all %lld "
                "rate sets taken at T9 10 there (REACLIB fits end at 10; partition functions, screening and EOS at "
                "the zone's T9: inputs/README.md, \"Above T9 10\"); followed to T9 %.4g, %lld fit(s) would rise and "
                "%lld fall by more than x10",
                static_cast<long long>(s.fit_range_zones_above), s.fit_range_max_T9,
                static_cast<long long>(s.fit_range_sets_total), s.fit_range_max_T9,
                static_cast<long long>(s.fit_range_sets_rising), static_cast<long long>(s.fit_range_sets_falling));
  std::string text = line;
  if (!s.fit_range_sets.empty()) text += ": " + comma_list(s.fit_range_sets);
  if (s.fit_range_sets_rising + s.fit_range_sets_falling > static_cast<std::int64_t>(s.fit_range_sets.size()))
    text += ", ...";
  return text + "\n";
}

std::string weak_screening_warning(const RunSummary& s) {
  if (!s.weak_screening || s.weak_screening_zones_above_1 == 0) return "";
  char line[320];
  std::snprintf(line, sizeof line,
                "  warning          weak screening beyond its validity: H > 1 in %lld zone(s), largest H %.3g "
                "(Salpeter's H << 1 only; physics.screening: chugunov2007 covers strong coupling)\n",
                static_cast<long long>(s.weak_screening_zones_above_1), s.weak_screening_largest_h);
  return line;
}

std::string summary_json(const RunSummary& s) {
  std::ostringstream out;
  out << "{\n";
  out << "  \"zoneode_version\": " << json_string(ZONEODE_VERSION) << ",\n";
  out << "  \"git_commit\": " << json_string(ZONEODE_GIT_COMMIT) << ",\n";
  out << "  \"deck\": " << json_string(s.deck) << ",\n";
  out << "  \"network\": " << json_string(s.network) << ",\n";
  out << "  \"network_hash\": " << json_string(s.network_hash) << ",\n";
  out << "  \"species\": " << s.species << ",\n";
  out << "  \"reactions\": " << s.reactions << ",\n";
  out << "  \"rate_sets\": " << s.rate_sets << ",\n";
  out << "  \"creation_terms\": " << s.creation_terms << ",\n";
  out << "  \"destruction_terms\": " << s.destruction_terms << ",\n";
  out << "  \"flux_terms\": " << s.creation_terms + s.destruction_terms << ",\n";
  out << "  \"zones\": " << s.zones << ",\n";
  out << "  \"failed_zones\": " << s.failed_zones() << ",\n";
  out << "  \"zones_by_status\": {";
  for (int status = 0; status < zone_status_count; ++status) {
    out << (status ? ", " : "") << json_string(zone_status_name(status)) << ": " << s.zones_by_status[status];
  }
  out << "},\n";
  out << "  \"backend\": " << json_string(s.provenance.backend) << ",\n";
  out << "  \"kernel_variant\": " << json_string(s.provenance.kernel_variant) << ",\n";
  out << "  \"device\": " << json_string(s.provenance.device) << ",\n";
  if (!s.backend_notes.empty()) out << "  \"backend_notes\": " << json_string(s.backend_notes) << ",\n";
  out << "  \"ranks\": " << s.provenance.ranks << ",\n";
  out << "  \"threads\": " << s.provenance.threads << ",\n";
  out << "  \"hdf5\": " << json_string(s.hdf5_mode) << ",\n";
  out << "  \"outer_steps\": " << s.outer_steps << ",\n";
  out << "  \"first_outer_step\": " << s.first_outer_step << ",\n";
  out << "  \"failed_zone_steps\": " << s.failed_zone_steps << ",\n";
  out << "  \"steps\": " << s.steps << ",\n";
  out << "  \"rejected_steps\": " << s.rejected_steps << ",\n";
  out << "  \"rhs_evaluations\": " << (s.work_counted ? std::to_string(s.rhs_evaluations) : "null") << ",\n";
  out << "  \"jacobian_evaluations\": " << s.jacobian_evaluations << ",\n";
  out << "  \"factorizations\": " << s.factorizations << ",\n";
  out << "  \"setup_seconds\": " << format_number_17g(s.setup_seconds) << ",\n";
  out << "  \"integrate_seconds\": " << format_number_17g(s.integrate_seconds) << ",\n";
  out << "  \"transfer_seconds\": " << format_number_17g(s.transfer_seconds) << ",\n";
  out << "  \"zone_steps_per_second\": " << format_number_17g(s.zone_steps_per_second()) << ",\n";
  out << "  \"us_per_zone\": " << format_number_17g(s.zones ? 1e6 * s.integrate_seconds / s.zones : 0.0) << ",\n";
  out << "  \"ns_per_zone_step\": " << format_number_17g(s.steps ? 1e9 * s.integrate_seconds / s.steps : 0.0) << ",\n";
  const auto spread = [&](const char* key, const RunSummary::Spread& v) {
    out << "  " << json_string(key) << ": {\"min\": " << format_number_17g(v.min) << ", \"mean\": "
        << format_number_17g(v.mean) << ", \"max\": " << format_number_17g(v.max)
        << ", \"imbalance\": " << format_number_17g(v.imbalance()) << "},\n";
  };
  spread("integrate_seconds_per_rank", s.integrate_seconds_per_rank);
  spread("integrator_steps_per_rank", s.integrator_steps_per_rank);
  out << "  \"decomposition\": " << json_string(s.decomposition) << ",\n";
  out << "  \"zones_moved\": " << s.zones_moved << ",\n";
  out << "  \"rebalance_seconds\": " << format_number_17g(s.rebalance_seconds) << ",\n";
  out << "  \"stopped_early\": " << (s.stopped_after_outer_step >= 0 ? "true" : "false") << ",\n";
  out << "  \"checkpoint\": " << json_string(s.checkpoint) << ",\n";
  out << "  \"files_written\": " << s.files_written << ",\n";
  out << "  \"output_seconds\": " << format_number_17g(s.output_seconds) << ",\n";
  out << "  \"output_bytes\": " << format_number_17g(s.output_bytes) << ",\n";
  out << "  \"write_bandwidth_bytes_per_second\": " << format_number_17g(s.write_bandwidth()) << ",\n";
  out << "  \"output_file_bytes\": " << format_number_17g(s.output_file_bytes) << ",\n";
  out << "  \"output_stall_seconds\": " << format_number_17g(s.output_stall_seconds) << ",\n";
  out << "  \"output_overlapped\": " << (s.output_overlapped ? "true" : "false") << ",\n";
  out << "  \"output_storage\": " << json_string(s.output_storage) << ",\n";
  out << "  \"loop_seconds\": " << format_number_17g(s.loop_seconds) << ",\n";
  out << "  \"binding_mismatches\": " << s.binding_mismatches << ",\n";
  out << "  \"max_mass_drift\": " << format_number_17g(s.max_mass_drift) << ",\n";
  out << "  \"min_energy_generation_rate\": " << format_number_17g(s.min_energy_rate) << ",\n";
  out << "  \"max_energy_generation_rate\": " << format_number_17g(s.max_energy_rate) << ",\n";
  // Present only with the option on: other runs' summaries keep their keys.
  if (s.partition_functions) {
    out << "  \"partition_untabulated\": [";
    for (std::size_t k = 0; k < s.partition_untabulated.size(); ++k)
      out << (k ? ", " : "") << json_string(s.partition_untabulated[k]);
    out << "],\n";
    out << "  \"partition_held\": [";
    for (std::size_t k = 0; k < s.partition_held.size(); ++k) out << (k ? ", " : "") << json_string(s.partition_held[k]);
    out << "],\n";
  }
  if (s.weak_screening) {
    out << "  \"weak_screening\": {\"zones_h_above_1\": " << s.weak_screening_zones_above_1
        << ", \"largest_h\": " << format_number_17g(s.weak_screening_largest_h) << "},\n";
  }
  if (s.partition_zones_beyond_table > 0)  // present only then, as rates_beyond_fit
    out << "  \"partition_beyond_table\": {\"zones\": " << s.partition_zones_beyond_table
        << ", \"table_last_T9\": " << json_number(s.partition_table_last_T9)
        << ", \"hottest_T9\": " << json_number(s.partition_hottest_T9) << "},\n";
  if (s.floor_release_zones > 0)  // present only then
    out << "  \"floor_release\": {\"zones\": " << s.floor_release_zones << ", \"zones_checked\": " << s.floor_release_sampled
        << ", \"abundance_floor\": " << json_number(s.abundance_floor) << ", \"largest_erg_per_g_s\": "
        << json_number(s.floor_release_largest) << ", \"largest_share\": " << json_number(s.floor_release_largest_share)
        << "},\n";
  if (s.fit_range_zones_above > 0) {  // present only above T9 10: other runs' summaries keep their keys
    out << "  \"rates_beyond_fit\": {\"zones_above_T9_10\": " << s.fit_range_zones_above
        << ", \"max_T9\": " << format_number_17g(s.fit_range_max_T9) << ", \"rate_sets\": " << s.fit_range_sets_total
        << ", \"sets_rising_over_x10\": " << s.fit_range_sets_rising
        << ", \"sets_falling_over_x10\": " << s.fit_range_sets_falling << ", \"sets\": [";
    for (std::size_t k = 0; k < s.fit_range_sets.size(); ++k) out << (k ? ", " : "") << json_string(s.fit_range_sets[k]);
    out << "]},\n";
  }
  if (s.self_checked) {
    const SelfCheckResult& c = s.self_check;
    const auto zones = [](const std::vector<std::int64_t>& list) {
      std::string text = "[";
      for (std::size_t k = 0; k < list.size(); ++k) text += (k ? ", " : "") + std::to_string(list[k]);
      return text + "]";
    };
    const bool compared = c.compared_zones > 0;
    out << "  \"self_check\": {\"zones\": " << c.zones << ", \"compared_zones\": " << c.compared_zones
        << ", \"rtol\": " << format_number_17g(c.rtol) << ", \"atol\": " << format_number_17g(c.atol)
        << ", \"max_relative_error\": " << (compared ? json_number(c.max_relative_error) : "null")
        << ", \"worst_zone\": " << c.worst_zone << ", \"worst_species\": " << json_string(c.worst_species)
        << ", \"energy_rate_error\": " << (compared ? json_number(c.max_energy_rate_error) : "null")
        << ", \"energy_worst_zone\": " << c.energy_worst_zone
        << ", \"production_failed_zones\": " << zones(c.production_failed)
        << ", \"reference_failed_zones\": " << zones(c.reference_failed)
        << ", \"seconds\": " << format_number_17g(c.seconds) << "},\n";
  } else {
    out << "  \"self_check\": null,\n";
  }
  out << "  \"result_hash\": " << json_string(s.result_hash) << "\n";
  out << "}\n";
  return out.str();
}

}  // namespace zoneode
