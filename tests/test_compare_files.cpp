// zoneode-compare on files that differ in structure (datasets missing, shapes, types), in attributes,
// and through its command line and executable (exit codes, messages, JSON).
#include <gtest/gtest.h>

#include "compare_testing.hpp"

namespace zoneode::compare {
namespace {

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
