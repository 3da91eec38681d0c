// zoneode-compare's view of a state file: any dataset or attribute, its type class and shape, and
// its values as double, int64 or string. Built on the app's io layer (io/hdf5_read.hpp); a file
// that cannot be read throws InputError (exit 2), as opposed to a difference.
#pragma once

#include <hdf5.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "io/hdf5_handle.hpp"
#include "io/hdf5_read.hpp"
#include "io/state_layout.hpp"

namespace zoneode::compare {

// The class of values an object holds, as far as the comparison cares.
enum class Kind { floating, integer, string, other };

Kind kind_of(H5T_class_t type_class);
Kind kind_of(state_layout::ElementType type);
std::string class_name(H5T_class_t type_class);
std::string kind_name(Kind kind);

// A dataset or an attribute: the two differ only in how they are read.
struct Source {
  hid_t id;
  bool attribute;
  std::string what;  // "FILE: /name" or "FILE: attribute name", for messages

  Hdf5Handle type() const { return Hdf5Handle(attribute ? H5Aget_type(id) : H5Dget_type(id), H5Tclose); }
  Hdf5Handle space() const { return Hdf5Handle(attribute ? H5Aget_space(id) : H5Dget_space(id), H5Sclose); }
};

// Type class and shape of one object, or why it is absent.
struct ObjectInfo {
  bool present = false;
  std::string stored_name;  // the name found in the file: the layout's current or version-1 one
  std::string unusable;  // present but not usable as such (e.g. a group where a dataset belongs)
  H5T_class_t type_class = H5T_NO_CLASS;
  std::size_t type_size = 0;
  std::vector<hsize_t> dims;  // empty for a scalar

  // Datasets are checked to store their values (check_dataset_is_stored), so this fits; an
  // attribute is at most 64 kB.
  long long elements() const {
    long long n = 1;
    for (hsize_t d : dims)
      if (__builtin_mul_overflow(n, static_cast<long long>(d), &n)) throw InputError("element count overflows");
    return n;
  }
};

// Rows [first, first + count) along the first dimension.
struct RowRange {
  hsize_t first = 0;
  hsize_t count = 0;
};

// Reads `source` (all of it, or `rows` of a dataset) as T: double, int64 or std::string, letting
// HDF5 convert numbers from their stored type.
template <typename T>
std::vector<T> read_values(const Source& source, const ObjectInfo& info, std::optional<RowRange> rows = {});

// One opened state file. Datasets and attributes of the layout are found under their current or
// their version-1 name (state_layout.hpp).
class StateFile {
 public:
  explicit StateFile(const std::string& path);

  const std::string& path() const { return path_; }

  // Returns an invalid handle when absent; `info` says why.
  Hdf5Handle open_dataset(const state_layout::Dataset& dataset, ObjectInfo& info) const;
  Hdf5Handle open_attribute(const state_layout::Attribute& attribute, ObjectInfo& info) const;
  Source dataset_source(const Hdf5Handle& object, const std::string& name) const;
  Source attribute_source(const Hdf5Handle& attribute, const std::string& name) const;

  // Every dataset reachable by hard links, as "a/b" paths.
  std::set<std::string> dataset_names() const;
  // /species/name, as the app reads it.
  std::vector<std::string> species_names() const;
  // A whole dataset of the layout as T (throws InputError when absent).
  template <typename T>
  std::vector<T> read_whole(const state_layout::Dataset& dataset) const;

 private:
  std::string path_;
  Hdf5Handle file_;
};

}  // namespace zoneode::compare
