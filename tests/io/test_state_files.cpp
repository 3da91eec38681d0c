// State files: written values read back bit for bit, and the run's checks on HDF5 inputs,
// restarts and existing outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli/cli.hpp"
#include "common/constants.hpp"
#include "common/errors.hpp"
#include "io/hdf5_handle.hpp"
#include "io/hdf5_state.hpp"
#include "io/state_layout.hpp"
#include "io_test.hpp"
#include "network/analytic.hpp"

namespace zoneode {
namespace {

namespace fs = std::filesystem;
using zoneode::testing::mpi;

class StateFiles : public testing::FolderTest {
 protected:
  // A file of `zones` zones of the 3-member decay chain, with values that differ in every bit.
  void write_file(const std::string& file, std::int64_t zones, double bad_temperature = 0.0) {
    const Network network = decay_chain_network({3.0, 0.7});
    const int S = network.species_count();
    abundances_.resize(zones * S);
    temperature_.resize(zones);
    density_.resize(zones);
    energy_.resize(zones);
    steps_.resize(zones);
    status_.resize(zones);
    time_reached_.resize(zones);
    for (std::int64_t z = 0; z < zones; ++z) {
      for (int i = 0; i < S; ++i) abundances_[z * S + i] = std::ldexp(1.0 + 0.1234567 * z + i / 7.0, -7 - 3 * i);
      // Scaled to sum A*Y = 1 (A = 100 for every member): zones read from a file are checked for it.
      double mass_sum = 0.0;
      for (int i = 0; i < S; ++i) mass_sum += network.species[i].A * abundances_[z * S + i];
      for (int i = 0; i < S; ++i) abundances_[z * S + i] /= mass_sum;
      temperature_[z] = 1.0 + z / 3.0;
      density_[z] = 1e5 * (z + 1);
      energy_[z] = -1e10 * z;
      steps_[z] = 100 + z;
      status_[z] = static_cast<std::int32_t>(z % 3);
      time_reached_[z] = std::ldexp(1.0 + 0.7654321 * z, -4);
    }
    if (bad_temperature != 0.0) temperature_[1] = bad_temperature;
    LocalState state{zones, {0, zones}, abundances_.data(), temperature_.data(), density_.data(), energy_.data(),
                     steps_.data(), status_.data(), time_reached_.data()};
    StateAttributes attributes;
    attributes.time = 0.5;
    attributes.outer_step = 4;
    attributes.network_hash = "0123456789abcdef";
    write_state_file(*mpi, file, network, state, attributes);
  }

  // Runs zoneode on a deck text with arguments; returns the exit status and captures stderr.
  int run(const std::string& deck_text, std::vector<std::string> arguments, std::string* errors = nullptr) {
    const std::string deck = path("deck.yaml");
    std::ofstream(deck) << deck_text;
    arguments.insert(arguments.begin(), deck);
    arguments.push_back("--quiet");
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    const int status = run_command(parse_command_line(arguments), *mpi);
    ::testing::internal::GetCapturedStdout();
    const std::string captured = ::testing::internal::GetCapturedStderr();
    if (errors) *errors = captured;
    return status;
  }

  std::string deck(const std::string& zones_section) const {
    return "network: {source: decay_chain, rates: [3.0, 0.7]}\n" + zones_section +
           "integrator: {start_time: 1.0e-6, end_time: 0.1}\nsteps: {count: 3}\noutput: {prefix: " +
           path("out") + "}\n";
  }
  const std::string field_zones =
      "zones:\n  count: 5\n  temperature: {profile: constant, value: 1.0}\n"
      "  density: {profile: constant, value: 1.0}\n  composition: {x0: 1.0}\n";

  // Rewrites a state file with the version-1 names, as zoneode wrote them before format version 2.
  static void downgrade_to_version_1(const std::string& file) {
    namespace layout = state_layout;
    const Hdf5Handle h5 = checked(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, "open " + file);
    ASSERT_GE(H5Lmove(h5, layout::integrator_steps.name, h5, layout::integrator_steps.old_name, H5P_DEFAULT, H5P_DEFAULT), 0);
    ASSERT_GE(H5Arename(h5, layout::outer_step.name, layout::outer_step.old_name), 0);
    ASSERT_GE(H5Arename(h5, layout::integrate_seconds.name, layout::integrate_seconds.old_name), 0);
    ASSERT_GE(H5Ldelete(h5, layout::time_reached.name, H5P_DEFAULT), 0);  // added in version 3
    const std::int32_t version = 1;
    const Hdf5Handle attribute = checked(H5Aopen(h5, layout::version.name, H5P_DEFAULT), H5Aclose, "format_version");
    ASSERT_GE(H5Awrite(attribute, H5T_NATIVE_INT32, &version), 0);
  }

  // Replaces /species/name by variable-length UTF-8 strings, as h5py writes a list of str.
  static void rewrite_names_as_h5py(const std::string& file, const std::vector<std::string>& names) {
    const Hdf5Handle h5 = checked(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, "open " + file);
    ASSERT_GE(H5Ldelete(h5, state_layout::species_name.name, H5P_DEFAULT), 0);
    const Hdf5Handle type = checked(H5Tcopy(H5T_C_S1), H5Tclose, "type");
    ASSERT_GE(H5Tset_size(type, H5T_VARIABLE), 0);
    ASSERT_GE(H5Tset_cset(type, H5T_CSET_UTF8), 0);
    const hsize_t count = names.size();
    const Hdf5Handle space = checked(H5Screate_simple(1, &count, nullptr), H5Sclose, "space");
    const Hdf5Handle dataset = checked(H5Dcreate2(h5, state_layout::species_name.name, type, space, H5P_DEFAULT,
                                                  H5P_DEFAULT, H5P_DEFAULT), H5Dclose, "create names");
    std::vector<const char*> pointers;
    for (const auto& name : names) pointers.push_back(name.c_str());
    ASSERT_GE(H5Dwrite(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()), 0);
  }

  std::vector<double> abundances_, temperature_, density_, energy_;
  std::vector<std::int64_t> steps_;
  std::vector<std::int32_t> status_;
  std::vector<double> time_reached_;
};

// Every value of a float64 per-zone dataset of a state file.
std::vector<double> read_zone_doubles(const std::string& file, const state_layout::Dataset& spec, std::size_t zones) {
  const Hdf5Handle h5 = checked(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open " + file);
  const Hdf5Handle dataset = checked(H5Dopen2(h5, spec.name, H5P_DEFAULT), H5Dclose, std::string("open ") + spec.name);
  std::vector<double> values(zones);
  check(H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), spec.name);
  return values;
}

TEST_F(StateFiles, WrittenValuesReadBackBitForBit) {
  write_file(path("state.h5"), 6);
  EXPECT_FALSE(fs::exists(path("state.h5.partial")));
  const StateFileInfo info = read_state_info(path("state.h5"));
  EXPECT_EQ(info.zones, 6);
  EXPECT_EQ(info.species, (std::vector<std::string>{"x0", "x1", "x2"}));
  EXPECT_EQ(info.outer_step, 4);
  EXPECT_EQ(info.time, 0.5);
  EXPECT_EQ(info.network_hash, "0123456789abcdef");
  // A block from the middle.
  const ZoneBlock block{2, 3};
  std::vector<double> T(3), rho(3), Y(9);
  read_state_block(path("state.h5"), 6, block, 3, T.data(), rho.data(), Y.data());
  EXPECT_EQ(std::memcmp(T.data(), temperature_.data() + 2, 3 * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(rho.data(), density_.data() + 2, 3 * sizeof(double)), 0);
  const std::vector<double> reached = read_zone_doubles(path("state.h5"), state_layout::time_reached, 6);
  EXPECT_EQ(std::memcmp(reached.data(), time_reached_.data(), 6 * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(Y.data(), abundances_.data() + 6, 9 * sizeof(double)), 0);
}

TEST_F(StateFiles, FailedWriteLeavesNoFile) {
  EXPECT_THROW(write_file(path("missing/state.h5"), 4), std::runtime_error);
  EXPECT_FALSE(fs::exists(path("missing/state.h5")));
  EXPECT_FALSE(fs::exists(path("missing/state.h5.partial")));
}

TEST_F(StateFiles, FailedWriteLeavesThePreviousFileIntact) {
  write_file(path("state.h5"), 4);
  const auto size = fs::file_size(path("state.h5"));
  fs::create_directories(path("state.h5.partial/blocker"));  // HDF5 cannot create the partial file
  EXPECT_THROW(write_file(path("state.h5"), 6), std::runtime_error);
  EXPECT_EQ(fs::file_size(path("state.h5")), size);
  EXPECT_EQ(read_state_info(path("state.h5")).zones, 4);
}

TEST_F(StateFiles, MissingAndNonHdf5FilesAreInputErrors) {
  EXPECT_THROW(read_state_info(path("none.h5")), InputError);
  std::ofstream(path("text.h5")) << "not hdf5\n";
  try {
    read_state_info(path("text.h5"));
    FAIL();
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("text.h5' as HDF5"), std::string::npos) << error.what();
  }
}

TEST_F(StateFiles, ZonesFromFileAreChecked) {
  std::string errors;
  // Missing file.
  EXPECT_EQ(run(deck("zones: {from_file: " + path("none.h5") + "}\n"), {}, &errors), exit_input_error);
  EXPECT_NE(errors.find("zones.from_file: expected an existing file, got '" + path("none.h5") + "'"),
            std::string::npos)
      << errors;
  // A NaN temperature in zone 1.
  write_file(path("nan.h5"), 4, NAN);
  EXPECT_EQ(run(deck("zones: {from_file: " + path("nan.h5") + "}\n"), {}, &errors), exit_input_error);
  EXPECT_NE(errors.find("nan.h5: zone 1: /temperature: expected a finite T9 > 0, got nan"), std::string::npos) << errors;
  // A zone count that the file does not hold.
  write_file(path("good.h5"), 4);
  EXPECT_EQ(run(deck("zones: {from_file: " + path("good.h5") + ", count: 5}\n"), {}, &errors), exit_input_error);
  EXPECT_NE(errors.find("holds 4 zones, expected 5"), std::string::npos) << errors;
  // Species of another network.
  const std::string other = "network: {source: reversible_pair, rates: [1.0, 2.0]}\nzones: {from_file: " +
                            path("good.h5") + "}\nintegrator: {end_time: 1.0}\n";
  EXPECT_EQ(run(other, {}, &errors), exit_input_error);
  EXPECT_NE(errors.find("holds 3 species, expected the network's 2"), std::string::npos) << errors;
  // Fields and from_file together.
  EXPECT_EQ(run(deck("zones: {from_file: " + path("good.h5") + ", seed: 3}\n"), {}, &errors), exit_input_error);
  EXPECT_NE(errors.find("zones.seed: expected no seed when zones come from_file"), std::string::npos) << errors;
  // A good file runs.
  EXPECT_EQ(run(deck("zones: {from_file: " + path("good.h5") + "}\n"), {}, &errors), exit_success) << errors;
  EXPECT_TRUE(fs::exists(path("out_step000003.h5")));
}

TEST_F(StateFiles, ExistingOutputsAreNotOverwrittenWithoutForce) {
  std::string errors;
  ASSERT_EQ(run(deck(field_zones), {}, &errors), exit_success) << errors;
  const auto written = fs::last_write_time(path("out_step000003.h5"));
  const auto size = fs::file_size(path("out_step000003.h5"));
  EXPECT_EQ(run(deck(field_zones), {}, &errors), exit_input_error);
  EXPECT_NE(errors.find("out_step000001.h5' exists; use --force to overwrite it"), std::string::npos) << errors;
  EXPECT_EQ(fs::last_write_time(path("out_step000003.h5")), written);
  EXPECT_EQ(fs::file_size(path("out_step000003.h5")), size);
  EXPECT_EQ(run(deck(field_zones), {"--force"}, &errors), exit_success) << errors;
}

// A missing output folder is created before any work (issue 6: it used to fail with no reason);
// one that cannot be created is an input error that says why (tests/cli_end_to_end.sh).
TEST_F(StateFiles, OutputIntoAMissingFolderCreatesIt) {
  std::string errors;
  const std::string text = deck(field_zones);
  const std::string nested = text.substr(0, text.find("output:")) + "output: {prefix: " + path("no/such/out") + "}\n";
  EXPECT_EQ(run(nested, {}, &errors), exit_success) << errors;
  EXPECT_TRUE(fs::exists(path("no/such/out_step000003.h5")));
}

TEST_F(StateFiles, RestartIsCheckedAgainstTheDeck) {
  std::string errors;
  write_file(path("foreign.h5"), 5);  // the right species, another network hash
  EXPECT_EQ(run(deck(field_zones), {"--restart", path("foreign.h5")}, &errors), exit_input_error);
  EXPECT_NE(errors.find("was written with network 0123456789abcdef, expected this deck's"), std::string::npos) << errors;
  ASSERT_EQ(run(deck(field_zones), {}, &errors), exit_success) << errors;
  // The last step cannot be continued with steps.count = 3.
  EXPECT_EQ(run(deck(field_zones), {"--restart", path("out_step000003.h5"), "--force"}, &errors), exit_input_error);
  EXPECT_NE(errors.find("is step 3, expected a step in [0, steps.count = 3)"), std::string::npos) << errors;
}

TEST_F(StateFiles, Version1FilesAreReadForRestartAndFromFile) {
  std::string errors;
  ASSERT_EQ(run(deck(field_zones), {}, &errors), exit_success) << errors;
  downgrade_to_version_1(path("out_step000001.h5"));
  const StateFileInfo info = read_state_info(path("out_step000001.h5"));
  EXPECT_EQ(info.outer_step, 1);
  EXPECT_EQ(info.zones, 5);
  EXPECT_EQ(run(deck(field_zones), {"--restart", path("out_step000001.h5"), "--force"}, &errors), exit_success)
      << errors;
  downgrade_to_version_1(path("out_step000003.h5"));
  EXPECT_EQ(run(deck(field_zones), {"--restart", path("out_step000003.h5"), "--force"}, &errors), exit_input_error);
  EXPECT_NE(errors.find("is step 3, expected a step in [0, steps.count = 3)"), std::string::npos) << errors;

  write_file(path("old.h5"), 4);
  downgrade_to_version_1(path("old.h5"));
  EXPECT_EQ(run(deck("zones: {from_file: " + path("old.h5") + "}\n"), {"--force"}, &errors), exit_success) << errors;
}

TEST_F(StateFiles, Utf8VariableLengthSpeciesNamesAreRead) {
  write_file(path("h5py.h5"), 4);
  rewrite_names_as_h5py(path("h5py.h5"), {"x0", "x1", "x2"});
  EXPECT_EQ(read_state_info(path("h5py.h5")).species, (std::vector<std::string>{"x0", "x1", "x2"}));
  std::string errors;
  EXPECT_EQ(run(deck("zones: {from_file: " + path("h5py.h5") + "}\n"), {}, &errors), exit_success) << errors;
  rewrite_names_as_h5py(path("h5py.h5"), {"x0", "x2", "x1"});
  EXPECT_EQ(run(deck("zones: {from_file: " + path("h5py.h5") + "}\n"), {"--force"}, &errors), exit_input_error);
  EXPECT_NE(errors.find("species 1 is 'x2', expected 'x1'"), std::string::npos) << errors;
}

// A zone stopped by max_steps: the file says how far it got, and its energy rate is the mean over
// that interval. x0 -> x1 -> x2 (3/s, 0.7/s), 1 MeV per decay, geometric dt = 0.01 t from 1e-6 s:
// k dt < 1 throughout, so every step is forward Euler, which counts decays exactly: the energy
// released is N_A MeV (Y1 + 2 Y2) of the written abundances.
TEST_F(StateFiles, FailedZonesSayHowFarTheyGot) {
  const std::string zones = "zones:\n  count: 2\n  temperature: {profile: constant, value: 1.0}\n"
                            "  density: {profile: constant, value: 1.0}\n  composition: {x0: 1.0}\n";
  const std::string base = "network: {source: decay_chain, rates: [3.0, 0.7]}\n" + zones +
                            "integrator: {schedule: geometric, dt_fraction: 0.01, start_time: 1.0e-6, end_time: 1.0, "
                            "max_steps: ";
  std::string errors;
  for (const int max_steps : {1000, 2000}) {
    const std::string prefix = path("steps" + std::to_string(max_steps));
    const int status = run(base + std::to_string(max_steps) + "}\noutput: {prefix: " + prefix + "}\n", {}, &errors);
    // ln(1e6) / ln(1.01) = 1388.5 steps reach end_time.
    const bool fails = max_steps < 1389;
    ASSERT_EQ(status, fails ? exit_zones_failed : exit_success) << errors;
    const std::string file = prefix + "_step000001.h5";
    const std::vector<double> reached = read_zone_doubles(file, state_layout::time_reached, 2);
    const std::vector<double> energy = read_zone_doubles(file, state_layout::energy_generation_rate, 2);
    std::vector<double> T(2), rho(2), Y(6);
    read_state_block(file, 2, {0, 2}, 3, T.data(), rho.data(), Y.data());
    for (int z = 0; z < 2; ++z) {
      if (fails) {
        EXPECT_NEAR(reached[z], 1e-6 * std::pow(1.01, 1000), 1e-12 * reached[z]);
      } else {
        EXPECT_EQ(reached[z], 1.0);  // exactly end_time
      }
      const double decays = Y[3 * z + 1] + 2 * Y[3 * z + 2];  // [mol/g]
      const double expected = constants::avogadro * constants::mev_to_erg * decays / (reached[z] - 1e-6);
      EXPECT_NEAR(energy[z] / expected, 1.0, 1e-9) << "max_steps " << max_steps;
    }
  }
  // The initial state (step 0) is at start_time.
  ASSERT_EQ(run(base + "10}\noutput: {prefix: " + path("initial") + ", initial: true}\n", {"--force"}, &errors),
            exit_zones_failed) << errors;
  EXPECT_EQ(read_zone_doubles(path("initial_step000000.h5"), state_layout::time_reached, 2)[0], 1e-6);
}

}  // namespace
}  // namespace zoneode
