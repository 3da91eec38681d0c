// Test helpers of the zoneode-compare tests (test_compare*.cpp): state files written here with
// known contents, and the comparison run on them.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "compare.hpp"
#include "io/hdf5_handle.hpp"
#include "io/state_layout.hpp"

namespace zoneode::compare {

inline constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();
inline constexpr double inf_value = std::numeric_limits<double>::infinity();

namespace layout = state_layout;

// A valid handle, or the test fails (checked() throws).
inline Hdf5Handle created(hid_t id, Hdf5Handle::Closer closer) {
  return checked(id, closer, "HDF5 call failed in the test writer");
}

// One state file in the zoneode layout, with switches for the defects under test.
struct TestState {
  int zones = 7;
  std::vector<std::string> names{"h1", "he4", "c12", "o16", "ne20"};
  std::vector<std::int32_t> Z{1, 2, 6, 8, 10}, A{1, 4, 12, 16, 20};
  std::vector<double> abundances, temperature, density, energy_generation_rate;
  std::vector<std::int64_t> steps;
  std::vector<std::int32_t> status;
  std::vector<double> time_reached;
  double time = 1.25e-3;
  std::int64_t step = 42;
  std::string network_hash = "9f86d081884c7d65";
  // Provenance: must not matter.
  std::string deck = "zones: 7\nnetwork: alpha\n", git_commit = "0123456789ab", backend = "cpu";
  double integrate_seconds = 1.5;
  // Storage variants and defects.
  bool version_1 = false;  // the names before format version 2: /steps, step, wall_seconds
  bool version_2 = false;  // format version 2: no /time_reached
  bool write_time_reached = true;
  bool write_energy_generation_rate = true;
  bool status_as_float = false;
  bool names_variable_length = false;
  H5T_cset_t names_cset = H5T_CSET_ASCII;  // h5py writes variable-length str as UTF-8
  std::size_t name_size = 16;  // fixed-length names: bytes per name
  H5T_str_t name_padding = H5T_STR_NULLTERM;
  bool hash_variable_length = false;
  bool write_network_hash = true;
  std::vector<std::pair<std::string, double>> extra_datasets;  // "group/name" -> one value

  explicit TestState(int zone_count = 7) : zones(zone_count) {
    const int species = static_cast<int>(names.size());
    const int values = 7 * species;  // magnitudes fixed by the 7-zone layout: 1e-20 .. 1
    for (int z = 0; z < zones; ++z) {
      for (int s = 0; s < species; ++s)
        abundances.push_back(std::pow(10.0, -20.0 + 20.0 * ((z % 7) * species + s) / (values - 1)));
      temperature.push_back(1.0 + 0.37 * z);
      density.push_back(1e4 * std::pow(10.0, 0.5 * z));
      energy_generation_rate.push_back((z % 2 ? -1.0 : 1.0) * 1e10 * (z + 1));
      steps.push_back(100 + z);
      status.push_back(0);
      time_reached.push_back(z == 3 ? 2.5e-4 : 1e-3);  // zone 3 failed early
    }
  }

  double& abundance(int zone, int species) { return abundances[zone * names.size() + species]; }

  // Species i and j change places, with their abundance columns: the same physics, other order.
  void swap_species(int i, int j) {
    std::swap(names[i], names[j]);
    std::swap(Z[i], Z[j]);
    std::swap(A[i], A[j]);
    for (int z = 0; z < zones; ++z) std::swap(abundance(z, i), abundance(z, j));
  }

  void write(const std::string& path) const {
    const Hdf5Handle file = created(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    const hsize_t species = names.size();
    auto dataset = [&](const char* name, hid_t type, std::vector<hsize_t> dims, const void* data) {
      const Hdf5Handle space = created(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
      const Hdf5Handle set = created(H5Dcreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
      EXPECT_GE(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), 0) << name;
    };
    const hsize_t n = static_cast<hsize_t>(zones);
    auto name_of = [&](const auto& spec) { return version_1 && spec.old_name != nullptr ? spec.old_name : spec.name; };
    dataset(name_of(layout::abundances), H5T_NATIVE_DOUBLE, {n, species}, abundances.data());
    dataset(name_of(layout::temperature), H5T_NATIVE_DOUBLE, {n}, temperature.data());
    dataset(name_of(layout::density), H5T_NATIVE_DOUBLE, {n}, density.data());
    if (write_energy_generation_rate)
      dataset(name_of(layout::energy_generation_rate), H5T_NATIVE_DOUBLE, {n}, energy_generation_rate.data());
    dataset(name_of(layout::integrator_steps), H5T_NATIVE_INT64, {n}, steps.data());
    if (!version_1 && !version_2 && write_time_reached)
      dataset(layout::time_reached.name, H5T_NATIVE_DOUBLE, {n}, time_reached.data());
    if (status_as_float) {
      const std::vector<double> as_float(status.begin(), status.end());
      dataset(name_of(layout::status), H5T_NATIVE_DOUBLE, {n}, as_float.data());
    } else {
      dataset(name_of(layout::status), H5T_NATIVE_INT32, {n}, status.data());
    }

    created(H5Gcreate2(file, layout::species_group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    if (names_variable_length) {
      const Hdf5Handle type = created(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(type, H5T_VARIABLE);
      H5Tset_cset(type, names_cset);
      std::vector<const char*> pointers;
      for (const auto& name : names) pointers.push_back(name.c_str());
      dataset(layout::species_name.name, type, {species}, pointers.data());
    } else {
      const Hdf5Handle type = created(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(type, name_size);
      H5Tset_strpad(type, name_padding);
      std::vector<char> buffer(species * name_size, '\0');
      for (hsize_t i = 0; i < species; ++i) names[i].copy(buffer.data() + i * name_size, name_size);
      dataset(layout::species_name.name, type, {species}, buffer.data());
    }
    dataset(layout::species_Z.name, H5T_NATIVE_INT32, {species}, Z.data());
    dataset(layout::species_A.name, H5T_NATIVE_INT32, {species}, A.data());

    for (const auto& [name, value] : extra_datasets) {
      const auto slash = name.find('/');
      if (slash != std::string::npos) {
        const std::string group_name = name.substr(0, slash);
        created(H5Gcreate2(file, group_name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
      }
      dataset(name.c_str(), H5T_NATIVE_DOUBLE, {1}, &value);
    }

    auto scalar = [&](const char* name, hid_t type, const void* value) {
      const Hdf5Handle space = created(H5Screate(H5S_SCALAR), H5Sclose);
      const Hdf5Handle attribute = created(H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      EXPECT_GE(H5Awrite(attribute, type, value), 0) << name;
    };
    auto text = [&](const char* name, const std::string& value, bool variable_length) {
      const Hdf5Handle type = created(H5Tcopy(H5T_C_S1), H5Tclose);
      if (variable_length) {
        H5Tset_size(type, H5T_VARIABLE);
        const char* pointer = value.c_str();
        scalar(name, type, &pointer);
      } else {
        H5Tset_size(type, value.size() + 1);
        scalar(name, type, value.c_str());
      }
    };
    scalar(layout::time.name, H5T_NATIVE_DOUBLE, &time);
    scalar(name_of(layout::outer_step), H5T_NATIVE_INT64, &step);
    if (write_network_hash) text(layout::network_hash.name, network_hash, hash_variable_length);
    text(layout::deck.name, deck, false);
    text(layout::git_commit.name, git_commit, true);
    text(layout::backend.name, backend, false);
    scalar(name_of(layout::integrate_seconds), H5T_NATIVE_DOUBLE, &integrate_seconds);
    const std::int32_t format_version = version_1 ? 1 : version_2 ? 2 : layout::format_version;
    scalar(layout::version.name, H5T_NATIVE_INT32, &format_version);
  }
};

// A fresh file name in the test temp directory, unique per test and tag.
inline std::string temp_path(const std::string& tag) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return ::testing::TempDir() + "compare_" + info->test_suite_name() + "_" + info->name() + "_" + tag + "_" +
         std::to_string(getpid()) + ".h5";
}

// Removes the files it names at scope exit.
struct TempFiles {
  std::vector<std::string> paths;
  const std::string& add(const std::string& path) { return paths.emplace_back(path); }
  ~TempFiles() {
    for (const auto& path : paths) std::remove(path.c_str());
  }
};

inline CompareReport compare(const TestState& a, const TestState& b, const CompareOptions& options = {}) {
  TempFiles files;
  const std::string path_a = files.add(temp_path("a")), path_b = files.add(temp_path("b"));
  a.write(path_a);
  b.write(path_b);
  return compare_files(path_a, path_b, options);
}

inline CompareOptions tolerance(double rtol, double atol = 1e-30) {
  CompareOptions options;
  options.rtol = rtol;
  options.atol = atol;
  return options;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::vector<std::string> compared_names{"abundances", "temperature", "density", "energy_generation_rate",
                                              "steps",      "status",      "species/name", "species/Z",
                                              "species/A",  "time_reached"};


}  // namespace zoneode::compare
