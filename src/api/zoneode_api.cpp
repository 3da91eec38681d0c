// The C API of include/zoneode/zoneode.h over the program's own layers: the deck reader (src/deck),
// the network loader, and the Backend objects (src/backends: make_backend, prepare, upload,
// integrate, download), so that the library and the program integrate through one path.
// Every entry point catches everything: a C caller gets a code and a message, never an exception.
#include "zoneode/zoneode.h"

#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "common/errors.hpp"
#include "common/numbers.hpp"
#include "deck/deck.hpp"
#include "network/compact.hpp"
#include "network/load.hpp"
#include "physics/partition_table.hpp"
#include "physics/self_heating.hpp"
#include "zones/zones.hpp"
#include "zoneode_version.hpp"

#ifndef ZONEODE_DATA_DIR
#error "ZONEODE_DATA_DIR must name inputs/data in the source tree (CMake sets it)"
#endif
#ifndef ZONEODE_INSTALL_DATA_DIR
#error "ZONEODE_INSTALL_DATA_DIR must name the installed data folder (CMake sets it)"
#endif
#ifndef ZONEODE_LIBRARY_TO_DATA_DIR
#error "ZONEODE_LIBRARY_TO_DATA_DIR must name the data folder relative to the library's folder (CMake sets it)"
#endif

// The layout RESULT_DTYPE of python/zoneode and the Fortran module repeat.
static_assert(sizeof(zoneode_zone_result) == 96, "zoneode_zone_result: a change of layout needs a new API version");

struct zoneode_burner {
  zoneode::Deck deck;
  zoneode::Network network;
  std::unique_ptr<zoneode::CompactNetwork> compact;
  std::unique_ptr<zoneode::Backend> backend;
  zoneode::IntegratorSettings settings;  // the deck's; start and end time those of the last prepare
  std::string backend_description;
  std::vector<double> deck_abundances;       // zones.composition as Y; empty without a zones section
  std::vector<zoneode::ZoneResult> results;  // one batch's, reused between burns
};

namespace {

thread_local std::string last_error;

int fail(int code, std::string message) {
  last_error = std::move(message);
  return code;
}

// Runs `body`, turning every exception into a code and message (no exception crosses the C API).
template <typename Body>
int guarded(const char* function, Body&& body) {
  try {
    return body();
  } catch (const zoneode::InputError& error) {
    return fail(ZONEODE_ERROR_INPUT, error.what());
  } catch (const std::bad_alloc&) {
    return fail(ZONEODE_ERROR_OUT_OF_MEMORY, std::string(function) + ": out of memory");
  } catch (const std::invalid_argument& error) {
    // make_backend: a backend or kernel this build lacks; network loading: a spec it cannot make.
    return fail(ZONEODE_ERROR_UNSUPPORTED, std::string(function) + ": " + error.what());
  } catch (const std::exception& error) {
    return fail(ZONEODE_ERROR_RUNTIME, std::string(function) + ": " + error.what());
  } catch (...) {
    return fail(ZONEODE_ERROR_RUNTIME, std::string(function) + ": an unknown exception");
  }
}

int null_argument(const char* function, const char* argument) {
  return fail(ZONEODE_ERROR_NULL_ARGUMENT, std::string(function) + ": " + argument + " is NULL");
}

// The shipped data folder (zoneode_data_dir's order), where it holds the default partition table:
// the program's search (physics/partition_table.cpp) with the folder beside this library.
std::string find_data_dir() {
  Dl_info library{};
  std::string beside;
  if (dladdr(reinterpret_cast<void*>(&zoneode_data_dir), &library) != 0 && library.dli_fname != nullptr)
    beside = (std::filesystem::path(library.dli_fname).parent_path() / ZONEODE_LIBRARY_TO_DATA_DIR).string();
  // The mass table (q_values: masses, read inside load_network) is searched beside the library too.
  zoneode::set_shipped_data_beside(beside);
  return zoneode::find_shipped_data_folder(beside);
}

std::vector<std::string> override_list(const char* const* overrides, int count) {
  std::vector<std::string> list;
  for (int k = 0; k < count; ++k) list.emplace_back(overrides[k]);
  return list;
}

// The deck's network and what is made from it (the shipped partition table found from the prefix).
void read_input(zoneode_burner& burner, zoneode::Deck deck) {
  zoneode_data_dir();  // once per process: the data folder beside the library, for every shipped file
  burner.deck = std::move(deck);
  zoneode::PhysicsOptions& physics = burner.deck.physics;
  if (physics.partition_functions && physics.partition_table.empty()) {
    // The shipped table, found from the install prefix (physics.partition_table "" means it).
    const std::string data = zoneode_data_dir();
    const std::string table = zoneode::shipped_partition_table_name();
    if (data.empty())
      throw zoneode::InputError("physics.partition_functions: the shipped partition table (" + table.substr(1) +
                                ") is in no data folder: not in $ZONEODE_DATA_DIR, share/zoneode/data beside the "
                                "library, " ZONEODE_DATA_DIR " or " ZONEODE_INSTALL_DATA_DIR
                                "; set ZONEODE_DATA_DIR or physics.partition_table");
    physics.partition_table = data + table;
  }
  burner.network = zoneode::load_network(burner.deck.network);
  burner.compact = std::make_unique<zoneode::CompactNetwork>(burner.network, burner.deck.physics);
  const zoneode::ZonesDeck& zones = burner.deck.zones;
  if (!zones.composition.empty())  // checks its species against the network, as the program's zones do
    burner.deck_abundances = zoneode::ZoneBuilder(zones, burner.network).abundances();
}

// Runs `read` (the deck, the network and what is made from them): whatever it throws but memory is
// the input's fault, as the program reports it (exit 2; e.g. the REACLIB reader's runtime_errors).
template <typename Read>
void reading_input(Read&& read) {
  try {
    read();
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const zoneode::InputError&) {
    throw;
  } catch (const std::exception& error) {
    throw zoneode::InputError(error.what());
  }
}

// The burner from its deck: the network, the backend made and prepared.
template <typename ReadDeck>
zoneode_burner* make_burner(ReadDeck&& read_deck) {
  auto burner = std::make_unique<zoneode_burner>();
  reading_input([&] { read_input(*burner, read_deck()); });
  const zoneode::RunDeck& run = burner->deck.run;
  burner->settings = burner->deck.integrator;
  burner->settings.end_time = burner->settings.start_time;  // no burn yet: the first one sets its span
  // The CPU backend sets the calling thread's OpenMP thread count for run.threads (the program
  // wants that); a library leaves its caller's as it found it (the backend keeps its own count).
  const int caller_threads = omp_get_max_threads();
  burner->backend = zoneode::make_backend({burner->settings.method, run.backend, run.kernel},
                                          {run.threads, 0, run.batch_zones, run.tuning, 0});
  omp_set_num_threads(caller_threads);
  burner->backend->prepare(*burner->compact, burner->settings);
  const zoneode::BackendDescription described = burner->backend->describe();
  burner->backend_description = described.backend + ": " + described.launch + " on " + described.device +
                                (described.kernel_variant == "none" ? "" : ", kernel " + described.kernel_variant);
  return burner.release();
}

int create(const char* function, zoneode_burner** out, const char* const* overrides, int override_count,
           zoneode::Deck (*read)(const char*, const std::vector<std::string>&), const char* deck) {
  if (out == nullptr) return null_argument(function, "burner (the result's address)");
  *out = nullptr;
  if (deck == nullptr) return null_argument(function, "the deck");
  if (override_count < 0)
    return fail(ZONEODE_ERROR_INVALID_ARGUMENT,
                std::string(function) + ": override_count " + std::to_string(override_count) + ", expected >= 0");
  if (override_count > 0 && overrides == nullptr) return null_argument(function, "overrides (override_count > 0)");
  for (int k = 0; k < override_count; ++k)
    if (overrides[k] == nullptr) return null_argument(function, ("overrides[" + std::to_string(k) + "]").c_str());
  return guarded(function, [&] {
    *out = make_burner([&] { return read(deck, override_list(overrides, override_count)); });
    return ZONEODE_OK;
  });
}

int check_species(const char* function, const zoneode_burner* burner, int species) {
  if (burner == nullptr) return null_argument(function, "burner");
  if (species < 0 || species >= burner->network.species_count())
    return fail(ZONEODE_ERROR_INVALID_ARGUMENT, std::string(function) + ": species " + std::to_string(species) +
                                                    ", expected 0 to " +
                                                    std::to_string(burner->network.species_count() - 1));
  return ZONEODE_OK;
}

}  // namespace

extern "C" {

int zoneode_api_version(void) { return ZONEODE_API_VERSION; }

const char* zoneode_version(void) { return ZONEODE_VERSION " (commit " ZONEODE_GIT_COMMIT ")"; }

const char* zoneode_last_error(void) { return last_error.c_str(); }

const char* zoneode_zone_status_name(int status) { return zoneode::zone_status_name(status); }

const char* zoneode_data_dir(void) {
  static const std::string found = find_data_dir();  // once per process (thread-safe initialisation)
  return found.c_str();
}

int zoneode_burner_create_from_text(const char* deck_yaml, const char* const* overrides, int override_count,
                                    zoneode_burner** burner) {
  return create("zoneode_burner_create_from_text", burner, overrides, override_count,
                [](const char* text, const std::vector<std::string>& list) {
                  return zoneode::load_deck_text(text, "deck text", list, zoneode::DeckUse::burner);
                },
                deck_yaml);
}

int zoneode_burner_create_from_file(const char* deck_path, const char* const* overrides, int override_count,
                                    zoneode_burner** burner) {
  return create("zoneode_burner_create_from_file", burner, overrides, override_count,
                [](const char* path, const std::vector<std::string>& list) {
                  return zoneode::load_deck(path, list, zoneode::DeckUse::burner);
                },
                deck_path);
}

void zoneode_burner_destroy(zoneode_burner* burner) { delete burner; }

int zoneode_burner_species_count(const zoneode_burner* burner, int* species_count) {
  if (burner == nullptr) return null_argument("zoneode_burner_species_count", "burner");
  if (species_count == nullptr) return null_argument("zoneode_burner_species_count", "species_count");
  *species_count = burner->network.species_count();
  return ZONEODE_OK;
}

int zoneode_burner_species_name(const zoneode_burner* burner, int species, const char** name) {
  if (const int code = check_species("zoneode_burner_species_name", burner, species); code != ZONEODE_OK) return code;
  if (name == nullptr) return null_argument("zoneode_burner_species_name", "name");
  *name = burner->network.species[species].name.c_str();
  return ZONEODE_OK;
}

int zoneode_burner_species_nucleons(const zoneode_burner* burner, int species, int* mass_number, int* charge) {
  if (const int code = check_species("zoneode_burner_species_nucleons", burner, species); code != ZONEODE_OK)
    return code;
  if (mass_number == nullptr) return null_argument("zoneode_burner_species_nucleons", "mass_number");
  if (charge == nullptr) return null_argument("zoneode_burner_species_nucleons", "charge");
  *mass_number = burner->network.species[species].A;
  *charge = burner->network.species[species].Z;
  return ZONEODE_OK;
}

int zoneode_burner_species_index(const zoneode_burner* burner, const char* name, int* species) {
  if (burner == nullptr) return null_argument("zoneode_burner_species_index", "burner");
  if (name == nullptr) return null_argument("zoneode_burner_species_index", "name");
  if (species == nullptr) return null_argument("zoneode_burner_species_index", "species");
  for (int k = 0; k < burner->network.species_count(); ++k) {
    if (burner->network.species[k].name == name) {
      *species = k;
      return ZONEODE_OK;
    }
  }
  return fail(ZONEODE_ERROR_INVALID_ARGUMENT, "zoneode_burner_species_index: no species '" +
                                                  zoneode::printable(name) + "' in network " + burner->network.name);
}

int zoneode_burner_deck(const zoneode_burner* burner, const char** resolved_yaml) {
  if (burner == nullptr) return null_argument("zoneode_burner_deck", "burner");
  if (resolved_yaml == nullptr) return null_argument("zoneode_burner_deck", "resolved_yaml");
  *resolved_yaml = burner->deck.resolved_yaml.c_str();
  return ZONEODE_OK;
}

int zoneode_burner_backend(const zoneode_burner* burner, const char** description) {
  if (burner == nullptr) return null_argument("zoneode_burner_backend", "burner");
  if (description == nullptr) return null_argument("zoneode_burner_backend", "description");
  *description = burner->backend_description.c_str();
  return ZONEODE_OK;
}

int zoneode_burner_deck_abundances(const zoneode_burner* burner, int species_count, double* Y) {
  const char* function = "zoneode_burner_deck_abundances";
  if (burner == nullptr) return null_argument(function, "burner");
  if (Y == nullptr) return null_argument(function, "Y");
  if (species_count != burner->network.species_count())
    return fail(ZONEODE_ERROR_INVALID_ARGUMENT, std::string(function) + ": species_count " +
                                                    std::to_string(species_count) + ", expected the network's " +
                                                    std::to_string(burner->network.species_count()));
  if (burner->deck_abundances.empty())
    return fail(ZONEODE_ERROR_INPUT, std::string(function) + ": the deck (" + burner->deck.file +
                                         ") has no zones.composition (no zones section, or zones from a file)");
  std::copy(burner->deck_abundances.begin(), burner->deck_abundances.end(), Y);
  return ZONEODE_OK;
}

int zoneode_burn(zoneode_burner* burner, int64_t zone_count, int species_count, double dt, double* T9,
                 const double* rho, double* Y, zoneode_zone_result* results, int memory) {
  const char* function = "zoneode_burn";
  if (burner == nullptr) return null_argument(function, "burner");
  if (zone_count < 0)
    return fail(ZONEODE_ERROR_INVALID_ARGUMENT,
                std::string(function) + ": zone_count " + std::to_string(zone_count) + ", expected >= 0");
  const int species = burner->network.species_count();
  if (species_count != species)
    return fail(ZONEODE_ERROR_INVALID_ARGUMENT, std::string(function) + ": species_count " +
                                                    std::to_string(species_count) + ", expected the network's " +
                                                    std::to_string(species) + " (" + burner->network.name + ")");
  if (zone_count > std::numeric_limits<std::int64_t>::max() / species)
    return fail(ZONEODE_ERROR_INVALID_ARGUMENT, std::string(function) + ": zone_count " +
                                                    std::to_string(zone_count) + " x species_count overflows");
  const double start = burner->settings.start_time;
  const double end = start + dt;
  if (!(std::isfinite(dt) && dt > 0.0) || !(end > start) || !std::isfinite(end))
    return fail(ZONEODE_ERROR_INVALID_ARGUMENT,
                std::string(function) + ": dt " + zoneode::format_number(dt) +
                    ", expected a finite time > 0 [s] that moves integrator.start_time (" +
                    zoneode::format_number(start) + " s) forward");
  if (memory != ZONEODE_HOST_MEMORY && memory != ZONEODE_DEVICE_MEMORY)
    return fail(ZONEODE_ERROR_INVALID_ARGUMENT, std::string(function) + ": memory " + std::to_string(memory) +
                                                    ", expected ZONEODE_HOST_MEMORY (0) or ZONEODE_DEVICE_MEMORY (1)");
  const bool device_arrays = memory == ZONEODE_DEVICE_MEMORY;
  if (device_arrays && !burner->backend->takes_device_arrays())
    return fail(ZONEODE_ERROR_UNSUPPORTED, std::string(function) + ": ZONEODE_DEVICE_MEMORY: the " +
                                               burner->backend->describe().backend +
                                               " backend integrates host arrays only (" + burner->backend_description +
                                               "); pass host arrays, or make the burner with run.backend: gpu");
  if (zone_count == 0) return ZONEODE_OK;
  if (T9 == nullptr) return null_argument(function, "T9");
  if (rho == nullptr) return null_argument(function, "rho");
  if (Y == nullptr) return null_argument(function, "Y");
  // The backends never write rho (ZoneSpan holds it as double* for their uploads).
  const zoneode::ZoneSpan zones{zone_count, species, T9, const_cast<double*>(rho), Y, nullptr, device_arrays};
  return guarded(function, [&] {
    zoneode::Backend& backend = *burner->backend;
    if (device_arrays) {
      const std::string refusal = backend.device_arrays_refusal(zones);
      if (!refusal.empty())
        return fail(ZONEODE_ERROR_INVALID_ARGUMENT, std::string(function) + ": memory ZONEODE_DEVICE_MEMORY, but " +
                                                        refusal + " (" + burner->backend_description + ")");
    }
    if (burner->compact->physics().self_heating) {  // its floor would lift a colder zone without a word
      const std::vector<double> on_device =
          device_arrays ? backend.read_device_doubles(T9, zone_count) : std::vector<double>{};
      const double* temperature = device_arrays ? on_device.data() : T9;
      for (std::int64_t zone = 0; zone < zone_count; ++zone) {
        if (temperature[zone] >= zoneode::self_heating_min_T9) continue;
        return fail(ZONEODE_ERROR_INVALID_ARGUMENT,
                    std::string(function) + ": T9[" + std::to_string(zone) + "] " +
                        zoneode::format_number(temperature[zone]) + ", below self-heating's floor: expected T9 >= " +
                        zoneode::format_number(zoneode::self_heating_min_T9) +
                        " [GK] (physics.self_heating holds it there)");
      }
    }
    if (burner->settings.end_time != end) {
      burner->settings.end_time = end;
      if (!backend.set_time_span(start, end)) backend.prepare(*burner->compact, burner->settings);
    }
    burner->results.resize(static_cast<std::size_t>(zone_count));
    zoneode::ZoneSpan span = zones;
    span.results = burner->results.data();  // on the host, whatever memory the zone arrays are in
    zoneode::BatchSeconds seconds;
    zoneode::integrate_in_batches(backend, span, seconds);  // the program's loop (backends/batches.cpp)
    std::int64_t failed = 0, first_failed = -1;
    int first_status = zoneode::zone_ok;
    for (std::int64_t zone = 0; zone < zone_count; ++zone) {
      const zoneode::ZoneResult& result = burner->results[static_cast<std::size_t>(zone)];
      if (result.status != zoneode::zone_ok && failed++ == 0) {
        first_failed = zone;
        first_status = result.status;
      }
      if (results == nullptr) continue;
      zoneode_zone_result& out = results[zone];
      out.status = result.status;
      out.reserved = 0;
      out.steps = result.steps;
      out.rejected_steps = result.rejected_steps;
      out.rhs_evaluations = result.rhs_evaluations;
      out.jacobian_evaluations = result.jacobian_evaluations;
      out.factorizations = result.factorizations;
      out.time_burned = result.time_reached - start;
      out.energy_rate = result.energy_generation_rate;
      out.energy_released = result.energy_generation_rate * out.time_burned;
      out.final_T9 = result.final_T9;
      out.mass_fraction_sum = result.mass_fraction_sum;
      out.max_mass_drift = result.max_mass_drift;
    }
    if (failed == 0) return ZONEODE_OK;
    return fail(ZONEODE_ZONES_FAILED,
                std::string(function) + ": " + std::to_string(failed) + " of " + std::to_string(zone_count) +
                    " zone(s) failed (each keeps its last state that passed the checks); the first: zone " +
                    std::to_string(first_failed) + ", " + zoneode_zone_status_name(first_status));
  });
}

}  // extern "C"
