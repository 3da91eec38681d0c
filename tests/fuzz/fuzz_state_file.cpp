// libFuzzer harness: the state-file reader (io/hdf5_state, io/hdf5_read, and zoneode-compare's
// StateFile). Structure-aware: the bytes choose how a small HDF5 file is built through the HDF5
// API (which datasets, their shapes, element types and layout, chunked and never written or
// written; the step/time/network_hash attributes with any class and element count; species names
// fixed or variable length, ASCII or UTF-8; format_version right, wrong or absent; a zone
// dataset replaced by a group, a soft link in a loop or to nothing, an external link to a missing
// file, a virtual dataset with a missing or present source), and the file is then read as zoneode does. Bytes fed
// to HDF5's own parser would fuzz libhdf5 (not ours, and not instrumented); this fuzzes what we
// read from what HDF5 accepts. A refusal is an InputError; anything else is a finding.
#include <hdf5.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "io/hdf5_handle.hpp"
#include "io/hdf5_state.hpp"
#include "io/state_layout.hpp"

namespace {

struct Bytes {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  std::uint8_t next() { return at < size ? data[at++] : 0; }
  std::uint64_t wide() {
    std::uint64_t value = 0;
    for (int k = 0; k < 8; ++k) value = value << 8 | next();
    return value;
  }
};

hid_t element_type(std::uint8_t pick) {
  switch (pick % 5) {
    case 0: return H5T_NATIVE_DOUBLE;
    case 1: return H5T_NATIVE_INT64;
    case 2: return H5T_NATIVE_INT32;
    case 3: return H5T_NATIVE_FLOAT;
    default: return H5T_NATIVE_UINT8;
  }
}

// A dimension: mostly small, sometimes huge (declared, never written).
hsize_t dimension(Bytes& in) {
  const std::uint8_t kind = in.next();
  if (kind < 200) return kind % 9;
  if (kind < 250) return in.wide() % (hsize_t{1} << 40);
  return in.wide() % (hsize_t{1} << 62) + 1;
}

void add_dataset(hid_t file, const char* name, int rank, Bytes& in) {
  hsize_t dims[2] = {dimension(in), rank == 2 ? dimension(in) : 1};
  const std::uint8_t options = in.next();
  if (options & 0x80) rank = 1 + (options & 1) + ((options >> 1) & 1);  // sometimes a wrong rank
  hsize_t dims3[3] = {dims[0], dims[1], 2};
  const zoneode::Hdf5Handle space(H5Screate_simple(rank, rank == 3 ? dims3 : dims, nullptr), H5Sclose);
  const zoneode::Hdf5Handle properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  hsize_t elements = 1;
  bool overflow = false;
  for (int d = 0; d < rank; ++d) overflow = overflow || __builtin_mul_overflow(elements, (rank == 3 ? dims3 : dims)[d], &elements);
  const bool small = !overflow && elements <= 4096;
  if (!small || (options & 4)) {
    hsize_t chunk[3] = {1, 1, 1};
    H5Pset_chunk(properties, rank, chunk);
  }
  const hid_t type = element_type(options >> 3);
  const zoneode::Hdf5Handle dataset(H5Dcreate2(file, name, type, space, H5P_DEFAULT, properties, H5P_DEFAULT), H5Dclose);
  if (!dataset.valid() || !small || (options & 2)) return;  // declared, never written
  std::vector<double> values(elements);
  for (auto& v : values) {
    const std::uint8_t b = in.next();
    v = b == 255 ? -1.0 : b == 254 ? 0.0 / 0.0 : 0.5 + b;
  }
  H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
}

// A zone dataset, or something else under its name (issue 18: each was "cannot open" or read as
// zeros).
void add_zone_object(hid_t file, const char* name, int rank, Bytes& in) {
  const std::uint8_t kind = in.next();
  const std::string path = std::string("/") + name;
  if (kind < 200) {
    add_dataset(file, name, rank, in);
  } else if (kind < 210) {
    zoneode::Hdf5Handle(H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  } else if (kind < 220) {  // a loop of one or two links
    const std::string other = path + "_loop";
    H5Lcreate_soft((kind & 1) ? other.c_str() : path.c_str(), file, name, H5P_DEFAULT, H5P_DEFAULT);
    if (kind & 1) H5Lcreate_soft(path.c_str(), file, other.c_str() + 1, H5P_DEFAULT, H5P_DEFAULT);
  } else if (kind < 230) {
    H5Lcreate_soft("/nowhere", file, name, H5P_DEFAULT, H5P_DEFAULT);
  } else if (kind < 240) {
    H5Lcreate_external("/tmp/zoneode_fuzz_no_such_file.h5", "/abundances", file, name, H5P_DEFAULT, H5P_DEFAULT);
  } else {  // virtual: from a dataset of this file ("."), present or not, or from a missing file
    const std::string source = path + "_source";
    if (kind & 1) add_dataset(file, source.c_str() + 1, rank, in);
    hsize_t dims[2] = {1 + in.next() % 8u, rank == 2 ? 1 + in.next() % 8u : 1};
    const zoneode::Hdf5Handle space(H5Screate_simple(rank, dims, nullptr), H5Sclose);
    const zoneode::Hdf5Handle properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_virtual(properties, space, (kind & 2) ? "/tmp/zoneode_fuzz_no_such_file.h5" : ".", source.c_str(), space);
    zoneode::Hdf5Handle(H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, properties, H5P_DEFAULT), H5Dclose);
  }
}

void add_attribute(hid_t file, const char* name, Bytes& in) {
  const std::uint8_t options = in.next();
  if (options & 1) return;  // absent
  const hsize_t count = (options >> 1) & 3 ? 1 + in.next() % 64 : 1;
  const zoneode::Hdf5Handle space((options & 0x40) ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &count, nullptr), H5Sclose);
  if ((options >> 3) & 1) {  // strings, fixed or variable length
    const zoneode::Hdf5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    const bool variable = options & 0x20;
    H5Tset_size(type, variable ? H5T_VARIABLE : 1 + in.next() % 24);
    H5Tset_cset(type, (options & 0x80) ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
    const zoneode::Hdf5Handle attribute(H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    std::vector<std::string> texts(count);
    for (auto& t : texts) t = std::string(in.next() % 20, static_cast<char>('a' + in.next() % 26));
    if (variable) {
      std::vector<const char*> pointers;
      for (auto& t : texts) pointers.push_back(t.c_str());
      H5Awrite(attribute, type, pointers.data());
    } else {
      const std::size_t length = H5Tget_size(type);
      std::vector<char> buffer(count * length, '\0');
      for (hsize_t k = 0; k < count; ++k) std::memcpy(buffer.data() + k * length, texts[k].data(), std::min(length, texts[k].size()));
      H5Awrite(attribute, type, buffer.data());
    }
    return;
  }
  const hid_t type = element_type(options >> 4);
  const zoneode::Hdf5Handle attribute(H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  std::vector<double> values(count, 0.5 * in.next());
  H5Awrite(attribute, H5T_NATIVE_DOUBLE, values.data());
}

void add_species_names(hid_t file, Bytes& in) {
  const std::uint8_t options = in.next();
  if (options & 1) return;
  const zoneode::Hdf5Handle group(H5Gcreate2(file, "species", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  const hsize_t count = in.next() % 20;
  const zoneode::Hdf5Handle space(H5Screate_simple(1, &count, nullptr), H5Sclose);
  const zoneode::Hdf5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  const bool variable = options & 2;
  H5Tset_size(type, variable ? H5T_VARIABLE : 1 + in.next() % 8);
  H5Tset_cset(type, (options & 4) ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
  H5Tset_strpad(type, (options & 8) ? H5T_STR_SPACEPAD : H5T_STR_NULLPAD);
  const zoneode::Hdf5Handle dataset(H5Dcreate2(file, "species/name", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  if ((options & 16) || count == 0) return;
  std::vector<std::string> names(count);
  for (auto& n : names) n = std::string(1 + in.next() % 5, static_cast<char>('a' + in.next() % 3));
  if (variable) {
    std::vector<const char*> pointers;
    for (auto& n : names) pointers.push_back(n.c_str());
    H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data());
  } else {
    const std::size_t length = H5Tget_size(type);
    std::vector<char> buffer(count * length, '\0');
    for (hsize_t k = 0; k < count; ++k) std::memcpy(buffer.data() + k * length, names[k].data(), std::min(length, names[k].size()));
    H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool silenced = (zoneode::silence_hdf5_error_stack(), true);
  (void)silenced;
  static const std::string path = "/tmp/zoneode_fuzz_state_" + std::to_string(getpid()) + ".h5";
  Bytes in{data, size};
  {
    const zoneode::Hdf5Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) return 0;
    namespace layout = zoneode::state_layout;
    if (!(in.next() & 1)) add_zone_object(file, layout::abundances.name, 2, in);
    if (!(in.next() & 1)) add_zone_object(file, layout::temperature.name, 1, in);
    if (!(in.next() & 1)) add_zone_object(file, layout::density.name, 1, in);
    // format_version: mostly one this build reads (else every file is refused at once).
    const std::uint8_t version = in.next();
    if (version % 8 == 1) {
      add_attribute(file, layout::version.name, in);
    } else if (version % 8 != 0) {
      const std::int32_t value = version % 8 == 2 ? 99 : 1 + version % 3;
      const zoneode::Hdf5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
      const zoneode::Hdf5Handle attribute(H5Acreate2(file, layout::version.name, H5T_NATIVE_INT32, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      H5Awrite(attribute, H5T_NATIVE_INT32, &value);
    }
    add_species_names(file, in);
    add_attribute(file, layout::outer_step.name, in);
    add_attribute(file, layout::time.name, in);
    add_attribute(file, layout::network_hash.name, in);
  }
  try {
    const zoneode::StateFileInfo info = zoneode::read_state_info(path);
    const int species = static_cast<int>(info.species.size());
    if (info.zones > 0 && info.zones <= 4096 && species > 0) {
      std::vector<double> temperature(info.zones), density(info.zones), abundances(info.zones * species);
      zoneode::read_state_block(path, info.zones, {0, info.zones}, species, temperature.data(), density.data(),
                                abundances.data());
    }
  } catch (const zoneode::InputError&) {
  }
  return 0;
}
