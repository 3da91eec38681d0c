#include "deck/deck.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>
#include <vector>

#include "common/errors.hpp"
#include "common/numbers.hpp"
#include "deck/yaml_schema.hpp"

namespace zoneode {

namespace {

NetworkSpec read_network(DeckSection section) {
  NetworkSpec network;
  network.source = section.choice("source", NetworkSource::generator, network_sources, network_source_name);
  switch (network.source) {  // no default: the compiler names a source left out
    case NetworkSource::generator: {
      std::vector<std::string> presets;
      for (const GeneratorPreset& preset : generator_presets) presets.emplace_back(preset.name);
      network.preset = section.text("preset", "default", presets);
      const GeneratorSettings preset = generator_preset(network.preset);
      network.generator.species = static_cast<int>(section.integer("species", preset.species, 4, 4000));
      network.generator.flux_terms = static_cast<int>(section.integer("flux_terms", preset.flux_terms, 1, 1000000));
      network.generator.seed = static_cast<std::uint64_t>(section.integer("seed", static_cast<std::int64_t>(preset.seed), 0));
      network.generator.isotope_band = section.number("isotope_band", preset.isotope_band, between(0.25, 16.0));
      break;
    }
    case NetworkSource::reaclib:
      network.file = section.existing_file("file");
      if (section.has("nuclides") == section.has("nuclides_file"))
        section.fail("nuclides", "exactly one of nuclides (a list) and nuclides_file (a path)");
      if (section.has("nuclides")) network.nuclides = section.text_list("nuclides");
      else network.nuclides_file = section.existing_file("nuclides_file");
      network.q_values = section.choice("q_values", QValueSource::masses, q_value_sources, q_value_source_name);
      break;
    case NetworkSource::file:
      network.file = section.existing_file("file");
      network.q_values = section.choice("q_values", QValueSource::masses, q_value_sources, q_value_source_name);
      break;
    case NetworkSource::decay_chain:
      network.rates = section.number_list("rates", positive());
      // The members share A = 100 and step Z by one, so Z <= A bounds the chain.
      if (network.rates.size() > 100) section.fail("rates", "at most 100 decay rates");
      break;
    case NetworkSource::reversible_pair:
      network.rates = section.number_list("rates", positive());
      if (network.rates.size() != 2) section.fail("rates", "two rates [forward, reverse] in 1/s");
      break;
  }
  section.finish();
  return network;
}

FieldProfile read_field(DeckSection section, const std::string& unit_hint) {
  FieldProfile field;
  field.kind = section.choice("profile", std::nullopt, field_profile_kinds, field_profile_name);
  switch (field.kind) {  // no default: the compiler names a profile left out
    case FieldProfileKind::constant:
      field.value = section.number("value", std::nullopt, positive());
      break;
    case FieldProfileKind::linear:
    case FieldProfileKind::log:
    case FieldProfileKind::random:
    case FieldProfileKind::log_random:
      field.min = section.number("min", std::nullopt, positive());
      field.max = section.number("max", std::nullopt, positive());
      if (field.max < field.min) section.fail("max", "max >= min " + unit_hint);
      break;
  }
  section.finish();
  return field;
}

ZonesDeck read_zones(DeckSection section) {
  ZonesDeck zones;
  // Zones read from a file (from_file, or --restart) must each hold sum A*Y within this of 1 (X
  // summing to 1). Loose by default: without renormalize an outer step may drift by up to
  // max_mass_drift (1e-2), so a run's own files drift over steps; the check is for abundances in
  // other units (Y rho, X) or garbage. Read whatever the zones' source: --restart needs it too.
  zones.mass_sum_tolerance = section.number("mass_sum_tolerance", 0.1, {0.0, 1.0, true});
  if (section.has("from_file")) {
    zones.from_file_where = section.where("from_file");
    zones.from_file = section.existing_file("from_file");
    zones.count = section.integer("count", 0, 0);
    zones.decomposition = section.choice("decomposition", Decomposition::cost, decompositions, decomposition_name);
    for (const char* key : {"seed", "temperature", "density", "composition"}) {
      if (section.has(key)) section.fail(key, std::string("no ") + key + " when zones come from_file");
    }
    section.finish();
    return zones;
  }
  zones.count = section.integer("count", std::nullopt, 1);
  zones.count_where = section.where("count");
  zones.seed = static_cast<std::uint64_t>(section.integer("seed", 1, 0));
  zones.decomposition = section.choice("decomposition", Decomposition::cost, decompositions, decomposition_name);
  zones.temperature = read_field(section.section("temperature", true), "[GK]");
  zones.density = read_field(section.section("density", true), "[g/cm^3]");
  for (const auto& entry : section.named_numbers("composition", between(0.0, 1.0))) {
    zones.composition.push_back({entry.name, entry.value, entry.where});
  }
  double sum = 0.0;
  for (const auto& entry : zones.composition) sum += entry.mass_fraction;
  if (std::abs(sum - 1.0) > 1e-6) section.fail("composition", "mass fractions summing to 1 (within 1e-6)", format_number(sum));
  section.finish();
  return zones;
}

IntegratorSettings read_integrator(DeckSection section, DeckUse use) {
  IntegratorSettings s;
  s.method = section.choice("method", IntegrationMethod::asymptotic, integration_methods, integration_method_name);
  const std::string schedule = section.text("schedule", "geometric", {"geometric", "adaptive"});
  s.schedule = schedule == "geometric" ? StepSchedule::geometric : StepSchedule::adaptive;
  s.start_time = section.number("start_time", s.start_time, positive());
  // A burner's caller gives each burn its dt: end_time is then optional (and unused).
  if (use == DeckUse::program || section.has("end_time")) {
    s.end_time = section.number("end_time", std::nullopt, positive());
    // The start time as the deck reads it (std::to_string printed 1e-9 s as "0.000000 s").
    if (!(s.end_time > s.start_time))
      section.fail("end_time", "a time > start_time (" + format_number(s.start_time) + " s)", format_number(s.end_time));
  }
  // At least 1e-12: below about 2e-16, t + dt == t and a zone would never advance (and any
  // fraction under 1e-12 needs more than 1e12 steps per decade of time).
  s.dt_fraction = section.number("dt_fraction", s.dt_fraction, {1e-12, 10.0, false});
  // Read whatever the schedule, so that switching it with --set needs no other edit.
  s.rtol = section.number("rtol", s.rtol, {0.0, 1.0, true});
  // Abundances are at most 1 mol/g: an atol above that turns the error control off (1e300 ran).
  s.atol = section.number("atol", s.atol,
                          {0.0, 1.0, true, "an absolute error in mol/g; abundances are at most 1, so a larger "
                                           "atol turns the error control off"});
  s.dt_initial = section.number("dt_initial", s.dt_initial, at_least(0.0));
  s.max_dt_growth = section.number("max_dt_growth", s.max_dt_growth, {1.0, 100.0, true});
  s.max_steps = section.integer("max_steps", s.max_steps, 1);
  s.abundance_floor = section.number("abundance_floor", s.abundance_floor, {0.0, 1e-3, true});
  s.max_mass_drift = section.number("max_mass_drift", s.max_mass_drift, positive());
  s.renormalize = section.boolean("renormalize", s.renormalize);
  // bdf's step and order come from its error estimates (integrators/bdf.hpp): no fixed schedule.
  if (s.method == IntegrationMethod::bdf && s.schedule != StepSchedule::adaptive)
    section.fail("schedule", "adaptive with integrator.method bdf (it chooses its own steps and order)", "'geometric'");
  section.finish();
  return s;
}

StepsDeck read_steps(DeckSection section) {
  StepsDeck steps;
  // Bounded: the run checks every output name before any work, one per outer step.
  steps.count = section.integer("count", 1, 1, 1000000);
  steps.temperature_factor = section.number("temperature_factor", 1.0, positive());
  steps.density_factor = section.number("density_factor", 1.0, positive());
  section.finish();
  return steps;
}

OutputDeck read_output(DeckSection section) {
  OutputDeck output;
  // Relative to the working directory, like every output.
  output.prefix = section.text("prefix", "");
  output.every = section.integer("every", 1, 1);
  output.initial = section.boolean("initial", false);
  output.overlap = section.boolean("overlap", output.overlap);
  // At most 2^31 zones per chunk; a chunk must also stay under HDF5's 4 GiB (checked at set-up,
  // where the species count is known).
  output.storage.chunk_zones = section.integer("chunk_zones", 0, 0, std::int64_t{1} << 31);
  output.storage_where = section.where("chunk_zones");
  const std::string compression = section.text("compression", "none");
  if (!parse_compression(compression, output.storage))
    section.fail("compression", "none, gzip-N or shuffle+gzip-N with N in 1..9", "'" + excerpt(compression) + "'");
  if (output.storage.compressed() && !output.storage.chunked())
    section.fail("compression",
                 "none while output.chunk_zones is 0 (HDF5 compresses chunked datasets only: set output.chunk_zones, "
                 "e.g. 4096)",
                 "'" + excerpt(compression) + "'");
  section.finish();
  return output;
}

// run.kernel_config ("BLOCKxGROUP" or "BLOCKxGROUPxMIN_BLOCKS", "" for the variant's own),
// run.kernel_placement and run.chunk_terms: the sweeps' knobs, in the deck so that the resolved
// deck repeats the run. Whether a variant has the configuration is its own check (at launch).
KernelTuning read_kernel_tuning(DeckSection& section) {
  KernelTuning tuning;
  const std::string config = section.text("kernel_config", "");
  if (!config.empty()) {
    // Each field whole and in range (sscanf's %d wrapped 4294967552 to 256 and echoed it as given).
    const char* const expected =
        "BLOCKxGROUPxMIN_BLOCKS or BLOCKxGROUP, whole numbers (e.g. 256x8 or 128x0x6; block 32-1024, group and "
        "min_blocks 0-1024)";
    std::vector<std::int64_t> fields;
    for (std::size_t start = 0;;) {
      const std::size_t end = config.find('x', start);
      const std::optional<std::int64_t> field =
          parse_whole_integer(std::string_view(config).substr(start, end == std::string::npos ? end : end - start));
      fields.push_back(field && *field >= 0 && *field <= 1024 ? *field : -1);
      if (end == std::string::npos) break;
      start = end + 1;
    }
    const bool shape = fields.size() == 2 || fields.size() == 3;
    if (!shape || fields[0] < 32 || fields[1] < 0 || (fields.size() == 3 && fields[2] < 0))
      section.fail("kernel_config", expected, "'" + excerpt(config) + "'");
    tuning.block = static_cast<int>(fields[0]);
    tuning.group = static_cast<int>(fields[1]);
    tuning.min_blocks = fields.size() == 3 ? static_cast<int>(fields[2]) : 0;
    tuning.configured = true;
  }
  tuning.placement = section.choice("kernel_placement", KernelPlacement::automatic, kernel_placements,
                                    kernel_placement_name);
  tuning.chunk_terms = static_cast<int>(section.integer("chunk_terms", 0, 0, 1 << 20));
  tuning.bank_order = section.text("term_order", "banks", {"banks", "list"}) == "banks";
  // The implicit method's final: static (lds where it fits, else baseline: the same kernel for any
  // ranks, batches and machine) or calibrated (the fastest candidate on the first batch: timing
  // decides, so the bits may change with the zones per rank; kernels/README.md).
  tuning.calibrated = section.text("kernel_choice", "static", {"static", "calibrated"}) == "calibrated";
  return tuning;
}

RunDeck read_run(DeckSection section) {
  RunDeck run;
  run.backend = section.choice("backend", BackendKind::cpu, backend_kinds, backend_kind_name);
  run.kernel = section.choice("kernel", KernelVariant::final, kernel_variants, kernel_variant_name);
  run.tuning = read_kernel_tuning(section);
  run.threads = static_cast<int>(section.integer("threads", 0, 0, 4096));
  run.batch_zones = section.integer("batch_zones", 0, 0);
  run.summary = section.text("summary", "");
  section.finish();
  return run;
}

ValidationDeck read_validation(DeckSection section) {
  ValidationDeck validation;
  validation.sample_zones = section.integer("sample_zones", validation.sample_zones, 0, 100000);
  validation.sample_rtol = section.number("sample_rtol", validation.sample_rtol, {1e-14, 1e-3, false});
  validation.sample_atol = section.number("sample_atol", validation.sample_atol, positive());
  section.finish();
  return validation;
}

// Every key written out (the resolved deck says what was modelled), all off by default. Every
// option runs with every method on both backends (the GPU's in each kernel's physics
// instantiation: kernels/asymptotic/zone_team_physics.hpp, implicit_team.hpp), except
// self-heating with the explicit methods on the GPU: their team kernels do not carry T9 in the
// state as the CPU's methods do (kernels/README.md), so that is refused here, before any work.
PhysicsOptions read_physics(DeckSection section, IntegrationMethod method, BackendKind backend) {
  PhysicsOptions physics;
  physics.screening = section.choice("screening", ScreeningKind::none, screening_kinds, screening_kind_name);
  physics.partition_functions = section.boolean("partition_functions", false);
  // "" is the table shipped in inputs/data/partition_functions; a path must name a file.
  physics.partition_table = section.has("partition_table") ? section.existing_file("partition_table") : "";
  if (!physics.partition_table.empty() && !physics.partition_functions)
    section.fail("partition_table", "partition_functions: true with a partition_table");
  // Read (and written out) only with partition functions on: other decks resolve as before.
  if (physics.partition_functions)
    physics.partition_missing = section.choice("partition_missing", PartitionMissing::unity,
                                               partition_missing_choices, partition_missing_name);
  else if (section.has("partition_missing"))
    section.fail("partition_missing", "partition_functions: true with a partition_missing");
  physics.self_heating = section.boolean("self_heating", false);
  if (physics.self_heating && backend == BackendKind::gpu && method != IntegrationMethod::implicit &&
      method != IntegrationMethod::bdf)
    section.fail("self_heating",
                 "false with integrator.method " + std::string(integration_method_name(method)) +
                     " on run.backend gpu (its GPU kernels do not carry T9 in the state; use run.backend cpu or "
                     "integrator.method implicit or bdf)",
                 "true");
  // Read (and written out) only with self-heating on: other decks resolve as before.
  if (physics.self_heating)
    physics.eos = section.choice("eos", EosEvaluation::table, eos_evaluation_choices, eos_evaluation_name);
  else if (section.has("eos"))
    section.fail("eos", "self_heating: true with an eos");
  physics.neutrino_losses = section.boolean("neutrino_losses", false);
  section.finish();
  return physics;
}

}  // namespace

std::string OutputDeck::file(std::int64_t step) const {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "_step%06lld.h5", static_cast<long long>(step));
  return prefix + suffix;
}

namespace {

Deck read_deck(const LoadedDeck& loaded, const std::string& file, DeckUse use) {
  YAML::Node resolved(YAML::NodeType::Map);
  DeckSection root(loaded.root, "", loaded.source, resolved);
  Deck deck;
  deck.file = file;
  deck.network = read_network(root.section("network", true));
  // A burner is handed its zones by the caller: a zones section is checked when present, not required.
  if (use == DeckUse::program || root.has("zones")) deck.zones = read_zones(root.section("zones", true));
  deck.integrator = read_integrator(root.section("integrator", true), use);
  deck.steps = read_steps(root.section("steps"));
  deck.output = read_output(root.section("output"));
  deck.run = read_run(root.section("run"));
  deck.validation = read_validation(root.section("validation"));
  deck.physics = read_physics(root.section("physics"), deck.integrator.method, deck.run.backend);
  root.finish();
  deck.resolved_yaml = emit_yaml(resolved);
  return deck;
}

}  // namespace

Deck load_deck(const std::string& file, const std::vector<std::string>& overrides, DeckUse use) {
  return read_deck(load_deck_yaml(file, overrides), file, use);
}

Deck load_deck_text(const std::string& text, const std::string& name, const std::vector<std::string>& overrides,
                    DeckUse use) {
  return read_deck(load_deck_yaml_text(text, name, overrides), name, use);
}

}  // namespace zoneode
