// zoneode-compare against planted truth: files written here with known differences (values,
// tolerances, NaN and infinities, names and older file versions; test_compare_files.cpp: structure,
// attributes, the command line and the executable).
#include <gtest/gtest.h>

#include "compare_testing.hpp"

namespace zoneode::compare {
namespace {

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

}  // namespace
}  // namespace zoneode::compare
