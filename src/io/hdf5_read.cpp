#include "io/hdf5_read.hpp"

#include <cstdint>
#include <cstring>

#include "common/errors.hpp"
#include "io/hdf5_handle.hpp"

namespace zoneode {

bool link_exists(hid_t file, const std::string& path) {
  for (std::size_t slash = path.find('/');; slash = path.find('/', slash + 1)) {
    if (H5Lexists(file, path.substr(0, slash).c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
  }
}

const char* stored_name(hid_t file, const state_layout::Dataset& dataset) {
  if (link_exists(file, dataset.name)) return dataset.name;
  if (dataset.old_name != nullptr && link_exists(file, dataset.old_name)) return dataset.old_name;
  return nullptr;
}

const char* stored_name(hid_t file, const state_layout::Attribute& attribute) {
  if (H5Aexists(file, attribute.name) > 0) return attribute.name;
  if (attribute.old_name != nullptr && H5Aexists(file, attribute.old_name) > 0) return attribute.old_name;
  return nullptr;
}

hssize_t stored_value_count(hid_t object, hid_t file_space) {
  if (file_space != H5S_ALL) return H5Sget_select_npoints(file_space);
  const bool attribute = H5Iget_type(object) == H5I_ATTR;
  const Hdf5Handle space(attribute ? H5Aget_space(object) : H5Dget_space(object), H5Sclose);
  if (!space.valid()) return -1;
  return H5Sget_select_npoints(space);
}

std::vector<std::string> read_strings(hid_t object, std::size_t count, const std::string& what, hid_t memory_space,
                                      hid_t file_space) {
  const bool attribute = H5Iget_type(object) == H5I_ATTR;
  Hdf5Handle file_type = checked<InputError>(attribute ? H5Aget_type(object) : H5Dget_type(object), H5Tclose,
                                             what + ": cannot read its type");
  if (H5Tget_class(file_type) != H5T_STRING) throw InputError(what + ": expected strings");
  auto read = [&](hid_t memory_type, void* buffer) {
    const herr_t status = attribute ? H5Aread(object, memory_type, buffer)
                                    : H5Dread(object, memory_type, memory_space, file_space, H5P_DEFAULT, buffer);
    check<InputError>(status, what + ": cannot read the values");
  };
  // The buffers below hold `count` values: a selection of any other size would overflow them.
  const hssize_t selected = stored_value_count(object, file_space);
  if (selected < 0 || static_cast<std::size_t>(selected) != count)
    throw InputError(what + ": holds " + std::to_string(selected) + " value(s), expected " + std::to_string(count));
  std::vector<std::string> values(count);
  if (count == 0) return values;
  if (H5Tis_variable_str(file_type) > 0) {
    // HDF5 converts between character sets only when they agree: read in the stored one.
    Hdf5Handle memory_type = checked(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
    check(H5Tset_size(memory_type, H5T_VARIABLE), "string type");
    check(H5Tset_cset(memory_type, H5Tget_cset(file_type)), "string type");
    std::vector<char*> pointers(count, nullptr);
    read(memory_type, pointers.data());
    for (std::size_t i = 0; i < count; ++i) {
      if (pointers[i] != nullptr) values[i] = pointers[i];
      H5free_memory(pointers[i]);
    }
    return values;
  }
  // Cut at the first NUL (and trailing spaces for space padding): null-terminated and null-padded
  // strings of any size read alike.
  const std::size_t length = H5Tget_size(file_type);
  const bool space_padded = H5Tget_strpad(file_type) == H5T_STR_SPACEPAD;
  std::vector<char> buffer(count * length + 1, '\0');
  read(file_type, buffer.data());
  for (std::size_t i = 0; i < count; ++i) {
    const char* start = buffer.data() + i * length;
    std::string text(start, strnlen(start, length));
    if (space_padded) text.erase(text.find_last_not_of(' ') + 1);
    values[i] = std::move(text);
  }
  return values;
}

void check_dataset_is_stored(hid_t dataset, const std::string& what) {
  const Hdf5Handle space = checked<InputError>(H5Dget_space(dataset), H5Sclose, what + ": cannot read its shape");
  const Hdf5Handle type = checked<InputError>(H5Dget_type(dataset), H5Tclose, what + ": cannot read its type");
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0 || rank > H5S_MAX_RANK) throw InputError(what + ": cannot read its shape");
  hsize_t dims[H5S_MAX_RANK] = {};
  if (rank > 0 && H5Sget_simple_extent_dims(space, dims, nullptr) < 0) throw InputError(what + ": cannot read its shape");
  std::string shape;
  bool empty = false;
  for (int d = 0; d < rank; ++d) {
    shape += "[" + std::to_string(dims[d]) + "]";
    empty = empty || dims[d] == 0;
  }
  if (empty) return;
  std::uint64_t bytes = H5Tget_size(type);
  bool overflow = false;
  for (int d = 0; d < rank; ++d) overflow = overflow || __builtin_mul_overflow(bytes, dims[d], &bytes);
  const std::uint64_t stored = H5Dget_storage_size(dataset);
  constexpr std::uint64_t deflate_largest_ratio = 1032;
  if (overflow || bytes / deflate_largest_ratio > stored) {
    throw InputError(what + ": declares " + (shape.empty() ? "a scalar" : shape) + " (" +
                     (overflow ? std::string("over 2^64") : std::to_string(bytes)) + " bytes) but stores " +
                     std::to_string(stored) + " bytes: its values were never written");
  }
}

std::vector<std::string> read_species_names(hid_t file, const std::string& path) {
  const std::string name = state_layout::species_name.name;
  if (!link_exists(file, name)) throw InputError(path + ": no dataset /" + name + ", expected the species names");
  const Hdf5Handle names = checked<InputError>(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose,
                                               path + ": cannot open /" + name);
  const Hdf5Handle space = checked<InputError>(H5Dget_space(names), H5Sclose, path + ": /" + name + ": no shape");
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  if (count < 0) throw InputError(path + ": /" + name + ": no shape");
  check_dataset_is_stored(names, path + ": /" + name);
  return read_strings(names, static_cast<std::size_t>(count), path + ": /" + name);
}

}  // namespace zoneode
