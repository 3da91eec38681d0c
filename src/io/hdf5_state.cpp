#include "io/hdf5_state.hpp"

#include <hdf5.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <type_traits>

#include "common/atomic_file.hpp"
#include "common/errors.hpp"
#include "common/file_kind.hpp"
#include "io/hdf5_handle.hpp"
#include "io/hdf5_read.hpp"
#include "io/state_layout.hpp"
#include "io/write_watchdog.hpp"
#include "zoneode_version.hpp"

namespace zoneode {

namespace {

namespace layout = state_layout;

const bool hdf5_silenced = (silence_hdf5_error_stack(), true);

hid_t native_type(layout::ElementType type) {
  switch (type) {
    case layout::ElementType::float64: return H5T_NATIVE_DOUBLE;
    case layout::ElementType::int64: return H5T_NATIVE_INT64;
    case layout::ElementType::int32: return H5T_NATIVE_INT32;
    case layout::ElementType::string: break;
  }
  throw std::logic_error("no native type for strings");
}

Hdf5Handle string_type(std::size_t length) {
  Hdf5Handle type = checked(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
  check(H5Tset_size(type, length), "string type");
  check(H5Tset_strpad(type, H5T_STR_NULLTERM), "string type");
  return type;
}

void write_string_attribute(hid_t object, const layout::Attribute& spec, const std::string& value) {
  const Hdf5Handle type = string_type(value.size() + 1);
  const Hdf5Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, "scalar space");
  const Hdf5Handle attribute = checked(H5Acreate2(object, spec.name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                                       std::string("cannot create attribute ") + spec.name);
  check(H5Awrite(attribute, type, value.c_str()), std::string("cannot write attribute ") + spec.name);
}

template <typename T>
void write_scalar_attribute(hid_t object, const layout::Attribute& spec, T value) {
  const hid_t type = native_type(spec.type);
  const Hdf5Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, "scalar space");
  const Hdf5Handle attribute = checked(H5Acreate2(object, spec.name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                                       std::string("cannot create attribute ") + spec.name);
  check(H5Awrite(attribute, type, &value), std::string("cannot write attribute ") + spec.name);
}

// This rank's rows of one per-zone dataset.
struct ZoneData {
  const layout::Dataset& spec;
  const void* data;
};

std::vector<ZoneData> zone_data(const LocalState& state) {
  return {{layout::abundances, state.abundances},
          {layout::temperature, state.temperature},
          {layout::density, state.density},
          {layout::energy_generation_rate, state.energy_generation_rate},
          {layout::integrator_steps, state.integrator_steps},
          {layout::status, state.status},
          {layout::time_reached, state.time_reached}};
}

// The creation properties of a per-zone dataset of `rank` dimensions `dims`: HDF5's defaults
// (contiguous), or chunks of storage.chunk_zones zones (fewer when the file holds fewer) of all
// species, through the filters asked for.
Hdf5Handle zone_dataset_properties(const StateStorage& storage, int rank, const hsize_t* dims) {
  Hdf5Handle properties = checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "property list");
  if (!storage.chunked()) return properties;
  const hsize_t chunk[2] = {std::max<hsize_t>(1, std::min<hsize_t>(storage.chunk_zones, dims[0])), dims[1]};
  check(H5Pset_chunk(properties, rank, chunk), "H5Pset_chunk");
  // Every element is written: no fill values (parallel HDF5 would write them all when it creates the
  // dataset, doubling the bytes written).
  check(H5Pset_fill_time(properties, H5D_FILL_TIME_NEVER), "H5Pset_fill_time");
  if (storage.shuffle) check(H5Pset_shuffle(properties), "H5Pset_shuffle");
  if (storage.compressed()) check(H5Pset_deflate(properties, static_cast<unsigned>(storage.gzip_level)), "H5Pset_deflate");
  return properties;
}

// Creates the whole file layout with no zone data: datasets, species, attributes.
void create_layout(hid_t file, const Network& network, std::int64_t zones, const StateAttributes& a,
                   const StateStorage& storage) {
  const hsize_t species = static_cast<hsize_t>(network.species_count());
  for (const auto& dataset : layout::zone_datasets) {
    const hsize_t dims[2] = {static_cast<hsize_t>(zones), species};
    const int rank = dataset.shape == layout::Shape::per_zone_species ? 2 : 1;
    const Hdf5Handle space = checked(H5Screate_simple(rank, dims, nullptr), H5Sclose, "dataspace");
    const Hdf5Handle properties = zone_dataset_properties(storage, rank, dims);
    // Big-endian/little-endian: store the native layout of this machine's type.
    checked(H5Dcreate2(file, dataset.name, native_type(dataset.type), space, H5P_DEFAULT, properties, H5P_DEFAULT),
            H5Dclose, std::string("cannot create dataset /") + dataset.name);
  }
  const Hdf5Handle group = checked(H5Gcreate2(file, layout::species_group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                   H5Gclose, std::string("cannot create /") + layout::species_group);
  std::size_t longest = 1;
  for (const auto& s : network.species) longest = std::max(longest, s.name.size() + 1);
  std::vector<char> names(species * longest, '\0');
  std::vector<std::int32_t> Z(species), A(species);
  for (hsize_t i = 0; i < species; ++i) {
    network.species[i].name.copy(names.data() + i * longest, longest - 1);
    Z[i] = network.species[i].Z;
    A[i] = network.species[i].A;
  }
  const Hdf5Handle space = checked(H5Screate_simple(1, &species, nullptr), H5Sclose, "dataspace");
  const Hdf5Handle name_type = string_type(longest);
  // A failed column write (real I/O, on this rank alone) is reported after the whole layout is
  // made, so that every rank's metadata stays the same for the collective close.
  std::string column_failure;
  auto write_column = [&](const layout::Dataset& column, hid_t type, const void* data) {
    // Created in the file root by full path, so the layout's names are used as they are.
    const Hdf5Handle dataset = checked(H5Dcreate2(file, column.name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                       H5Dclose, std::string("cannot create /") + column.name);
    errno = 0;
    if (H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0 && column_failure.empty())
      column_failure = std::string("cannot write /") + column.name + hdf5_failure_reason(errno);
  };
  write_column(layout::species_name, name_type, names.data());
  write_column(layout::species_Z, native_type(layout::species_Z.type), Z.data());
  write_column(layout::species_A, native_type(layout::species_A.type), A.data());

  write_scalar_attribute(file, layout::time, a.time);
  write_scalar_attribute(file, layout::outer_step, a.outer_step);
  write_string_attribute(file, layout::network_hash, a.network_hash);
  write_scalar_attribute(file, layout::version, std::int32_t{layout::format_version});
  write_string_attribute(file, layout::deck, a.provenance.resolved_deck);
  write_string_attribute(file, layout::zoneode_version, ZONEODE_VERSION);
  write_string_attribute(file, layout::git_commit, ZONEODE_GIT_COMMIT);
  write_string_attribute(file, layout::compiler, ZONEODE_COMPILER);
  write_string_attribute(file, layout::backend, a.provenance.backend);
  write_string_attribute(file, layout::kernel_variant, a.provenance.kernel_variant);
  write_string_attribute(file, layout::device, a.provenance.device);
  write_string_attribute(file, layout::launch, a.provenance.launch);
  write_string_attribute(file, layout::hdf5, std::string(hdf5_write_mode()) + " HDF5 " + std::to_string(H5_VERS_MAJOR) +
                                                 "." + std::to_string(H5_VERS_MINOR) + "." +
                                                 std::to_string(H5_VERS_RELEASE));
  write_scalar_attribute(file, layout::ranks, std::int32_t{a.provenance.ranks});
  write_scalar_attribute(file, layout::threads, std::int32_t{a.provenance.threads});
  write_scalar_attribute(file, layout::integrate_seconds, a.integrate_seconds);
  write_scalar_attribute(file, layout::checkpoint, std::int32_t{a.checkpoint ? 1 : 0});
  if (!a.partition_table.empty()) write_string_attribute(file, layout::partition_table, a.partition_table);
  if (a.self_checked) {
    write_scalar_attribute(file, layout::self_check_max_relative_error, a.self_check_max_relative_error);
    write_scalar_attribute(file, layout::self_check_energy_rate_error, a.self_check_energy_rate_error);
    write_scalar_attribute(file, layout::self_check_worst_zone, a.self_check_worst_zone);
    write_scalar_attribute(file, layout::self_check_zones, a.self_check_zones);
    write_scalar_attribute(file, layout::self_check_compared_zones, a.self_check_compared_zones);
    write_scalar_attribute(file, layout::self_check_rtol, a.self_check_rtol);
  }
  if (!column_failure.empty()) throw std::runtime_error(column_failure);
}

// Writes this rank's rows of one zone dataset (a block of count 0 selects nothing).
void write_block(hid_t file, const ZoneData& zone_dataset, const LocalState& state, int species, hid_t transfer) {
  const auto& [spec, data] = zone_dataset;
  {
    const Hdf5Handle dataset = checked(H5Dopen2(file, spec.name, H5P_DEFAULT), H5Dclose,
                                       std::string("cannot open /") + spec.name);
    const Hdf5Handle file_space = checked(H5Dget_space(dataset), H5Sclose, "dataspace");
    const hsize_t start[2] = {static_cast<hsize_t>(state.block.first), 0};
    const hsize_t count[2] = {static_cast<hsize_t>(state.block.count), static_cast<hsize_t>(species)};
    const int rank = spec.shape == layout::Shape::per_zone_species ? 2 : 1;
    const Hdf5Handle memory_space = checked(H5Screate_simple(rank, count, nullptr), H5Sclose, "dataspace");
    if (state.block.count > 0) {
      check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr), "hyperslab");
    } else {
      check(H5Sselect_none(file_space), "select none");
      check(H5Sselect_none(memory_space), "select none");
    }
    errno = 0;
    const herr_t written = H5Dwrite(dataset, native_type(spec.type), memory_space, file_space, transfer, data);
    if (written < 0) throw std::runtime_error(std::string("cannot write /") + spec.name + hdf5_failure_reason(errno));
  }
}

// Writes this rank's rows of every zone dataset.
[[maybe_unused]] void write_blocks(hid_t file, const LocalState& state, int species, hid_t transfer) {
  for (const ZoneData& zone_dataset : zone_data(state)) write_block(file, zone_dataset, state, species, transfer);
}

void finish(const MpiContext& mpi, bool failed, const std::string& path, const std::string& message) {
  // Everyone agrees before the root renames, so a file under `path` is always complete.
  const int reporter = mpi.first_rank_with(failed);
  if (reporter >= 0) {
    // Every rank throws the failing rank's own message, so whichever rank reports it says why.
    const std::string why = mpi.broadcast(message, reporter);
    if (mpi.root()) discard_partial_file(path);
    // Open MPI's lockedfile component keeps PARTIAL-<id>-<pid>.lock while the file is open, and a
    // failed file is left open (write_state_file): its lock files go with the .partial.
    remove_mpi_io_locks(partial_path(path));
    throw std::runtime_error(reporter == 0 ? why : "rank " + std::to_string(reporter) + ": " + why);
  }
  std::string rename_error;
  if (mpi.root()) {
    try {
      commit_partial_file(path);
    } catch (const std::exception& error) {
      rename_error = error.what();
    }
  }
  if (mpi.any(!rename_error.empty())) throw std::runtime_error(mpi.broadcast(rename_error, 0));
}

// The error for a state file HDF5 could not create. HDF5 keeps the system's reason to itself: a
// folder that cannot be written is named as such (both write paths).
std::runtime_error create_failure(const std::string& partial) {
  std::string folder = std::filesystem::path(partial).parent_path().string();
  if (folder.empty()) folder = ".";
  const bool writable = ::access(folder.c_str(), W_OK) == 0;
  return std::runtime_error("cannot create '" + partial + "'" +
                            (writable ? "" : ": folder '" + folder + "': " + std::strerror(errno)));
}

// After a failed write: the file system's state where it explains the failure, which MPI-IO's
// short write does not pass on (errno lost between ranks and threads): " (the file system of
// 'FOLDER' is full: N bytes free)", else "".
std::string full_disk_note(const std::string& partial, const std::string& message) {
  if (message.find(std::strerror(ENOSPC)) != std::string::npos) return "";
  std::string folder = std::filesystem::path(partial).parent_path().string();
  if (folder.empty()) folder = ".";
  struct statvfs space {};
  if (::statvfs(folder.c_str(), &space) != 0) return "";
  const unsigned long long free_bytes = static_cast<unsigned long long>(space.f_bavail) * space.f_frsize;
  constexpr unsigned long long nearly_full_bytes = 1ull << 20;  // less than one metadata block and a column
  if (free_bytes >= nearly_full_bytes) return "";
  return ": " + std::string(std::strerror(ENOSPC)) + " (the file system of '" + folder + "' has " +
         std::to_string(free_bytes) + " bytes free)";
}

}  // namespace

#ifdef H5_HAVE_PARALLEL
const char* hdf5_write_mode() { return "parallel"; }

void write_state_file(const MpiContext& mpi, const std::string& path, const Network& network,
                      const LocalState& state, const StateAttributes& attributes, const StateStorage& storage) {
  // A thread-safe HDF5 keeps its error-printing setting per thread: this one's is set here.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // Every rank makes the same collective HDF5 calls in the same order, failed or not: a rank that
  // stopped at its own write error and closed the file (a collective call) while the others went
  // on to the next collective write deadlocked the run. So the ranks agree after each stage, and
  // once any rank failed, all skip the rest and close the file together.
  const std::string partial = partial_path(path);
  WriteWatchdog watchdog(mpi.rank(), partial);
  std::string message;
  auto stage = [&](auto&& work) {  // true when no rank has failed so far
    if (message.empty()) {
      try {
        work();
      } catch (const std::exception& error) {
        // Named by file: "cannot write /abundances" alone does not say which step failed.
        message = error.what();
        if (message.find(partial) == std::string::npos) message = "'" + partial + "': " + message;
        message += full_disk_note(partial, message);
        watchdog.failed(message);
      }
    }
    return !mpi.any(!message.empty());
  };
  Hdf5Handle access, file, transfer;
  bool going = stage([&] {
    access = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "property list");
    check(H5Pset_fapl_mpio(access, mpi.comm(), MPI_INFO_NULL), "H5Pset_fapl_mpio");
    file = Hdf5Handle(H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access), H5Fclose);
    if (!file.valid()) throw create_failure(partial);
  });
  // Metadata (datasets, attributes) is created collectively with identical values on every rank.
  going = going && stage([&] {
    create_layout(file, network, state.global_zones, attributes, storage);
    transfer = checked(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "property list");
    // Independent: in a collective write, one rank's write error leaves the others waiting in MPI-IO
    // for ever (no rank returns to agree); each rank writes its own contiguous block anyway. HDF5
    // writes filtered (compressed) datasets only collectively: there the watchdog is the guard.
    check(H5Pset_dxpl_mpio(transfer, storage.compressed() ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT),
          "H5Pset_dxpl_mpio");
  });
  for (const ZoneData& zone_dataset : zone_data(state)) {
    going = going && stage([&] { write_block(file, zone_dataset, state, network.species_count(), transfer); });
  }
  // Closing flushes (a failed close is a failed write). After a failure it is not attempted: the
  // failing rank's flush would fail again and leave HDF5's collective flush early, while the
  // others wait in it for ever. The file is left open (never written again; HDF5 does not close it
  // at exit, see silence_hdf5_error_stack) and its .partial removed.
  if (!going) {
    file.release();
  } else if (file.valid()) {
    try {
      errno = 0;
      file.close("cannot close '" + partial + "'");
    } catch (const std::exception& error) {
      message = error.what() + hdf5_failure_reason(errno);
      message += full_disk_note(partial, message);
      watchdog.failed(message);
    }
  }
  finish(mpi, !message.empty(), path, message);
}
#else
const char* hdf5_write_mode() { return "serial"; }

void write_state_file(const MpiContext& mpi, const std::string& path, const Network& network,
                      const LocalState& state, const StateAttributes& attributes, const StateStorage& storage) {
  // A thread-safe HDF5 keeps its error-printing setting per thread: this one's is set here.
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // Ranks take turns: rank r waits for r-1's flag, writes its block unless someone failed, passes on.
  int failed_before = 0;
  if (mpi.rank() > 0) MPI_Recv(&failed_before, 1, MPI_INT, mpi.rank() - 1, 0, mpi.comm(), MPI_STATUS_IGNORE);
  bool failed = false;
  std::string message;
  if (!failed_before) {
    try {
      const std::string partial = partial_path(path);
      const hid_t id = mpi.root() ? H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                                  : H5Fopen(partial.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
      if (id < 0 && mpi.root()) throw create_failure(partial);
      Hdf5Handle file = checked(id, H5Fclose, "cannot open '" + partial + "'");
      if (mpi.root()) create_layout(file, network, state.global_zones, attributes, storage);
      write_blocks(file, state, network.species_count(), H5P_DEFAULT);
      try {
        errno = 0;
        file.close("cannot close '" + partial + "'");
      } catch (const std::exception& error) {
        throw std::runtime_error(error.what() + hdf5_failure_reason(errno));
      }
    } catch (const std::exception& error) {
      failed = true;
      message = error.what();
      message += full_disk_note(partial_path(path), message);
    }
  }
  const int failed_now = failed_before || failed;
  if (mpi.rank() + 1 < mpi.size()) MPI_Send(&failed_now, 1, MPI_INT, mpi.rank() + 1, 0, mpi.comm());
  finish(mpi, failed, path, message);
}
#endif

namespace {

Hdf5Handle open_for_reading(const std::string& path) {
  // stat before open: H5Fopen of a FIFO blocks for ever (a signal does not end it).
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status)) throw InputError("cannot open '" + path + "': no such file");
  if (!std::filesystem::is_regular_file(status))
    throw InputError("cannot open '" + path + "': it is " + file_kind_name(status.type()) + ", expected a regular file");
  return checked<InputError>(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                             "cannot open '" + path + "' as HDF5");
}

// One scalar root attribute, under its current or version-1 name; false when absent.
template <typename T>
bool read_scalar_attribute(hid_t file, const std::string& path, const layout::Attribute& spec, T& value) {
  const char* name = stored_name(file, spec);
  if (name == nullptr) return false;
  const Hdf5Handle attribute = checked<InputError>(H5Aopen(file, name, H5P_DEFAULT), H5Aclose,
                                                   path + ": cannot open attribute " + name);
  if constexpr (std::is_same_v<T, std::string>) {
    value = read_strings(attribute, 1, path + ": attribute " + name).at(0);
  } else {
    // One value of the expected class: H5Aread fills as many values as stored (a [2] attribute
    // overflowed `value` once), and converts 1.5 to the integer 1 without a word.
    const std::string what = path + ": attribute " + name + ": expected one " +
                             (std::is_integral_v<T> ? "integer" : "number");
    const hssize_t count = stored_value_count(attribute);
    if (count != 1) throw InputError(what + ", got " + std::to_string(count) + " values");
    const Hdf5Handle type = checked<InputError>(H5Aget_type(attribute), H5Tclose, what + ": cannot read its type");
    const H5T_class_t type_class = H5Tget_class(type);
    if (type_class != H5T_INTEGER && (std::is_integral_v<T> || type_class != H5T_FLOAT))
      throw InputError(what + ", got " + (type_class == H5T_FLOAT ? "a floating-point" : type_class == H5T_STRING ? "a string" : "another") + " value");
    check<InputError>(H5Aread(attribute, native_type(spec.type), &value), path + ": cannot read attribute " + name);
  }
  return true;
}

}  // namespace

StateFileInfo read_state_info(const std::string& path) {
  const Hdf5Handle file = open_for_reading(path);
  StateFileInfo info;
  auto fail = [&](const std::string& what) { throw InputError(path + ": " + what); };
  // A layout this build knows, or the datasets may mean something else (a version 99 was read).
  if (!read_scalar_attribute(file, path, layout::version, info.format_version))
    fail(std::string("no attribute ") + layout::version.name + ", expected a state file of format_version 1 to " +
         std::to_string(layout::format_version) + " (README.md, Outputs)");
  if (info.format_version < 1 || info.format_version > layout::format_version)
    fail(std::string("attribute ") + layout::version.name + " is " + std::to_string(info.format_version) +
         ", expected 1 to " + std::to_string(layout::format_version) + " (a layout this zoneode reads)");
  {
    const char* name = layout::abundances.name;
    const Hdf5Handle dataset = open_dataset(file, path, name, "[zones][species] float64");
    const Hdf5Handle space = checked<InputError>(H5Dget_space(dataset), H5Sclose, path + ": dataspace");
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_ndims(space) != 2) fail(std::string("/") + name + ": expected 2 dimensions [zones][species]");
    H5Sget_simple_extent_dims(space, dims, nullptr);
    check_float64(dataset, path + ": /" + name);
    check_dataset_is_stored(dataset, path + ": /" + name);
    info.zones = static_cast<std::int64_t>(dims[0]);
  }
  info.species = read_species_names(file, path);
  info.has_outer_step = read_scalar_attribute(file, path, layout::outer_step, info.outer_step);
  read_scalar_attribute(file, path, layout::time, info.time);
  read_scalar_attribute(file, path, layout::network_hash, info.network_hash);
  read_scalar_attribute(file, path, layout::deck, info.deck);
  read_scalar_attribute(file, path, layout::partition_table, info.partition_table);
  return info;
}

void read_state_block(const std::string& path, std::int64_t zones, const ZoneBlock& block, int species_count,
                      double* temperature, double* density, double* abundances) {
  const Hdf5Handle file = open_for_reading(path);
  auto read = [&](const layout::Dataset& spec, double* data) {
    const std::string name = spec.name;
    const bool per_species = spec.shape == layout::Shape::per_zone_species;
    const int columns = per_species ? species_count : 1;
    const Hdf5Handle dataset =
        open_dataset(file, path, name, std::string("float64 [zones]") + (per_species ? "[species]" : ""));
    check_float64(dataset, path + ": /" + name);
    const Hdf5Handle file_space = checked<InputError>(H5Dget_space(dataset), H5Sclose, path + ": dataspace");
    const int rank = per_species ? 2 : 1;
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_ndims(file_space) != rank)
      throw InputError(path + ": /" + name + ": expected " + std::to_string(rank) + " dimension(s)");
    H5Sget_simple_extent_dims(file_space, dims, nullptr);
    if (rank == 2 && dims[1] != static_cast<hsize_t>(columns))
      throw InputError(path + ": /" + name + " has " + std::to_string(dims[1]) + " species, expected " +
                       std::to_string(columns));
    if (dims[0] != static_cast<hsize_t>(zones))
      throw InputError(path + ": /" + name + " has " + std::to_string(dims[0]) + " zones, expected " +
                       std::to_string(zones) + " (as /" + layout::abundances.name + ")");
    check_dataset_is_stored(dataset, path + ": /" + name);
    const hsize_t start[2] = {static_cast<hsize_t>(block.first), 0};
    const hsize_t count[2] = {static_cast<hsize_t>(block.count), static_cast<hsize_t>(columns)};
    check<InputError>(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr),
                      path + ": /" + name + ": hyperslab");
    const Hdf5Handle memory_space = checked(H5Screate_simple(rank, count, nullptr), H5Sclose, "dataspace");
    check<InputError>(H5Dread(dataset, H5T_NATIVE_DOUBLE, memory_space, file_space, H5P_DEFAULT, data),
                      path + ": cannot read /" + name + " as float64");
  };
  read(layout::temperature, temperature);
  read(layout::density, density);
  read(layout::abundances, abundances);
}

}  // namespace zoneode
