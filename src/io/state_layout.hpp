// The state-file layout (one HDF5 file per written outer step), in one place: the writer, the
// readers, zoneode-compare and the tests name datasets and attributes only through this table.
// README.md's output table and validation/README.md describe the same layout.
#pragma once

#include <string_view>

namespace zoneode::state_layout {

// Version 2 renamed /steps, `step` and `wall_seconds` (old_name below); version 3 added
// /time_reached. Files of versions 1 and 2 are read.
inline constexpr int format_version = 3;

enum class ElementType { float64, int64, int32, string };

// How a dataset's shape follows the run: [zones], [zones][species] or [species].
enum class Shape { per_zone, per_zone_species, per_species };

struct Dataset {
  const char* name;      // path without the leading '/'
  const char* old_name;  // the version-1 name, read as this one; nullptr when unchanged
  ElementType type;
  Shape shape;
  bool compared;  // by zoneode-compare
  const char* meaning;
  int since_version = 1;  // the format_version that added it: older files lack it
};

struct Attribute {  // of the root group; scalars
  const char* name;
  const char* old_name;
  ElementType type;
  bool compared;
  const char* meaning;
};

inline constexpr Dataset abundances{"abundances", nullptr, ElementType::float64, Shape::per_zone_species, true,
                                    "Y [mol/g] after the step (X = A Y)"};
inline constexpr Dataset temperature{"temperature", nullptr, ElementType::float64, Shape::per_zone, true,
                                     "T9 [GK] at the end of the step"};
inline constexpr Dataset density{"density", nullptr, ElementType::float64, Shape::per_zone, true,
                                 "rho [g/cm^3] at the end of the step"};
inline constexpr Dataset energy_generation_rate{"energy_generation_rate", nullptr, ElementType::float64,
                                                Shape::per_zone, true, "mean over the step [erg/(g s)]"};
inline constexpr Dataset integrator_steps{"integrator_steps", "steps", ElementType::int64, Shape::per_zone, true,
                                          "accepted integrator steps in the outer step"};
inline constexpr Dataset status{"status", nullptr, ElementType::int32, Shape::per_zone, true,
                                "zone status (0 ok; inputs/README.md)"};
inline constexpr Dataset time_reached{"time_reached", nullptr, ElementType::float64, Shape::per_zone, true,
                                      "integrator time [s] of the zone's state: end_time, or where it failed", 3};
inline constexpr Dataset species_name{"species/name", nullptr, ElementType::string, Shape::per_species, true,
                                      "species names, in network order"};
inline constexpr Dataset species_Z{"species/Z", nullptr, ElementType::int32, Shape::per_species, true, "proton numbers"};
inline constexpr Dataset species_A{"species/A", nullptr, ElementType::int32, Shape::per_species, true, "mass numbers"};

inline constexpr const char* species_group = "species";
inline constexpr Dataset zone_datasets[] = {abundances, temperature, density, energy_generation_rate, integrator_steps,
                                            status, time_reached};
inline constexpr Dataset species_datasets[] = {species_name, species_Z, species_A};

inline constexpr Attribute time{"time", nullptr, ElementType::float64, true, "simulation time [s] at the end of the step"};
inline constexpr Attribute outer_step{"outer_step", "step", ElementType::int64, true, "outer step (0: the initial state)"};
inline constexpr Attribute network_hash{"network_hash", nullptr, ElementType::string, true, "hash of the network"};
inline constexpr Attribute version{"format_version", nullptr, ElementType::int32, false, "this layout's version"};
// Provenance: written, never compared.
inline constexpr Attribute deck{"deck", nullptr, ElementType::string, false, "the resolved deck"};
inline constexpr Attribute zoneode_version{"zoneode_version", nullptr, ElementType::string, false, "program version"};
inline constexpr Attribute git_commit{"git_commit", nullptr, ElementType::string, false, "commit built"};
inline constexpr Attribute compiler{"compiler", nullptr, ElementType::string, false, "compiler used"};
inline constexpr Attribute backend{"backend", nullptr, ElementType::string, false, "integration backend"};
inline constexpr Attribute kernel_variant{"kernel_variant", nullptr, ElementType::string, false, "backend kernel"};
inline constexpr Attribute device{"device", nullptr, ElementType::string, false, "rank 0's device (GPU name and PCI bus id, or host)"};
inline constexpr Attribute launch{"launch", nullptr, ElementType::string, false, "rank 0's threads or launch geometry and placement"};
inline constexpr Attribute hdf5{"hdf5", nullptr, ElementType::string, false, "HDF5 write mode and version"};
inline constexpr Attribute ranks{"ranks", nullptr, ElementType::int32, false, "MPI ranks"};
inline constexpr Attribute threads{"threads", nullptr, ElementType::int32, false, "threads per rank"};
inline constexpr Attribute integrate_seconds{"integrate_seconds", "wall_seconds", ElementType::float64, false,
                                             "integration time so far [s], max over ranks"};

inline constexpr Attribute checkpoint{"checkpoint", nullptr, ElementType::int32, false,
                                      "1: a checkpoint of a run stopped by a signal (continue with --restart); 0: an output"};
// With physics.partition_functions only: the table read, "PATH: N bytes, content HASH" (the network
// hash covers its size and content; a --restart names the table when they changed, issue 40).
inline constexpr Attribute partition_table{"partition_table", nullptr, ElementType::string, false,
                                           "the partition-function table read: path, bytes and content hash"};

// The accuracy self-check (validation.sample_zones), written only by runs that do it; provenance.
inline constexpr Attribute self_check_max_relative_error{
    "self_check_max_relative_error", nullptr, ElementType::float64, false,
    "largest relative error of a significant abundance against the implicit reference (sampled zones ok in both)"};
inline constexpr Attribute self_check_energy_rate_error{"self_check_energy_rate_error", nullptr, ElementType::float64,
                                                        false, "largest relative error of the energy generation rate"};
inline constexpr Attribute self_check_worst_zone{"self_check_worst_zone", nullptr, ElementType::int64, false,
                                                 "global index of the zone with the largest abundance error (-1: none)"};
inline constexpr Attribute self_check_zones{"self_check_zones", nullptr, ElementType::int64, false, "zones sampled"};
inline constexpr Attribute self_check_compared_zones{"self_check_compared_zones", nullptr, ElementType::int64, false,
                                                     "sampled zones ok in both the run and the reference"};
inline constexpr Attribute self_check_rtol{"self_check_rtol", nullptr, ElementType::float64, false,
                                           "the implicit reference's rtol"};

inline constexpr Attribute attributes[] = {time, outer_step, network_hash, version, deck, zoneode_version, git_commit,
                                           compiler, backend, kernel_variant, device, launch, hdf5, ranks, threads, integrate_seconds,
                                           checkpoint, partition_table};
inline constexpr Attribute compared_attributes[] = {time, outer_step, network_hash};

// The current name of a dataset or attribute given by either its current or its version-1 name;
// `name` itself when it is neither.
inline std::string_view current_name(std::string_view name) {
  for (const auto& d : zone_datasets)
    if (d.old_name != nullptr && name == d.old_name) return d.name;
  for (const auto& a : attributes)
    if (a.old_name != nullptr && name == a.old_name) return a.name;
  return name;
}

}  // namespace zoneode::state_layout
