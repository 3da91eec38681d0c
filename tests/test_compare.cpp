// zoneode-compare against planted truth: files written here with known differences.
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
namespace {

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_value = std::numeric_limits<double>::infinity();

namespace layout = state_layout;

// A valid handle, or the test fails (checked() throws).
Hdf5Handle created(hid_t id, Hdf5Handle::Closer closer) {
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
std::string temp_path(const std::string& tag) {
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

CompareReport compare(const TestState& a, const TestState& b, const CompareOptions& options = {}) {
  TempFiles files;
  const std::string path_a = files.add(temp_path("a")), path_b = files.add(temp_path("b"));
  a.write(path_a);
  b.write(path_b);
  return compare_files(path_a, path_b, options);
}

CompareOptions tolerance(double rtol, double atol = 1e-30) {
  CompareOptions options;
  options.rtol = rtol;
  options.atol = atol;
  return options;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::vector<std::string> compared_names{"abundances", "temperature", "density", "energy_generation_rate",
                                              "steps",      "status",      "species/name", "species/Z",
                                              "species/A",  "time_reached"};

TEST(CompareFiles, IdenticalFilesMatchWithZeroErrors) {
  const CompareReport report = compare(TestState{}, TestState{});
  EXPECT_EQ(report.exit_code(), 0) << report_text(report);
  EXPECT_EQ(report.verdict(), "match");
  EXPECT_TRUE(report.error.empty());
  ASSERT_EQ(report.datasets.size(), compared_names.size()) << report_text(report);
  for (const auto& name : compared_names) {
    const DatasetReport* d = report.dataset(name);
    ASSERT_NE(d, nullptr) << name;
    EXPECT_TRUE(d->compared) << name;
    EXPECT_TRUE(d->problem.empty()) << name << ": " << d->problem;
    EXPECT_EQ(d->max_abs, 0.0) << name;
    EXPECT_EQ(d->max_rel, 0.0) << name;
    EXPECT_EQ(d->beyond, 0) << name;
    EXPECT_EQ(d->nans, 0) << name;
    EXPECT_EQ(d->worst_zone, -1) << name;
  }
  EXPECT_EQ(report.dataset("abundances")->values, 35);
  EXPECT_EQ(report.dataset("temperature")->values, 7);
  EXPECT_EQ(report.dataset("species/name")->values, 5);
  ASSERT_EQ(report.attributes.size(), 3u);
  for (const auto& attribute : report.attributes) EXPECT_FALSE(attribute.differs()) << attribute.name;
  EXPECT_EQ(report.attribute("step")->value_a, "42");
  EXPECT_EQ(report.attribute("network_hash")->value_b, "'9f86d081884c7d65'");
  // Bit-identical: zero tolerances pass too.
  EXPECT_EQ(compare(TestState{}, TestState{}, tolerance(0.0, 0.0)).exit_code(), 0);
}

TEST(CompareFiles, PlantedRelativePerturbationIsFoundAndLocated) {
  TestState a, b;
  b.abundance(3, 2) *= 1.0 + 1e-11;
  const CompareReport report = compare(a, b);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(report.verdict(), "differ");
  const DatasetReport* d = report.dataset("abundances");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->compared);
  EXPECT_EQ(d->beyond, 1);
  EXPECT_EQ(d->nans, 0);
  EXPECT_EQ(d->worst_zone, 3);
  EXPECT_EQ(d->worst_species_index, 2);
  EXPECT_EQ(d->worst_species, "c12");
  EXPECT_NEAR(d->max_rel, 1e-11, 1e-13);
  EXPECT_NEAR(d->max_abs, 1e-11 * a.abundance(3, 2), 1e-13 * a.abundance(3, 2));
  for (const auto& name : compared_names) {
    if (name == "abundances") continue;
    EXPECT_FALSE(report.dataset(name)->differs()) << name;
  }
  const std::string text = report_text(report);
  EXPECT_TRUE(contains(text, "zone 3 species 2 'c12'")) << text;
  EXPECT_TRUE(contains(text, "verdict: differ")) << text;

  // A looser global tolerance passes ...
  EXPECT_EQ(compare(a, b, tolerance(1e-10)).exit_code(), 0);
  // ... and so does a per-dataset override, with the global rtol unchanged for the others.
  const CommandLine line = parse_command_line({"a.h5", "b.h5", "--tolerance", "abundances=1e-10"});
  EXPECT_EQ(line.options.rtol, 1e-12);
  EXPECT_EQ(line.options.tolerance_for("abundances").rtol, 1e-10);
  EXPECT_EQ(line.options.tolerance_for("abundances").atol, 1e-30);  // ATOL omitted: the global one
  const CompareReport overridden = compare(a, b, line.options);
  EXPECT_EQ(overridden.exit_code(), 0) << report_text(overridden);
  EXPECT_EQ(overridden.dataset("abundances")->tolerance.rtol, 1e-10);
  EXPECT_EQ(overridden.dataset("temperature")->tolerance.rtol, 1e-12);
  // An override for another dataset does not help abundances.
  CompareOptions elsewhere;
  elsewhere.per_dataset["temperature"] = {1e-10, std::nullopt};
  EXPECT_EQ(compare(a, b, elsewhere).exit_code(), 1);
}

TEST(CompareFiles, LargeFilesAreReadInBlocksAndLocatedRight) {
  // 1.5e6 abundances: more than one block of 2^20 values, the perturbation in the second one.
  TestState a(300000);
  TestState b = a;
  b.abundance(250000, 4) *= 1.0 + 1e-11;
  b.temperature[299999] = nan_value;
  const CompareReport report = compare(a, b);
  EXPECT_EQ(report.exit_code(), 1);
  const DatasetReport* d = report.dataset("abundances");
  EXPECT_EQ(d->values, 1500000);
  EXPECT_EQ(d->beyond, 1);
  EXPECT_EQ(d->worst_zone, 250000);
  EXPECT_EQ(d->worst_species, "ne20");
  EXPECT_EQ(report.dataset("temperature")->worst_zone, 299999);
  EXPECT_EQ(report.dataset("temperature")->nans, 1);
}

TEST(CompareFiles, AbsoluteToleranceFloorAbsorbsTinyAbundances) {
  TestState a, b;
  a.abundance(0, 0) = 1.0e-32;
  b.abundance(0, 0) = 1.5e-32;  // relative error 1/3, absolute 5e-33 < atol 1e-30
  const CompareReport report = compare(a, b);
  EXPECT_EQ(report.exit_code(), 0) << report_text(report);
  EXPECT_NEAR(report.dataset("abundances")->max_rel, 1.0 / 3.0, 1e-12);
  EXPECT_EQ(report.dataset("abundances")->beyond, 0);
  EXPECT_EQ(compare(a, b, tolerance(1e-12, 0.0)).exit_code(), 1);
}

TEST(CompareFiles, NanIsAlwaysADifference) {
  TestState a, b;
  b.temperature[4] = nan_value;
  CompareReport report = compare(a, b);
  EXPECT_EQ(report.exit_code(), 1);
  const DatasetReport* d = report.dataset("temperature");
  EXPECT_EQ(d->nans, 1);
  EXPECT_EQ(d->beyond, 1);
  EXPECT_EQ(d->worst_zone, 4);
  // NaN at the same place in both files: still a difference, whatever the tolerance.
  a.temperature[4] = nan_value;
  report = compare(a, b, tolerance(1.0, 1.0));
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(report.dataset("temperature")->nans, 1);
  EXPECT_EQ(report.dataset("temperature")->beyond, 1);
  EXPECT_EQ(report.dataset("density")->beyond, 0);
}

TEST(CompareFiles, InfinitiesAreEqualOnlyWithTheSameSign) {
  TestState a, b;
  a.energy_generation_rate[2] = b.energy_generation_rate[2] = inf_value;
  EXPECT_EQ(compare(a, b, tolerance(0.0, 0.0)).exit_code(), 0);
  b.energy_generation_rate[2] = -inf_value;
  CompareReport report = compare(a, b, tolerance(1.0, 1.0));
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(report.dataset("energy_generation_rate")->beyond, 1);
  EXPECT_EQ(report.dataset("energy_generation_rate")->worst_zone, 2);
  EXPECT_TRUE(std::isinf(report.dataset("energy_generation_rate")->max_abs));
  b.energy_generation_rate[2] = 1e300;
  EXPECT_EQ(compare(a, b, tolerance(1.0, 1.0)).exit_code(), 1);
}

TEST(CompareFiles, ZeroToleranceIsBitForBitExceptSignedZero) {
  TestState a, b;
  b.density[5] = std::nextafter(a.density[5], 0.0);  // one ulp
  EXPECT_EQ(compare(a, b, tolerance(0.0, 0.0)).exit_code(), 1);
  EXPECT_EQ(compare(a, b).exit_code(), 0);  // within 1e-12
  // Documented behaviour: 0 and -0 compare equal (they are equal as numbers).
  TestState c, d;
  c.energy_generation_rate[1] = 0.0;
  d.energy_generation_rate[1] = -0.0;
  EXPECT_EQ(compare(c, d, tolerance(0.0, 0.0)).exit_code(), 0);
}

TEST(CompareFiles, SpeciesOrderSwapIsASpeciesListDifference) {
  TestState a, b;
  b.swap_species(1, 2);
  const CompareReport report = compare(a, b);
  EXPECT_EQ(report.exit_code(), 1);
  const DatasetReport* abundances = report.dataset("abundances");
  EXPECT_FALSE(abundances->compared);
  EXPECT_EQ(abundances->problem, "not comparable: species lists differ: first mismatch at index 1: 'he4' vs 'c12'");
  EXPECT_EQ(report.dataset("species/name")->beyond, 2);
  EXPECT_EQ(report.dataset("species/Z")->beyond, 2);
  EXPECT_FALSE(report.dataset("temperature")->differs());
  EXPECT_TRUE(contains(report_text(report), "species lists differ")) << report_text(report);

  // Same names, another nucleus.
  TestState c;
  c.A[2] = 13;
  const CompareReport nuclei = compare(a, c);
  EXPECT_EQ(nuclei.exit_code(), 1);
  EXPECT_TRUE(contains(nuclei.dataset("abundances")->problem, "index 2: 'c12' (Z=6, A=12) vs 'c12' (Z=6, A=13)"))
      << nuclei.dataset("abundances")->problem;
}

TEST(CompareFiles, StringStorageVariantsCompareEqual) {
  TestState a, b;
  b.name_size = 4;  // "ne20" fills it: no terminator
  b.name_padding = H5T_STR_NULLPAD;
  b.hash_variable_length = true;
  CompareReport report = compare(a, b);
  EXPECT_EQ(report.exit_code(), 0) << report_text(report);
  TestState c;
  c.names_variable_length = true;
  report = compare(a, c);
  EXPECT_EQ(report.exit_code(), 0) << report_text(report);
  EXPECT_EQ(report.dataset("species/name")->values, 5);
  c.names[4] = "ne21";
  report = compare(a, c);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(report.dataset("species/name")->worst_species_index, 4);
  EXPECT_EQ(report.dataset("species/name")->worst_values, "'ne20' vs 'ne21'");
}

TEST(CompareFiles, Utf8VariableLengthNamesAsH5pyWritesThemAreRead) {
  TestState a, b;
  a.names_variable_length = true;
  a.names_cset = H5T_CSET_UTF8;
  b.abundance(3, 2) *= 1.0 + 1e-11;
  const CompareReport report = compare(a, b);
  EXPECT_EQ(report.exit_code(), 1) << report_text(report);
  EXPECT_FALSE(report.dataset("species/name")->differs()) << report_text(report);
  EXPECT_EQ(report.dataset("abundances")->worst_species, "c12");
}

TEST(CompareFiles, Version1FileComparesWithVersion2UnderTheNewNames) {
  TestState old_file, new_file;
  old_file.version_1 = true;
  CompareReport report = compare(old_file, new_file);
  EXPECT_EQ(report.exit_code(), 0) << report_text(report);
  EXPECT_EQ(report.datasets.size(), compared_names.size()) << report_text(report);  // /steps is no extra
  ASSERT_NE(report.dataset("integrator_steps"), nullptr);
  EXPECT_EQ(report.dataset("integrator_steps"), report.dataset("steps"));
  EXPECT_EQ(report.dataset("integrator_steps")->values, 7);
  EXPECT_EQ(report.attribute("outer_step")->value_a, "42");
  EXPECT_EQ(report.attribute("outer_step")->value_b, "42");
  EXPECT_TRUE(contains(report_text(report), "integrator_steps")) << report_text(report);

  new_file.steps[5] += 1;
  new_file.step = 43;
  report = compare(old_file, new_file);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(report.dataset("integrator_steps")->beyond, 1);
  EXPECT_EQ(report.dataset("integrator_steps")->worst_zone, 5);
  EXPECT_TRUE(report.attribute("outer_step")->differs());
}

// /time_reached came with format version 3: an older file cannot have it, so it is listed as
// absent there, not a difference; a current file without it is one.
TEST(CompareFiles, TimeReachedIsComparedAndOlderFilesLackIt) {
  TestState a, b;
  b.time_reached[3] = 3e-4;
  CompareReport report = compare(a, b, tolerance(1e-12));
  EXPECT_EQ(report.exit_code(), 1) << report_text(report);
  const DatasetReport* d = report.dataset("time_reached");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->beyond, 1);
  EXPECT_EQ(d->worst_zone, 3);
  EXPECT_EQ(d->values, 7);
  EXPECT_NEAR(d->max_abs, 0.5e-4, 1e-18);
  ASSERT_EQ(report.problems().size(), 1u) << report_text(report);

  TestState old_file;
  old_file.version_2 = true;
  for (const TestState* other : {&a, &old_file}) {
    report = compare(old_file, *other);
    EXPECT_EQ(report.exit_code(), 0) << report_text(report);
    d = report.dataset("time_reached");
    ASSERT_NE(d, nullptr);
    EXPECT_TRUE(d->listed_only);
    EXPECT_TRUE(d->older_format);
    EXPECT_FALSE(d->compared);
    EXPECT_TRUE(contains(d->where, other == &a ? "absent in A," : "absent in A and B,")) << d->where;
    EXPECT_TRUE(contains(report_text(report), "time_reached")) << report_text(report);
  }
  // The other datasets of the old file are still compared.
  old_file.temperature[2] += 1.0;
  EXPECT_EQ(compare(old_file, a).exit_code(), 1);

  TestState without;
  without.write_time_reached = false;
  report = compare(a, without);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_TRUE(contains(report.dataset("time_reached")->problem, "missing in B")) << report.dataset("time_reached")->problem;
}

TEST(CompareFiles, MissingDatasetIsANamedDifference) {
  TestState a, b;
  b.write_energy_generation_rate = false;
  const CompareReport report = compare(a, b);
  EXPECT_EQ(report.exit_code(), 1);
  const DatasetReport* d = report.dataset("energy_generation_rate");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->compared);
  EXPECT_TRUE(contains(d->problem, "missing in B")) << d->problem;
  EXPECT_TRUE(contains(d->problem, temp_path("b"))) << d->problem;
  ASSERT_EQ(report.problems().size(), 1u);
  EXPECT_TRUE(contains(report.problems()[0], "energy_generation_rate: missing in B"));
  EXPECT_FALSE(report.dataset("temperature")->differs());
  // Missing in both files is not a pass either.
  a.write_energy_generation_rate = false;
  EXPECT_EQ(compare(a, b).exit_code(), 1);
  EXPECT_EQ(compare(a, b).dataset("energy_generation_rate")->problem, "missing in both files");
}

TEST(CompareFiles, ShapeMismatchIsADifference) {
  const CompareReport report = compare(TestState{7}, TestState{6});
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(report.dataset("abundances")->problem, "shape differs: [7][5] in A vs [6][5] in B");
  EXPECT_EQ(report.dataset("temperature")->problem, "shape differs: [7] in A vs [6] in B");
  EXPECT_FALSE(report.dataset("species/name")->differs());
}

TEST(CompareFiles, TypeClassMismatchIsADifference) {
  TestState a, b;
  b.status_as_float = true;  // same values, float instead of int
  const CompareReport report = compare(a, b);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_EQ(report.dataset("status")->problem, "type class differs: integer in A vs float in B");
}

TEST(CompareFiles, ProvenanceDifferencesAreIgnored) {
  TestState a, b;
  b.deck = "zones: 7\nnetwork: alpha\n# rerun with 4 ranks\n";
  b.integrate_seconds = 99.0;
  b.git_commit = "fedcba987654";
  b.backend = "cuda";
  const CompareReport report = compare(a, b, tolerance(0.0, 0.0));
  EXPECT_EQ(report.exit_code(), 0) << report_text(report);
}

TEST(CompareFiles, ComparedAttributesMustAgree) {
  TestState a, b;
  b.step = 43;
  CompareReport report = compare(a, b);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_TRUE(report.attribute("step")->differs());
  EXPECT_EQ(report.attribute("step")->value_b, "43");
  EXPECT_FALSE(report.attribute("time")->differs());

  TestState c;
  c.time *= 1.0 + 1e-11;  // the global tolerances apply to time
  EXPECT_EQ(compare(a, c).exit_code(), 1);
  EXPECT_EQ(compare(a, c, tolerance(1e-10)).exit_code(), 0);

  TestState d;
  d.network_hash = "9f86d081884c7d66";
  EXPECT_EQ(compare(a, d).exit_code(), 1);
  TestState e;
  e.write_network_hash = false;
  report = compare(a, e);
  EXPECT_EQ(report.exit_code(), 1);
  EXPECT_TRUE(contains(report.attribute("network_hash")->problem, "missing in B"));
}

TEST(CompareFiles, ExtraDatasetsAreListedButNotCompared) {
  TestState a, b;
  b.extra_datasets = {{"diagnostics/max_dt", 1e-3}};
  const CompareReport report = compare(a, b);
  EXPECT_EQ(report.exit_code(), 0) << report_text(report);
  const DatasetReport* extra = report.dataset("diagnostics/max_dt");
  ASSERT_NE(extra, nullptr);
  EXPECT_TRUE(extra->listed_only);
  EXPECT_EQ(extra->where, "B only");
  EXPECT_TRUE(contains(report_text(report), "diagnostics/max_dt")) << report_text(report);
  EXPECT_TRUE(contains(report_text(report), "not compared")) << report_text(report);
}

TEST(CompareFiles, UnreadableFilesAreErrors) {
  TempFiles files;
  const std::string good = files.add(temp_path("good"));
  TestState{}.write(good);
  const std::string missing = temp_path("missing");
  CompareReport report = compare_files(good, missing, {});
  EXPECT_EQ(report.exit_code(), 2);
  EXPECT_EQ(report.verdict(), "error");
  EXPECT_TRUE(contains(report.error, missing)) << report.error;
  const std::string text_file = files.add(temp_path("text"));
  std::ofstream(text_file) << "not an HDF5 file\n";
  report = compare_files(text_file, good, {});
  EXPECT_EQ(report.exit_code(), 2);
  EXPECT_EQ(report.error, "'" + text_file + "' is not an HDF5 file");
}

TEST(CompareCommandLine, ParsesOptionsAndRejectsBadInput) {
  const CommandLine line = parse_command_line(
      {"--rtol=1e-9", "a.h5", "--atol", "0", "b.h5", "--tolerance", "density=1e-6,1e-3", "--json", "-", "--quiet"});
  EXPECT_EQ(line.file_a, "a.h5");
  EXPECT_EQ(line.file_b, "b.h5");
  EXPECT_EQ(line.options.rtol, 1e-9);
  EXPECT_EQ(line.options.atol, 0.0);
  EXPECT_EQ(line.options.tolerance_for("density").rtol, 1e-6);
  EXPECT_EQ(line.options.tolerance_for("density").atol, 1e-3);
  EXPECT_EQ(line.options.tolerance_for("temperature").rtol, 1e-9);
  EXPECT_EQ(line.json.value_or(""), "-");
  EXPECT_TRUE(line.quiet);
  const CommandLine defaults = parse_command_line({"a.h5", "b.h5"});
  EXPECT_EQ(defaults.options.rtol, 1e-12);
  EXPECT_EQ(defaults.options.atol, 1e-30);

  const std::vector<std::vector<std::string>> bad{
      {"a.h5", "b.h5", "--tolerance", "pressure=1e-6"},  // unknown dataset
      {"a.h5", "b.h5", "--tolerance", "steps=1e-6"},     // integers are exact
      {"a.h5", "b.h5", "--tolerance", "density"},        // no '='
      {"a.h5", "b.h5", "--tolerance", "density=1e-6,x"},
      {"a.h5", "b.h5", "--rtol", "abc"},
      {"a.h5", "b.h5", "--rtol", "1e-9x"},
      {"a.h5", "b.h5", "--rtol", "-1"},
      {"a.h5", "b.h5", "--atol", "nan"},
      {"a.h5", "b.h5", "--rtol"},  // no value
      {"a.h5", "b.h5", "--frobnicate"},
      {"a.h5"},
      {"a.h5", "b.h5", "c.h5"},
  };
  for (const auto& arguments : bad) {
    std::string joined;
    for (const auto& argument : arguments) joined += argument + " ";
    EXPECT_THROW(parse_command_line(arguments), UsageError) << joined;
  }
  try {
    parse_command_line({"a.h5", "b.h5", "--tolerance", "pressure=1e-6"});
  } catch (const UsageError& error) {
    EXPECT_TRUE(contains(error.what(), "unknown dataset 'pressure'")) << error.what();
  }
}

// Runs the built tool through the shell; returns its exit status, `output` gets stdout+stderr.
int run_executable(const std::string& arguments, std::string& output) {
  TempFiles files;
  const std::string log = files.add(temp_path("log") + ".txt");
  const std::string command = std::string("'") + ZONEODE_COMPARE_EXECUTABLE + "' " + arguments + " > '" + log + "' 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  output = text.str();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

TEST(CompareExecutable, ExitCodesMessagesAndJson) {
  TempFiles files;
  const std::string a = files.add(temp_path("a")), b = files.add(temp_path("b"));
  const std::string perturbed = files.add(temp_path("perturbed"));
  TestState{}.write(a);
  TestState{}.write(b);
  TestState planted;
  planted.abundance(3, 2) *= 1.0 + 1e-11;
  planted.write(perturbed);
  std::string output;

  EXPECT_EQ(run_executable(quoted(a) + " " + quoted(b), output), 0) << output;
  EXPECT_TRUE(contains(output, "verdict: match")) << output;

  const std::string json = files.add(temp_path("report") + ".json");
  EXPECT_EQ(run_executable(quoted(a) + " " + quoted(perturbed) + " --json " + quoted(json), output), 1) << output;
  EXPECT_TRUE(contains(output, "verdict: differ")) << output;
  std::ifstream json_file(json);
  ASSERT_TRUE(json_file.good()) << json;
  std::stringstream json_text;
  json_text << json_file.rdbuf();
  EXPECT_TRUE(contains(json_text.str(), "\"verdict\": \"differ\"")) << json_text.str();
  EXPECT_TRUE(contains(json_text.str(), "\"worst_zone\": 3")) << json_text.str();
  EXPECT_TRUE(contains(json_text.str(), "\"worst_species\": \"c12\"")) << json_text.str();
  EXPECT_EQ(run_executable(quoted(a) + " " + quoted(perturbed) + " --tolerance abundances=1e-10 --quiet", output), 0)
      << output;
  EXPECT_TRUE(output.empty()) << output;
  EXPECT_EQ(run_executable(quoted(a) + " " + quoted(perturbed) + " --json -", output), 1) << output;
  EXPECT_EQ(output.rfind("{", 0), 0u) << output;  // JSON only on stdout

  const std::string missing = temp_path("no_such_file");
  EXPECT_EQ(run_executable(quoted(a) + " " + quoted(missing), output), 2) << output;
  EXPECT_TRUE(contains(output, missing)) << output;
  const std::string text_file = files.add(temp_path("text"));
  std::ofstream(text_file) << "just text\n";
  EXPECT_EQ(run_executable(quoted(text_file) + " " + quoted(a), output), 2) << output;
  EXPECT_TRUE(contains(output, text_file)) << output;
  EXPECT_TRUE(contains(output, "not an HDF5 file")) << output;
  EXPECT_FALSE(contains(output, "HDF5-DIAG")) << output;  // HDF5's own error stack is silenced

  EXPECT_EQ(run_executable(quoted(a) + " " + quoted(b) + " --tolerance pressure=1e-6", output), 2) << output;
  EXPECT_TRUE(contains(output, "unknown dataset 'pressure'")) << output;
  EXPECT_EQ(run_executable(quoted(a) + " " + quoted(b) + " --rtol abc", output), 2) << output;
  EXPECT_TRUE(contains(output, "'abc' is not a number")) << output;
  EXPECT_EQ(run_executable(quoted(a) + " " + quoted(b) + " --bogus", output), 2) << output;
  EXPECT_TRUE(contains(output, "unknown option '--bogus'")) << output;
}

}  // namespace
}  // namespace zoneode::compare
