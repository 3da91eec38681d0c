// Reading state files (layout: io/state_layout.hpp), shared by the app and zoneode-compare.
// Every failure is an InputError naming the file: the input, not the run, is at fault.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <string>
#include <vector>

#include "io/hdf5_handle.hpp"
#include "io/state_layout.hpp"

namespace zoneode {

// Whether the object at `path` ("species/name") exists, every link on the way included.
bool link_exists(hid_t file, const std::string& path);

// The name under which `dataset` is stored, its current or its version-1 name; nullptr when absent.
const char* stored_name(hid_t file, const state_layout::Dataset& dataset);
const char* stored_name(hid_t file, const state_layout::Attribute& attribute);

// How many values a read of `object` (a dataset or an attribute) within `file_space` (H5S_ALL: all
// of it) yields; -1 when HDF5 cannot tell.
hssize_t stored_value_count(hid_t object, hid_t file_space = H5S_ALL);

// Reads `count` strings of a dataset (within the given selections) or of an attribute (all).
// Fixed-length strings may be null-terminated, null- or space-padded; variable-length ones ASCII
// or UTF-8 (h5py's default). `what` names the object in messages. An object or selection of any
// other number of values is an InputError.
std::vector<std::string> read_strings(hid_t object, std::size_t count, const std::string& what,
                                      hid_t memory_space = H5S_ALL, hid_t file_space = H5S_ALL);

// Refuses (InputError, `what` naming file and dataset) a dataset that declares more values than it
// stores: a file of a few kB may declare [2^59][16], chunked and never written, and reading its
// fill values would take for ever (or its element count overflow). Compressed data is allowed up
// to deflate's largest ratio.
void check_dataset_is_stored(hid_t dataset, const std::string& what);

// Opens what `name` (a path from the root: "abundances", "species/name") of `file` links to, as a
// dataset. An InputError names `path` and the dataset, and says what is there instead: nothing
// ("no dataset /NAME, expected EXPECTED"), a group, a soft link to nothing or in a loop, an external
// link whose file or object cannot be opened, or a virtual dataset one of whose sources cannot be
// read (HDF5 would read its values as fill values, zeros).
Hdf5Handle open_dataset(hid_t file, const std::string& path, const std::string& name, const std::string& expected);

// A stored type as the layout names types: "float64", "float32", "int64", "uint8", "a string",
// "a compound", ...
std::string type_name(hid_t type);

// Refuses (InputError: `what`, the type found) a dataset not stored as IEEE float64, the layout's
// type for T9, rho and Y: an integer type truncated Y to 0, float32 lost digits before it was
// written, and a wider float would be narrowed on reading.
void check_float64(hid_t dataset, const std::string& what);

// /species/name of an open state file; `path` names the file in messages.
std::vector<std::string> read_species_names(hid_t file, const std::string& path);

}  // namespace zoneode
