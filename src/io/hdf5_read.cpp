#include "io/hdf5_read.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

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

namespace {

// The value of the soft or external link `name` (raw bytes; HDF5 packs an external link's file and
// object names in it).
std::vector<char> link_value(hid_t file, const std::string& name, std::size_t size) {
  std::vector<char> value(size + 1, '\0');
  if (H5Lget_val(file, name.c_str(), value.data(), value.size(), H5P_DEFAULT) < 0) value.assign(1, '\0');
  return value;
}

// "/a/b" from the soft-link target `target` of the link `name` ("species/name"): relative targets
// are relative to the link's group.
std::string absolute_target(const std::string& name, const std::string& target) {
  if (!target.empty() && target[0] == '/') return target;
  const std::size_t slash = name.rfind('/');
  return "/" + (slash == std::string::npos ? "" : name.substr(0, slash + 1)) + target;
}

// What the link `name` of `file` is, when it leads to no dataset: for the message.
std::string why_no_dataset(hid_t file, const std::string& path, const std::string& name) {
  H5L_info_t info{};
  if (H5Lget_info(file, name.c_str(), &info, H5P_DEFAULT) < 0) return "cannot be opened";
  if (info.type == H5L_TYPE_SOFT) {
    // Followed by hand, so that a loop is named as one.
    std::set<std::string> seen{"/" + name};
    std::string at = name;
    for (int hop = 0; hop < 64; ++hop) {
      const std::string target = absolute_target(at, link_value(file, at, info.u.val_size).data());
      if (!seen.insert(target).second) return "is a soft link in a loop (through '" + excerpt(target) + "')";
      if (!link_exists(file, target.substr(1)))
        return "is a soft link to '" + excerpt(target) + "', which does not exist";
      if (H5Lget_info(file, target.c_str(), &info, H5P_DEFAULT) < 0 || info.type != H5L_TYPE_SOFT)
        return "is a soft link to '" + excerpt(target) + "', which cannot be opened";
      at = target.substr(1);
    }
    return "is a chain of more than 64 soft links";
  }
  if (info.type == H5L_TYPE_EXTERNAL) {
    const std::vector<char> value = link_value(file, name, info.u.val_size);
    unsigned flags = 0;
    const char* target_file = nullptr;
    const char* target_object = nullptr;
    if (H5Lunpack_elink_val(value.data(), info.u.val_size, &flags, &target_file, &target_object) < 0)
      return "is an external link that cannot be read";
    const std::string where = "'" + excerpt(target_file) + "' (object '" + excerpt(target_object) + "')";
    const std::filesystem::path beside = std::filesystem::path(path).parent_path() / target_file;
    std::error_code error;
    if (!std::filesystem::exists(target_file, error) && !std::filesystem::exists(beside, error))
      return "is an external link to " + where + ", a file that does not exist";
    return "is an external link to " + where + ", which cannot be opened";
  }
  return "cannot be opened";
}

// A virtual dataset reads each mapped region from its source; a source that cannot be opened
// reads as fill values, without an error. So every source must open, found as HDF5 looks for it
// (HDF5_VDS_PREFIX, the file's own folder, the working directory).
void check_virtual_sources(hid_t dataset, const std::string& path, const std::string& what) {
  const Hdf5Handle create =
      checked<InputError>(H5Dget_create_plist(dataset), H5Pclose, what + ": cannot read its layout");
  if (H5Pget_layout(create) != H5D_VIRTUAL) return;
  std::size_t mappings = 0;
  if (H5Pget_virtual_count(create, &mappings) < 0)
    throw InputError(what + ": a virtual dataset whose mappings cannot be read");
  for (std::size_t k = 0; k < mappings; ++k) {
    auto text = [&](auto get) {
      const ssize_t length = get(create, k, nullptr, 0);
      std::string value(length > 0 ? static_cast<std::size_t>(length) + 1 : 1, '\0');
      if (length > 0) get(create, k, value.data(), value.size());
      value.resize(length > 0 ? static_cast<std::size_t>(length) : 0);
      return value;
    };
    const std::string source_file = text(H5Pget_virtual_filename);
    const std::string source_dataset = text(H5Pget_virtual_dsetname);
    auto opens = [&](hid_t in) {
      const bool rooted = !source_dataset.empty() && source_dataset[0] == '/';
      const std::string name = rooted ? source_dataset.substr(1) : source_dataset;
      if (name.empty() || !link_exists(in, name)) return false;
      const Hdf5Handle object(H5Oopen(in, name.c_str(), H5P_DEFAULT), H5Oclose);
      return object.valid() && H5Iget_type(object) == H5I_DATASET;
    };
    bool found = false;
    if (source_file == ".") {
      const Hdf5Handle own(H5Iget_file_id(dataset), H5Fclose);
      found = own.valid() && opens(own);
    } else {
      std::vector<std::filesystem::path> candidates;
      if (const char* prefix = std::getenv("HDF5_VDS_PREFIX"); prefix != nullptr && *prefix != '\0')
        candidates.push_back(std::filesystem::path(prefix) / source_file);
      candidates.push_back(std::filesystem::path(path).parent_path() / source_file);
      candidates.push_back(source_file);
      for (const auto& candidate : candidates) {
        std::error_code error;
        if (found || !std::filesystem::is_regular_file(candidate, error)) continue;
        const Hdf5Handle source(H5Fopen(candidate.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
        found = source.valid() && opens(source);
      }
    }
    if (!found)
      throw InputError(what + ": a virtual dataset whose source '" + excerpt(source_file) + "' (dataset '" +
                       excerpt(source_dataset) + "') cannot be read: its values would read as fill values");
  }
}

}  // namespace

Hdf5Handle open_dataset(hid_t file, const std::string& path, const std::string& name, const std::string& expected) {
  const std::string what = path + ": /" + name;
  if (!link_exists(file, name)) throw InputError(path + ": no dataset /" + name + ", expected " + expected);
  Hdf5Handle object(H5Oopen(file, name.c_str(), H5P_DEFAULT), H5Oclose);
  if (!object.valid()) throw InputError(what + " " + why_no_dataset(file, path, name) + ", expected " + expected);
  const H5I_type_t kind = H5Iget_type(object);
  if (kind != H5I_DATASET)
    throw InputError(what + " is " +
                     (kind == H5I_GROUP ? "a group" : kind == H5I_DATATYPE ? "a named datatype" : "no dataset") +
                     ", expected a dataset, " + expected);
  object = Hdf5Handle();
  Hdf5Handle dataset = checked<InputError>(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, what + ": cannot open");
  check_virtual_sources(dataset, path, what);
  return dataset;
}

std::string type_name(hid_t type) {
  const std::string bits = std::to_string(8 * H5Tget_size(type));
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + bits;
    case H5T_FLOAT: return "float" + bits;
    case H5T_STRING: return "a string";
    case H5T_COMPOUND: return "a compound type";
    case H5T_ENUM: return "an enum";
    case H5T_ARRAY: return "an array type";
    case H5T_VLEN: return "a variable-length sequence";
    case H5T_BITFIELD: return "a bitfield";
    case H5T_OPAQUE: return "an opaque type";
    case H5T_REFERENCE: return "a reference";
    default: return "an unknown type";
  }
}

void check_float64(hid_t dataset, const std::string& what) {
  const Hdf5Handle type = checked<InputError>(H5Dget_type(dataset), H5Tclose, what + ": cannot read its type");
  if (H5Tequal(type, H5T_IEEE_F64LE) > 0 || H5Tequal(type, H5T_IEEE_F64BE) > 0) return;
  const H5T_class_t type_class = H5Tget_class(type);
  const std::string found = type_name(type);
  std::string why;
  if (type_class == H5T_INTEGER) why = ": integers cannot hold these values (an abundance below 1 truncates to 0)";
  else if (type_class == H5T_FLOAT && H5Tget_size(type) < 8)
    why = ": narrower than float64 (digits and small abundances lost)";
  else if (type_class == H5T_FLOAT && H5Tget_size(type) > 8) why = ": wider than float64 (reading it would narrow it)";
  else if (type_class == H5T_FLOAT) why = ": not IEEE binary64";
  throw InputError(what + ": stored as " + found + ", expected float64" + why);
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
    shape += '[';  // appended piece by piece: "[" + std::string&& trips a GCC 12 -Wrestrict false positive
    shape += std::to_string(dims[d]);
    shape += ']';
    empty = empty || dims[d] == 0;
  }
  if (empty) return;
  {
    // A virtual dataset stores nothing itself: its sources are checked by open_dataset.
    const Hdf5Handle create =
        checked<InputError>(H5Dget_create_plist(dataset), H5Pclose, what + ": cannot read its layout");
    if (H5Pget_layout(create) == H5D_VIRTUAL) return;
  }
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
  const Hdf5Handle names = open_dataset(file, path, name, "the species names");
  const Hdf5Handle space = checked<InputError>(H5Dget_space(names), H5Sclose, path + ": /" + name + ": no shape");
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  if (count < 0) throw InputError(path + ": /" + name + ": no shape");
  check_dataset_is_stored(names, path + ": /" + name);
  return read_strings(names, static_cast<std::size_t>(count), path + ": /" + name);
}

}  // namespace zoneode
