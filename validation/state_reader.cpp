#include "state_reader.hpp"

#include <cstdint>
#include <filesystem>
#include <type_traits>

namespace zoneode::compare {

Kind kind_of(H5T_class_t type_class) {
  switch (type_class) {
    case H5T_FLOAT: return Kind::floating;
    case H5T_INTEGER: return Kind::integer;
    case H5T_STRING: return Kind::string;
    default: return Kind::other;
  }
}

Kind kind_of(state_layout::ElementType type) {
  switch (type) {
    case state_layout::ElementType::float64: return Kind::floating;
    case state_layout::ElementType::int64:
    case state_layout::ElementType::int32: return Kind::integer;
    case state_layout::ElementType::string: return Kind::string;
  }
  return Kind::other;
}

std::string class_name(H5T_class_t type_class) {
  switch (type_class) {
    case H5T_FLOAT: return "float";
    case H5T_INTEGER: return "integer";
    case H5T_STRING: return "string";
    case H5T_TIME: return "time";
    case H5T_BITFIELD: return "bitfield";
    case H5T_OPAQUE: return "opaque";
    case H5T_COMPOUND: return "compound";
    case H5T_REFERENCE: return "reference";
    case H5T_ENUM: return "enum";
    case H5T_VLEN: return "vlen";
    case H5T_ARRAY: return "array";
    default: return "unknown";
  }
}

std::string kind_name(Kind kind) {
  switch (kind) {
    case Kind::floating: return "float";
    case Kind::integer: return "integer";
    case Kind::string: return "string";
    default: return "other";
  }
}

namespace {

ObjectInfo describe(const Source& source) {
  ObjectInfo info;
  info.present = true;
  const Hdf5Handle type = source.type();
  const Hdf5Handle space = source.space();
  if (!type.valid() || !space.valid()) throw InputError(source.what + ": cannot read its type or shape");
  info.type_class = H5Tget_class(type);
  info.type_size = H5Tget_size(type);
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0) throw InputError(source.what + ": cannot read its shape");
  info.dims.resize(static_cast<std::size_t>(rank));
  if (rank > 0) H5Sget_simple_extent_dims(space, info.dims.data(), nullptr);
  return info;
}

template <typename T>
hid_t native_type() {
  if constexpr (std::is_same_v<T, double>) return H5T_NATIVE_DOUBLE;
  else if constexpr (std::is_same_v<T, std::int64_t>) return H5T_NATIVE_INT64;
}

}  // namespace

template <typename T>
std::vector<T> read_values(const Source& source, const ObjectInfo& info, std::optional<RowRange> rows) {
  // Selections: the rows in the file and a matching contiguous block in memory.
  Hdf5Handle file_space, memory_space;
  std::size_t count = static_cast<std::size_t>(info.elements());
  if (rows) {
    if (source.attribute || info.dims.empty()) throw InputError(source.what + ": cannot select rows");
    std::vector<hsize_t> start(info.dims.size(), 0), block = info.dims;
    start[0] = rows->first;
    block[0] = rows->count;
    file_space = source.space();
    memory_space = Hdf5Handle(H5Screate_simple(static_cast<int>(block.size()), block.data(), nullptr), H5Sclose);
    if (!file_space.valid() || !memory_space.valid() ||
        H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start.data(), nullptr, block.data(), nullptr) < 0)
      throw InputError(source.what + ": cannot select rows");
    count = 1;
    for (hsize_t d : block) count *= static_cast<std::size_t>(d);
  }
  const hid_t memory_selection = rows ? memory_space.get() : H5S_ALL;
  const hid_t file_selection = rows ? file_space.get() : H5S_ALL;
  if constexpr (std::is_same_v<T, std::string>) {
    return read_strings(source.id, count, source.what, memory_selection, file_selection);
  } else {
    std::vector<T> values(count);
    if (count == 0) return values;
    const herr_t status = source.attribute ? H5Aread(source.id, native_type<T>(), values.data())
                                           : H5Dread(source.id, native_type<T>(), memory_selection, file_selection,
                                                     H5P_DEFAULT, values.data());
    if (status < 0) throw InputError(source.what + ": cannot read the values");
    return values;
  }
}

template std::vector<double> read_values(const Source&, const ObjectInfo&, std::optional<RowRange>);
template std::vector<std::int64_t> read_values(const Source&, const ObjectInfo&, std::optional<RowRange>);
template std::vector<std::string> read_values(const Source&, const ObjectInfo&, std::optional<RowRange>);

StateFile::StateFile(const std::string& path) : path_(path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw InputError("cannot open '" + path + "': no such file");
  if (std::filesystem::is_directory(path, error)) throw InputError("cannot open '" + path + "': it is a directory");
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 == 0) throw InputError("'" + path + "' is not an HDF5 file");
  if (is_hdf5 < 0) throw InputError("cannot read '" + path + "'");
  file_ = checked<InputError>(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                              "cannot open '" + path + "' as HDF5");
}

Hdf5Handle StateFile::open_dataset(const state_layout::Dataset& dataset, ObjectInfo& info) const {
  info = ObjectInfo{};
  const char* name = stored_name(file_, dataset);
  if (name == nullptr) return {};
  info.present = true;
  info.stored_name = name;
  Hdf5Handle object = checked<InputError>(H5Oopen(file_, name, H5P_DEFAULT), H5Oclose,
                                          path_ + ": cannot open /" + name);
  if (H5Iget_type(object) != H5I_DATASET) {
    info.unusable = "not a dataset";
    return {};
  }
  // A declared shape the file cannot hold (never written) is refused before any element count.
  check_dataset_is_stored(object, path_ + ": /" + name);
  info = describe(dataset_source(object, name));
  info.stored_name = name;
  return object;
}

Source StateFile::dataset_source(const Hdf5Handle& object, const std::string& name) const {
  return Source{object.get(), false, path_ + ": /" + name};
}

Hdf5Handle StateFile::open_attribute(const state_layout::Attribute& attribute, ObjectInfo& info) const {
  info = ObjectInfo{};
  const char* name = stored_name(file_, attribute);
  if (name == nullptr) return {};
  Hdf5Handle opened = checked<InputError>(H5Aopen(file_, name, H5P_DEFAULT), H5Aclose,
                                          path_ + ": cannot open attribute " + name);
  info = describe(attribute_source(opened, name));
  info.stored_name = name;
  return opened;
}

Source StateFile::attribute_source(const Hdf5Handle& attribute, const std::string& name) const {
  return Source{attribute.get(), true, path_ + ": attribute " + name};
}

std::set<std::string> StateFile::dataset_names() const {
  std::set<std::string> names;
  auto visit = [](hid_t group, const char* name, const H5L_info_t* link, void* data) -> herr_t {
    if (link->type != H5L_TYPE_HARD) return 0;
    const Hdf5Handle object(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
    if (object.valid() && H5Iget_type(object) == H5I_DATASET) static_cast<std::set<std::string>*>(data)->insert(name);
    return 0;
  };
  if (H5Lvisit(file_, H5_INDEX_NAME, H5_ITER_INC, visit, &names) < 0)
    throw InputError(path_ + ": cannot list its datasets");
  return names;
}

std::vector<std::string> StateFile::species_names() const { return read_species_names(file_, path_); }

template <typename T>
std::vector<T> StateFile::read_whole(const state_layout::Dataset& dataset) const {
  ObjectInfo info;
  const Hdf5Handle object = open_dataset(dataset, info);
  if (!object.valid()) throw InputError(path_ + ": cannot open /" + dataset.name);
  return read_values<T>(dataset_source(object, dataset.name), info);
}

template std::vector<std::int64_t> StateFile::read_whole(const state_layout::Dataset&) const;

}  // namespace zoneode::compare
