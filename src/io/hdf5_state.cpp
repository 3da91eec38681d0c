#include "io/hdf5_state.hpp"

#include <hdf5.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "zoneode_version.hpp"

namespace zoneode {

namespace {

// Owns one HDF5 identifier; closes it with the matching H5*close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle(hid_t id, Closer closer, const std::string& what) : id_(id), closer_(closer) {
    if (id_ < 0) throw std::runtime_error(what);
  }
  ~Handle() {
    if (id_ >= 0) closer_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  operator hid_t() const { return id_; }
  // Closes now, reporting failure (closing a file flushes it).
  void close(const std::string& what) {
    const herr_t status = closer_(id_);
    id_ = -1;
    if (status < 0) throw std::runtime_error(what);
  }

 private:
  hid_t id_;
  Closer closer_;
};

void check(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error(what);
}

struct Silence {  // HDF5 prints its error stack by default; we report our own messages.
  Silence() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }
};
const Silence silence;

hid_t string_type(std::size_t length) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, length);
  H5Tset_strpad(type, H5T_STR_NULLTERM);
  return type;
}

void write_string_attribute(hid_t object, const char* name, const std::string& value) {
  Handle type(string_type(value.size() + 1), H5Tclose, "string type");
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "scalar space");
  Handle attribute(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                   std::string("cannot create attribute ") + name);
  check(H5Awrite(attribute, type, value.c_str()), std::string("cannot write attribute ") + name);
}

template <typename T>
void write_scalar_attribute(hid_t object, const char* name, hid_t type, T value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "scalar space");
  Handle attribute(H5Acreate2(object, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                   std::string("cannot create attribute ") + name);
  check(H5Awrite(attribute, type, &value), std::string("cannot write attribute ") + name);
}

// The per-zone datasets: name, file type, memory type, columns (1 or species).
struct ZoneDataset {
  const char* name;
  hid_t type;
  bool per_species;
  const void* data;
};

std::vector<ZoneDataset> zone_datasets(const LocalState& state) {
  return {{"abundances", H5T_NATIVE_DOUBLE, true, state.abundances},
          {"temperature", H5T_NATIVE_DOUBLE, false, state.temperature},
          {"density", H5T_NATIVE_DOUBLE, false, state.density},
          {"energy_generation_rate", H5T_NATIVE_DOUBLE, false, state.energy_generation_rate},
          {"steps", H5T_NATIVE_INT64, false, state.steps},
          {"status", H5T_NATIVE_INT32, false, state.status}};
}

// Creates the whole file layout with no zone data: datasets, species, attributes.
void create_layout(hid_t file, const Network& network, std::int64_t zones, const StateAttributes& a) {
  const hsize_t species = static_cast<hsize_t>(network.species_count());
  LocalState shapes;
  for (const auto& dataset : zone_datasets(shapes)) {
    const hsize_t dims[2] = {static_cast<hsize_t>(zones), species};
    Handle space(H5Screate_simple(dataset.per_species ? 2 : 1, dims, nullptr), H5Sclose, "dataspace");
    // Big-endian/little-endian: store the native layout of this machine's type.
    Handle created(H5Dcreate2(file, dataset.name, dataset.type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Dclose, std::string("cannot create dataset /") + dataset.name);
  }
  Handle group(H5Gcreate2(file, "species", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "cannot create /species");
  std::size_t longest = 1;
  for (const auto& s : network.species) longest = std::max(longest, s.name.size() + 1);
  std::vector<char> names(species * longest, '\0');
  std::vector<std::int32_t> Z(species), A(species);
  for (hsize_t i = 0; i < species; ++i) {
    network.species[i].name.copy(names.data() + i * longest, longest - 1);
    Z[i] = network.species[i].Z;
    A[i] = network.species[i].A;
  }
  Handle space(H5Screate_simple(1, &species, nullptr), H5Sclose, "dataspace");
  Handle name_type(string_type(longest), H5Tclose, "string type");
  auto write_column = [&](const char* name, hid_t type, const void* data) {
    Handle dataset(H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
                   std::string("cannot create /species/") + name);
    check(H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), std::string("cannot write /species/") + name);
  };
  write_column("name", name_type, names.data());
  write_column("Z", H5T_NATIVE_INT32, Z.data());
  write_column("A", H5T_NATIVE_INT32, A.data());

  write_scalar_attribute(file, "time", H5T_NATIVE_DOUBLE, a.time);
  write_scalar_attribute(file, "step", H5T_NATIVE_INT64, a.step);
  write_string_attribute(file, "network_hash", a.network_hash);
  write_scalar_attribute(file, "format_version", H5T_NATIVE_INT32, state_format_version);
  write_string_attribute(file, "deck", a.deck);
  write_string_attribute(file, "zoneode_version", ZONEODE_VERSION);
  write_string_attribute(file, "git_commit", ZONEODE_GIT_COMMIT);
  write_string_attribute(file, "compiler", ZONEODE_COMPILER);
  write_string_attribute(file, "backend", a.backend);
  write_string_attribute(file, "kernel_variant", a.kernel_variant);
  write_string_attribute(file, "hdf5", std::string(hdf5_write_mode()) + " HDF5 " + std::to_string(H5_VERS_MAJOR) +
                                           "." + std::to_string(H5_VERS_MINOR) + "." + std::to_string(H5_VERS_RELEASE));
  write_scalar_attribute(file, "ranks", H5T_NATIVE_INT32, a.ranks);
  write_scalar_attribute(file, "threads", H5T_NATIVE_INT32, a.threads);
  write_scalar_attribute(file, "wall_seconds", H5T_NATIVE_DOUBLE, a.wall_seconds);
}

// Writes this rank's rows of every zone dataset (a block of count 0 selects nothing).
void write_blocks(hid_t file, const LocalState& state, int species, hid_t transfer) {
  for (const auto& dataset : zone_datasets(state)) {
    Handle handle(H5Dopen2(file, dataset.name, H5P_DEFAULT), H5Dclose, std::string("cannot open /") + dataset.name);
    Handle file_space(H5Dget_space(handle), H5Sclose, "dataspace");
    const hsize_t start[2] = {static_cast<hsize_t>(state.block.first), 0};
    const hsize_t count[2] = {static_cast<hsize_t>(state.block.count), static_cast<hsize_t>(species)};
    const int rank = dataset.per_species ? 2 : 1;
    Handle memory_space(H5Screate_simple(rank, count, nullptr), H5Sclose, "dataspace");
    if (state.block.count > 0) {
      check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr), "hyperslab");
    } else {
      check(H5Sselect_none(file_space), "select none");
      check(H5Sselect_none(memory_space), "select none");
    }
    check(H5Dwrite(handle, dataset.type, memory_space, file_space, transfer, dataset.data),
          std::string("cannot write /") + dataset.name);
  }
}

std::string partial_name(const std::string& path) { return path + ".partial"; }

void finish(const MpiContext& mpi, bool failed, const std::string& path, const std::string& message) {
  // Everyone agrees before the root renames, so a file under `path` is always complete.
  const int reporter = mpi.first_rank_with(failed);
  if (reporter >= 0) {
    // Every rank throws the failing rank's own message, so whichever rank reports it says why.
    const std::string why = mpi.broadcast(message, reporter);
    if (mpi.root()) std::filesystem::remove(partial_name(path));
    throw std::runtime_error(reporter == 0 ? why : "rank " + std::to_string(reporter) + ": " + why);
  }
  if (mpi.root()) {
    std::error_code error;
    std::filesystem::rename(partial_name(path), path, error);
    failed = static_cast<bool>(error);
  }
  if (mpi.any(failed)) throw std::runtime_error("cannot rename '" + partial_name(path) + "' to '" + path + "'");
}

}  // namespace

#ifdef H5_HAVE_PARALLEL
const char* hdf5_write_mode() { return "parallel"; }

void write_state_file(const MpiContext& mpi, const std::string& path, const Network& network,
                      const LocalState& state, const StateAttributes& attributes) {
  bool failed = false;
  std::string message;
  try {
    Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "property list");
    check(H5Pset_fapl_mpio(access, mpi.comm(), MPI_INFO_NULL), "H5Pset_fapl_mpio");
    Handle file(H5Fcreate(partial_name(path).c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access), H5Fclose,
                "cannot create '" + partial_name(path) + "'");
    // Metadata (datasets, attributes) is created collectively with identical values on every rank.
    create_layout(file, network, state.global_zones, attributes);
    Handle transfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "property list");
    check(H5Pset_dxpl_mpio(transfer, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio");
    write_blocks(file, state, network.species_count(), transfer);
    file.close("cannot close '" + partial_name(path) + "'");
  } catch (const std::exception& error) {
    failed = true;
    message = error.what();
  }
  finish(mpi, failed, path, message);
}
#else
const char* hdf5_write_mode() { return "serial"; }

void write_state_file(const MpiContext& mpi, const std::string& path, const Network& network,
                      const LocalState& state, const StateAttributes& attributes) {
  // Ranks take turns: rank r waits for r-1's flag, writes its block unless someone failed, passes on.
  int failed_before = 0;
  if (mpi.rank() > 0) MPI_Recv(&failed_before, 1, MPI_INT, mpi.rank() - 1, 0, mpi.comm(), MPI_STATUS_IGNORE);
  bool failed = false;
  std::string message;
  if (!failed_before) {
    try {
      const std::string name = partial_name(path);
      hid_t id = mpi.root() ? H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)
                            : H5Fopen(name.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
      Handle file(id, H5Fclose, "cannot " + std::string(mpi.root() ? "create '" : "open '") + name + "'");
      if (mpi.root()) create_layout(file, network, state.global_zones, attributes);
      write_blocks(file, state, network.species_count(), H5P_DEFAULT);
      file.close("cannot close '" + name + "'");
    } catch (const std::exception& error) {
      failed = true;
      message = error.what();
    }
  }
  const int failed_now = failed_before || failed;
  if (mpi.rank() + 1 < mpi.size()) MPI_Send(&failed_now, 1, MPI_INT, mpi.rank() + 1, 0, mpi.comm());
  finish(mpi, failed, path, message);
}
#endif

StateFileInfo read_state_info(const std::string& path) {
  if (!std::filesystem::exists(path)) throw std::runtime_error("cannot open '" + path + "': no such file");
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "cannot open '" + path + "' as HDF5");
  StateFileInfo info;
  auto fail = [&](const std::string& what) { throw std::runtime_error(path + ": " + what); };
  {
    if (H5Lexists(file, "abundances", H5P_DEFAULT) <= 0) fail("no dataset /abundances, expected [zones][species] float64");
    Handle dataset(H5Dopen2(file, "abundances", H5P_DEFAULT), H5Dclose, path + ": cannot open /abundances");
    Handle space(H5Dget_space(dataset), H5Sclose, "dataspace");
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_ndims(space) != 2) fail("/abundances: expected 2 dimensions [zones][species]");
    H5Sget_simple_extent_dims(space, dims, nullptr);
    info.zones = static_cast<std::int64_t>(dims[0]);
  }
  if (H5Lexists(file, "species", H5P_DEFAULT) <= 0 || H5Lexists(file, "species/name", H5P_DEFAULT) <= 0)
    fail("no dataset /species/name, expected the species names");
  Handle names(H5Dopen2(file, "species/name", H5P_DEFAULT), H5Dclose, path + ": cannot open /species/name");
  Handle type(H5Dget_type(names), H5Tclose, "type");
  if (H5Tget_class(type) != H5T_STRING) fail("/species/name: expected strings");
  Handle space(H5Dget_space(names), H5Sclose, "dataspace");
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  if (H5Tis_variable_str(type) > 0) {
    // Variable-length strings, as h5py writes by default.
    Handle memory_type(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
    check(H5Tset_size(memory_type, H5T_VARIABLE), "string type");
    std::vector<char*> pointers(static_cast<std::size_t>(count), nullptr);
    check(H5Dread(names, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()),
          path + ": cannot read /species/name");
    for (char* name : pointers) info.species.emplace_back(name ? name : "");
    H5Dvlen_reclaim(memory_type, space, H5P_DEFAULT, pointers.data());
  } else {
    const std::size_t length = H5Tget_size(type);
    std::vector<char> buffer(static_cast<std::size_t>(count) * length + 1, '\0');
    check(H5Dread(names, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()), path + ": cannot read /species/name");
    for (hssize_t i = 0; i < count; ++i) {
      const char* start = buffer.data() + i * length;
      std::size_t size = strnlen(start, length);
      while (size > 0 && start[size - 1] == ' ') --size;  // space-padded (Fortran style)
      info.species.emplace_back(start, size);
    }
  }
  if (H5Aexists(file, "step") > 0) {
    Handle attribute(H5Aopen(file, "step", H5P_DEFAULT), H5Aclose, "attribute step");
    check(H5Aread(attribute, H5T_NATIVE_INT64, &info.step), path + ": cannot read attribute step");
  }
  if (H5Aexists(file, "time") > 0) {
    Handle attribute(H5Aopen(file, "time", H5P_DEFAULT), H5Aclose, "attribute time");
    check(H5Aread(attribute, H5T_NATIVE_DOUBLE, &info.time), path + ": cannot read attribute time");
  }
  if (H5Aexists(file, "network_hash") > 0) {
    Handle attribute(H5Aopen(file, "network_hash", H5P_DEFAULT), H5Aclose, "attribute network_hash");
    Handle hash_type(H5Aget_type(attribute), H5Tclose, "type");
    if (H5Tget_class(hash_type) == H5T_STRING && H5Tis_variable_str(hash_type) <= 0) {
      std::vector<char> text(H5Tget_size(hash_type) + 1, '\0');
      check(H5Aread(attribute, hash_type, text.data()), path + ": cannot read attribute network_hash");
      info.network_hash = text.data();
    }
  }
  return info;
}

void read_state_block(const std::string& path, std::int64_t zones, const ZoneBlock& block, int species_count,
                      double* temperature, double* density, double* abundances) {
  Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "cannot open '" + path + "' as HDF5");
  auto read = [&](const char* name, int columns, double* data) {
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
      throw std::runtime_error(path + ": no dataset /" + name + ", expected float64 [zones]" + (columns > 1 ? "[species]" : ""));
    Handle dataset(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose, path + ": cannot open /" + name);
    Handle file_space(H5Dget_space(dataset), H5Sclose, "dataspace");
    const int rank = columns > 1 ? 2 : 1;
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_ndims(file_space) != rank) throw std::runtime_error(path + ": /" + name + ": expected " + std::to_string(rank) + " dimension(s)");
    H5Sget_simple_extent_dims(file_space, dims, nullptr);
    if (rank == 2 && dims[1] != static_cast<hsize_t>(columns))
      throw std::runtime_error(path + ": /" + name + " has " + std::to_string(dims[1]) + " species, expected " + std::to_string(columns));
    if (dims[0] != static_cast<hsize_t>(zones))
      throw std::runtime_error(path + ": /" + name + " has " + std::to_string(dims[0]) + " zones, expected " +
                               std::to_string(zones) + " (as /abundances)");
    const hsize_t start[2] = {static_cast<hsize_t>(block.first), 0};
    const hsize_t count[2] = {static_cast<hsize_t>(block.count), static_cast<hsize_t>(columns)};
    check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr), "hyperslab");
    Handle memory_space(H5Screate_simple(rank, count, nullptr), H5Sclose, "dataspace");
    check(H5Dread(dataset, H5T_NATIVE_DOUBLE, memory_space, file_space, H5P_DEFAULT, data),
          path + ": cannot read /" + name + " as float64");
  };
  read("temperature", 1, temperature);
  read("density", 1, density);
  read("abundances", species_count, abundances);
}

}  // namespace zoneode
