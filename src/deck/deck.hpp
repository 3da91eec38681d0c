// The YAML input deck: what to run, read into typed settings. inputs/README.md documents every key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/choices.hpp"
#include "decomposition/decomposition.hpp"
#include "integrators/settings.hpp"
#include "io/state_storage.hpp"
#include "network/generator.hpp"
#include "network/load.hpp"
#include "physics/physics_options.hpp"

namespace zoneode {

// How a zone field varies with the global zone index, so zones never depend on the decomposition.
enum class FieldProfileKind { constant, linear, log, random, log_random };
inline constexpr FieldProfileKind field_profile_kinds[] = {FieldProfileKind::constant, FieldProfileKind::linear,
                                                           FieldProfileKind::log, FieldProfileKind::random,
                                                           FieldProfileKind::log_random};
std::string_view field_profile_name(FieldProfileKind kind);  // its deck spelling: "log_random"

struct FieldProfile {
  FieldProfileKind kind = FieldProfileKind::constant;
  double value = 0.0;   // constant
  double min = 0.0;     // the others: range over the zones
  double max = 0.0;

  FieldProfile() = default;
  FieldProfile(FieldProfileKind kind, double value, double min, double max)
      : kind(kind), value(value), min(min), max(max) {}
  // By deck spelling; throws std::invalid_argument for a name that is no FieldProfileKind.
  FieldProfile(std::string_view kind_name, double value, double min, double max);
};

struct CompositionEntry {
  std::string species;
  double mass_fraction;
  std::string where;    // deck location, for errors found once the network is known
};

struct ZonesDeck {
  std::string from_file;      // T9, rho and abundances from an HDF5 file (instead of the fields below)
  std::string from_file_where;  // deck location of from_file, for errors found reading it
  std::int64_t count = 0;     // 0 with from_file: as many as the file holds
  std::string count_where;    // deck location of count ("file:line:col" or "--set ..."), for the memory check
  std::uint64_t seed = 0;
  FieldProfile temperature;   // T9 [GK]
  FieldProfile density;       // rho [g/cm^3]
  std::vector<CompositionEntry> composition;  // initial mass fractions
  Decomposition decomposition = Decomposition::cost;  // how zones are split among MPI ranks
  double mass_sum_tolerance = 0.1;  // zones from a file (from_file, --restart): |sum A*Y - 1| at most this
};

// Outer steps, as a hydro code calls its burner once per time step: each burns every zone over
// [integrator.start_time, integrator.end_time]; T9 and rho then follow a prescribed history.
struct StepsDeck {
  std::int64_t count = 1;
  double temperature_factor = 1.0;  // T9 <- T9 * factor after each step
  double density_factor = 1.0;      // rho <- rho * factor after each step
};

struct OutputDeck {
  std::string prefix;          // files PREFIX_stepNNNNNN.h5; "" writes no state files
  std::int64_t every = 1;      // write every k-th step; the last step is always written
  bool initial = false;        // also write step 0, the initial state
  // Write step k's file while step k+1 integrates (a writer thread per rank, one snapshot of the
  // rank's zones in flight: cli/run_output.cpp); false: the loop waits for every write.
  bool overlap = true;
  StateStorage storage;        // chunk_zones, compression
  std::string storage_where;   // deck location of chunk_zones, for the checks made once the network is known
  bool writes(std::int64_t step, std::int64_t last) const {
    if (prefix.empty()) return false;
    if (step == 0) return initial;
    return step % every == 0 || step == last;
  }
  std::string file(std::int64_t step) const;
  // A stopped run's checkpoint, PREFIX_checkpoint.h5 (README.md, "Time limits and signals").
  std::string checkpoint_file() const { return prefix + "_checkpoint.h5"; }
};

struct RunDeck {
  BackendKind backend = BackendKind::cpu;
  KernelVariant kernel = KernelVariant::final;  // the GPU kernel variant
  KernelTuning tuning;        // the variant's launch choices (kernel_config, kernel_placement, chunk_terms)
  int threads = 0;            // CPU backend: OpenMP threads; 0: OpenMP's default
  std::int64_t batch_zones = 0;  // GPU backend: zones per batch; 0: as many as device memory allows
  std::string summary;        // JSON summary file, "" for none
};

// The accuracy self-check (cli/self_check.hpp): sampled zones integrated alongside the run with the
// implicit method at a tight tolerance.
struct ValidationDeck {
  std::int64_t sample_zones = 0;  // 0: off
  double sample_rtol = 1e-10;     // the reference's relative tolerance
  double sample_atol = 1e-25;     // the reference's absolute tolerance [mol/g]
};

struct Deck {
  std::string file;
  NetworkSpec network;
  ZonesDeck zones;
  IntegratorSettings integrator;
  StepsDeck steps;
  OutputDeck output;
  RunDeck run;
  ValidationDeck validation;
  PhysicsOptions physics;     // screening, partition functions, self-heating, neutrino losses (all off)
  std::string resolved_yaml;  // every key with its value, defaults included: a deck that repeats the run
};

// What a deck is read for: the program needs its zones section; a library burner (include/zoneode)
// is handed zones by its caller, so there the section is checked when present and not required.
enum class DeckUse { program, burner };

// Reads and checks a deck; overrides are "section.key=value" strings that win over the file.
// Throws DeckError (file:line:column: key: expected ..., got ...).
Deck load_deck(const std::string& file, const std::vector<std::string>& overrides, DeckUse use = DeckUse::program);
// The same from deck text in memory; `name` stands for the file in errors ("" or a name without a
// folder: relative paths in the deck resolve against the working directory).
Deck load_deck_text(const std::string& text, const std::string& name, const std::vector<std::string>& overrides,
                    DeckUse use = DeckUse::program);

}  // namespace zoneode
