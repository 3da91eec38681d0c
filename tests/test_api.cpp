// The library's C API (include/zoneode/zoneode.h, issue 41): the same zones burned through it, through
// the CPU backend directly and by the program give bitwise the same abundances and results; every
// argument's bad value returns an error code and a message, and nothing exits or prints.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backends/backend.hpp"
#include "common/fnv1a.hpp"
#include "cli/report.hpp"
#include "common/numbers.hpp"
#include "deck/deck.hpp"
#include "network/compact.hpp"
#include "network/load.hpp"
#include "zoneode/zoneode.h"
#include "zones/zones.hpp"

namespace zoneode {
namespace {

const std::string source_dir = ZONEODE_SOURCE_DIR;

// A deck's zones as the program builds them (zones.cpp), in caller-owned arrays.
struct Zones {
  std::int64_t count = 0;
  int species = 0;
  std::vector<double> T9, rho, Y;
};

Zones deck_zones(const std::string& deck_file, const std::vector<std::string>& overrides = {}) {
  const Deck deck = load_deck(deck_file, overrides);
  const Network network = load_network(deck.network);
  const ZoneBuilder builder(deck.zones, network);
  Zones zones;
  zones.count = deck.zones.count;
  zones.species = network.species_count();
  for (std::int64_t zone = 0; zone < zones.count; ++zone) {
    zones.T9.push_back(builder.temperature(zone));
    zones.rho.push_back(builder.density(zone));
    zones.Y.insert(zones.Y.end(), builder.abundances().begin(), builder.abundances().end());
  }
  return zones;
}

// The same zones through the CPU backend, as the program's run loop drives it (one batch).
std::vector<ZoneResult> burn_with_backend(const std::string& deck_file, const std::vector<std::string>& overrides,
                                          Zones& zones) {
  const Deck deck = load_deck(deck_file, overrides);
  const Network network = load_network(deck.network);
  const CompactNetwork compact(network, deck.physics);
  std::unique_ptr<Backend> backend =
      make_backend({deck.integrator.method, BackendKind::cpu, deck.run.kernel}, {deck.run.threads, 0, 0, {}, 0});
  backend->prepare(compact, deck.integrator);
  std::vector<ZoneResult> results(zones.count);
  const ZoneSpan span{zones.count, zones.species, zones.T9.data(), zones.rho.data(), zones.Y.data(), results.data(), false};
  backend->upload(span);
  backend->integrate();
  backend->download(span);
  return results;
}

std::vector<const char*> pointers(const std::vector<std::string>& texts) {
  std::vector<const char*> list;
  for (const std::string& text : texts) list.push_back(text.c_str());
  return list;
}

zoneode_burner* create_or_fail(const std::string& deck_file, const std::vector<std::string>& overrides = {}) {
  const std::vector<const char*> list = pointers(overrides);
  zoneode_burner* burner = nullptr;
  const int code = zoneode_burner_create_from_file(deck_file.c_str(), list.data(), static_cast<int>(list.size()), &burner);
  EXPECT_EQ(code, ZONEODE_OK) << zoneode_last_error();
  return burner;
}

// The deck's burn time: end_time - start_time, which the API adds back to start_time (exactly, for
// the decks used here: checked).
double deck_dt(const std::string& deck_file, const std::vector<std::string>& overrides) {
  const Deck deck = load_deck(deck_file, overrides);
  const double dt = deck.integrator.end_time - deck.integrator.start_time;
  EXPECT_EQ(deck.integrator.start_time + dt, deck.integrator.end_time);
  return dt;
}

struct Case {
  const char* name;
  const char* deck;
  std::vector<std::string> overrides;
};

class ApiMatchesBackend : public ::testing::TestWithParam<Case> {};

TEST_P(ApiMatchesBackend, BitwiseSameAbundancesAndResults) {
  const Case& c = GetParam();
  const std::string deck = source_dir + "/" + c.deck;
  Zones through_backend = deck_zones(deck, c.overrides);
  Zones through_api = through_backend;
  const std::vector<ZoneResult> expected = burn_with_backend(deck, c.overrides, through_backend);

  zoneode_burner* burner = create_or_fail(deck, c.overrides);
  ASSERT_NE(burner, nullptr);
  std::vector<zoneode_zone_result> results(through_api.count);
  const double dt = deck_dt(deck, c.overrides);
  const int code = zoneode_burn(burner, through_api.count, through_api.species, dt, through_api.T9.data(),
                                through_api.rho.data(), through_api.Y.data(), results.data(), ZONEODE_HOST_MEMORY);
  EXPECT_EQ(code, ZONEODE_OK) << zoneode_last_error();
  // Bitwise: memcmp, not a tolerance (NaN-safe and -0.0-aware).
  ASSERT_EQ(through_api.Y.size(), through_backend.Y.size());
  EXPECT_EQ(std::memcmp(through_api.Y.data(), through_backend.Y.data(), through_api.Y.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(through_api.T9.data(), through_backend.T9.data(), through_api.T9.size() * sizeof(double)), 0);
  std::int64_t work = 0;
  for (std::int64_t zone = 0; zone < through_api.count; ++zone) {
    const ZoneResult& want = expected[zone];
    const zoneode_zone_result& got = results[zone];
    EXPECT_EQ(got.status, want.status) << zone;
    EXPECT_EQ(got.steps, want.steps) << zone;
    EXPECT_EQ(got.rejected_steps, want.rejected_steps) << zone;
    EXPECT_EQ(got.rhs_evaluations, want.rhs_evaluations) << zone;
    EXPECT_EQ(got.jacobian_evaluations, want.jacobian_evaluations) << zone;
    EXPECT_EQ(got.factorizations, want.factorizations) << zone;
    EXPECT_EQ(std::memcmp(&got.energy_rate, &want.energy_generation_rate, sizeof(double)), 0) << zone;
    EXPECT_EQ(std::memcmp(&got.final_T9, &want.final_T9, sizeof(double)), 0) << zone;
    EXPECT_EQ(got.time_burned, want.time_reached - load_deck(deck, c.overrides).integrator.start_time) << zone;
    EXPECT_EQ(got.energy_released, got.energy_rate * got.time_burned) << zone;
    work += got.steps;
  }
  EXPECT_GT(work, through_api.count);  // something was integrated
  zoneode_burner_destroy(burner);
}

INSTANTIATE_TEST_SUITE_P(
    Decks, ApiMatchesBackend,
    ::testing::Values(Case{"quick_asymptotic", "inputs/quick.yaml", {"zones.count=64"}},
                      Case{"quick_qss2", "inputs/quick.yaml", {"zones.count=16", "integrator.method=qss2",
                                                               "integrator.schedule=adaptive"}},
                      Case{"quick_implicit_physics", "inputs/quick.yaml",
                           {"zones.count=32", "integrator.method=implicit", "integrator.schedule=adaptive",
                            "physics.self_heating=true", "physics.screening=weak", "physics.neutrino_losses=true"}},
                      Case{"decay_chain", "inputs/decay_chain.yaml", {}}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// The program's result hash (src/cli/run.cpp, zone_hash), computed from the API's output.
std::uint64_t program_hash(const Zones& zones, const std::vector<zoneode_zone_result>& results) {
  std::uint64_t total = 0;
  for (std::int64_t zone = 0; zone < zones.count; ++zone) {
    Fnv1a hash;
    hash.bytes(zones.Y.data() + zone * zones.species, zones.species * sizeof(double));
    hash.add(static_cast<std::int32_t>(results[zone].status));
    hash.add(static_cast<std::int64_t>(results[zone].steps));
    hash.add(results[zone].energy_rate);
    hash.add(static_cast<std::int64_t>(zone));
    total += hash.value;
  }
  return total;
}

// The program's summary's result_hash for a deck (the program run by the test, not a number written
// here, so that a change of the physics moves both).
std::string program_result_hash(const std::string& deck) {
  const std::string program = std::string(ZONEODE_BINARY_DIR) + "/zoneode";
  const std::string summary = testing::TempDir() + "zoneode_api_summary.json";
  std::filesystem::remove(summary);
  const std::string command = program + " " + deck + " --quiet --set run.summary=" + summary + " > /dev/null 2>&1";
  if (std::system(command.c_str()) != 0) return "the program failed: " + command;
  std::ifstream in(summary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  const std::string key = "\"result_hash\": \"";
  const auto at = json.find(key);
  if (at == std::string::npos) return "no result_hash in " + summary;
  return json.substr(at + key.size(), 16);
}

TEST(Api, SameResultHashAsTheProgram) {
  if (!std::filesystem::exists(std::string(ZONEODE_BINARY_DIR) + "/zoneode")) GTEST_SKIP() << "no zoneode program built";
  for (const char* name : {"inputs/quick.yaml", "inputs/decay_chain.yaml"}) {
    const std::string deck = source_dir + "/" + name;
    Zones zones = deck_zones(deck);
    zoneode_burner* burner = create_or_fail(deck);
    ASSERT_NE(burner, nullptr);
    std::vector<zoneode_zone_result> results(zones.count);
    ASSERT_EQ(zoneode_burn(burner, zones.count, zones.species, deck_dt(deck, {}), zones.T9.data(), zones.rho.data(),
                           zones.Y.data(), results.data(), ZONEODE_HOST_MEMORY),
              ZONEODE_OK)
        << zoneode_last_error();
    zoneode_burner_destroy(burner);
    EXPECT_EQ(hex64(program_hash(zones, results)), program_result_hash(deck)) << name;
  }
}

// Zones burned in pieces, in reverse order, and by two burners on two threads at once: the same bits.
TEST(Api, ResultsIndependentOfBatchOrderAndThreads) {
  const std::string deck = source_dir + "/inputs/quick.yaml";
  const std::vector<std::string> overrides = {"integrator.method=implicit", "integrator.schedule=adaptive"};
  const Zones initial = deck_zones(deck, {"zones.count=24"});
  const double dt = 1e-4;

  Zones whole = initial;
  zoneode_burner* burner = create_or_fail(deck, overrides);
  ASSERT_NE(burner, nullptr);
  ASSERT_EQ(zoneode_burn(burner, whole.count, whole.species, dt, whole.T9.data(), whole.rho.data(), whole.Y.data(),
                         nullptr, ZONEODE_HOST_MEMORY),
            ZONEODE_OK);

  Zones pieces = initial;
  for (std::int64_t zone = pieces.count - 1; zone >= 0; --zone) {  // one zone per burn, last first
    ASSERT_EQ(zoneode_burn(burner, 1, pieces.species, dt, &pieces.T9[zone], &pieces.rho[zone],
                           &pieces.Y[zone * pieces.species], nullptr, ZONEODE_HOST_MEMORY),
              ZONEODE_OK);
  }
  EXPECT_EQ(std::memcmp(pieces.Y.data(), whole.Y.data(), whole.Y.size() * sizeof(double)), 0);
  zoneode_burner_destroy(burner);

  Zones threaded[2] = {initial, initial};
  int codes[2] = {-100, -100};
  std::vector<std::thread> threads;
  for (int k = 0; k < 2; ++k) {
    threads.emplace_back([&, k] {
      std::vector<std::string> mine = overrides;
      mine.push_back("run.threads=1");
      zoneode_burner* own = create_or_fail(deck, mine);
      if (own == nullptr) return;
      Zones& zones = threaded[k];
      codes[k] = zoneode_burn(own, zones.count, zones.species, dt, zones.T9.data(), zones.rho.data(), zones.Y.data(),
                              nullptr, ZONEODE_HOST_MEMORY);
      zoneode_burner_destroy(own);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(codes[k], ZONEODE_OK);
    EXPECT_EQ(std::memcmp(threaded[k].Y.data(), whole.Y.data(), whole.Y.size() * sizeof(double)), 0) << k;
  }
}

// A burn over dt, then another from where it ended: the burner re-times its backend between burns
// of different dt, and equals a fresh burner made for that dt.
TEST(Api, SuccessiveBurnsOfDifferentDt) {
  const std::string deck = source_dir + "/inputs/quick.yaml";
  const Zones initial = deck_zones(deck, {"zones.count=8"});
  Zones reused = initial, fresh = initial;
  zoneode_burner* burner = create_or_fail(deck);
  ASSERT_NE(burner, nullptr);
  for (double dt : {1e-5, 3e-4}) {
    ASSERT_EQ(zoneode_burn(burner, reused.count, reused.species, dt, reused.T9.data(), reused.rho.data(),
                           reused.Y.data(), nullptr, ZONEODE_HOST_MEMORY),
              ZONEODE_OK);
    zoneode_burner* once = create_or_fail(deck);
    ASSERT_NE(once, nullptr);
    ASSERT_EQ(zoneode_burn(once, fresh.count, fresh.species, dt, fresh.T9.data(), fresh.rho.data(), fresh.Y.data(),
                           nullptr, ZONEODE_HOST_MEMORY),
              ZONEODE_OK);
    zoneode_burner_destroy(once);
    EXPECT_EQ(std::memcmp(reused.Y.data(), fresh.Y.data(), fresh.Y.size() * sizeof(double)), 0) << dt;
  }
  // And the two burns differ from one over 1e-5 alone (the second burn did something).
  Zones single = initial;
  ASSERT_EQ(zoneode_burn(burner, single.count, single.species, 1e-5, single.T9.data(), single.rho.data(),
                         single.Y.data(), nullptr, ZONEODE_HOST_MEMORY),
            ZONEODE_OK);
  EXPECT_NE(std::memcmp(reused.Y.data(), single.Y.data(), single.Y.size() * sizeof(double)), 0);
  zoneode_burner_destroy(burner);
}

// A zone with bad input fails alone: the others are bitwise those of a burn without it.
TEST(Api, OneFailingZoneLeavesTheOthers) {
  const std::string deck = source_dir + "/inputs/quick.yaml";
  const Zones initial = deck_zones(deck, {"zones.count=6"});
  Zones clean = initial, faulty = initial;
  faulty.T9[2] = std::numeric_limits<double>::quiet_NaN();
  zoneode_burner* burner = create_or_fail(deck);
  ASSERT_NE(burner, nullptr);
  std::vector<zoneode_zone_result> results(initial.count);
  ASSERT_EQ(zoneode_burn(burner, clean.count, clean.species, 1e-4, clean.T9.data(), clean.rho.data(), clean.Y.data(),
                         nullptr, ZONEODE_HOST_MEMORY),
            ZONEODE_OK);
  EXPECT_EQ(zoneode_burn(burner, faulty.count, faulty.species, 1e-4, faulty.T9.data(), faulty.rho.data(),
                         faulty.Y.data(), results.data(), ZONEODE_HOST_MEMORY),
            ZONEODE_ZONES_FAILED);
  EXPECT_NE(std::string(zoneode_last_error()).find("1 of 6 zone(s) failed"), std::string::npos) << zoneode_last_error();
  EXPECT_NE(std::string(zoneode_last_error()).find("zone 2, bad_input"), std::string::npos) << zoneode_last_error();
  for (std::int64_t zone = 0; zone < initial.count; ++zone) {
    EXPECT_EQ(results[zone].status, zone == 2 ? ZONEODE_ZONE_BAD_INPUT : ZONEODE_ZONE_OK) << zone;
    const std::size_t at = zone * initial.species, bytes = initial.species * sizeof(double);
    if (zone == 2)
      EXPECT_EQ(std::memcmp(faulty.Y.data() + at, initial.Y.data() + at, bytes), 0);  // kept its input state
    else
      EXPECT_EQ(std::memcmp(faulty.Y.data() + at, clean.Y.data() + at, bytes), 0) << zone;
  }
  zoneode_burner_destroy(burner);
}

TEST(Api, SpeciesNamesNucleonsAndDeckAbundances) {
  zoneode_burner* burner = create_or_fail(source_dir + "/inputs/quick.yaml");
  ASSERT_NE(burner, nullptr);
  int species = 0;
  ASSERT_EQ(zoneode_burner_species_count(burner, &species), ZONEODE_OK);
  EXPECT_EQ(species, 16);
  int he4 = -1, c12 = -1;
  ASSERT_EQ(zoneode_burner_species_index(burner, "he4", &he4), ZONEODE_OK);
  ASSERT_EQ(zoneode_burner_species_index(burner, "c12", &c12), ZONEODE_OK);
  const char* name = nullptr;
  ASSERT_EQ(zoneode_burner_species_name(burner, he4, &name), ZONEODE_OK);
  EXPECT_STREQ(name, "he4");
  int A = 0, Z = 0;
  ASSERT_EQ(zoneode_burner_species_nucleons(burner, c12, &A, &Z), ZONEODE_OK);
  EXPECT_EQ(A, 12);
  EXPECT_EQ(Z, 6);
  // quick.yaml: X(he4) = 0.9, X(c12) = 0.1, so Y = X / A.
  std::vector<double> Y(species, -1.0);
  ASSERT_EQ(zoneode_burner_deck_abundances(burner, species, Y.data()), ZONEODE_OK);
  EXPECT_DOUBLE_EQ(Y[he4], 0.9 / 4);
  EXPECT_DOUBLE_EQ(Y[c12], 0.1 / 12);
  const char* text = nullptr;
  ASSERT_EQ(zoneode_burner_deck(burner, &text), ZONEODE_OK);
  EXPECT_NE(std::string(text).find("preset: s16"), std::string::npos) << text;
  ASSERT_EQ(zoneode_burner_backend(burner, &text), ZONEODE_OK);
  EXPECT_EQ(std::string(text).rfind("cpu: ", 0), 0u) << text;
  zoneode_burner_destroy(burner);
  EXPECT_EQ(zoneode_api_version(), ZONEODE_API_VERSION);
  EXPECT_STREQ(zoneode_zone_status_name(ZONEODE_ZONE_MAX_STEPS), "max_steps");
}

// run.threads is the burner's own: the caller's OpenMP thread count stays as it was.
TEST(Api, LeavesTheCallersOpenMpSettings) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(3);
  zoneode_burner* burner = create_or_fail(source_dir + "/inputs/quick.yaml", {"run.threads=1"});
  EXPECT_EQ(omp_get_max_threads(), 3);
  const char* described = nullptr;
  ASSERT_EQ(zoneode_burner_backend(burner, &described), ZONEODE_OK);
  EXPECT_NE(std::string(described).find("1 OpenMP thread(s)"), std::string::npos) << described;
  zoneode_burner_destroy(burner);
  omp_set_num_threads(before);
}

// Deck text with no zones section and no integrator.end_time (a burner needs neither).
TEST(Api, DeckTextWithoutZones) {
  const char* text =
      "network: {source: decay_chain, rates: [3.0, 0.7, 0.05]}\n"
      "integrator: {method: implicit, schedule: adaptive, start_time: 1.0e-6, rtol: 1.0e-8,\n"
      "             atol: 1.0e-14}\n";
  zoneode_burner* burner = nullptr;
  ASSERT_EQ(zoneode_burner_create_from_text(text, nullptr, 0, &burner), ZONEODE_OK) << zoneode_last_error();
  // The exact solution of x0 -> x1 (Bateman), lambda0 = 3/s, over 2 s: x0 = exp(-6).
  double T9 = 1.0, rho = 1.0;
  double Y[4] = {1.0, 0.0, 0.0, 0.0};
  zoneode_zone_result result{};
  ASSERT_EQ(zoneode_burn(burner, 1, 4, 2.0, &T9, &rho, Y, &result, ZONEODE_HOST_MEMORY), ZONEODE_OK);
  EXPECT_NEAR(Y[0], std::exp(-6.0), 1e-5 * std::exp(-6.0));
  const double l0 = 3.0, l1 = 0.7;
  EXPECT_NEAR(Y[1], l0 / (l1 - l0) * (std::exp(-l0 * 2.0) - std::exp(-l1 * 2.0)), 1e-5);
  EXPECT_NEAR(Y[0] + Y[1] + Y[2] + Y[3], 1.0, 1e-12);  // the chain conserves number
  EXPECT_EQ(result.status, ZONEODE_ZONE_OK);
  EXPECT_GT(result.steps, 0);
  std::vector<double> from_deck(4);
  EXPECT_EQ(zoneode_burner_deck_abundances(burner, 4, from_deck.data()), ZONEODE_ERROR_INPUT);  // no zones section
  zoneode_burner_destroy(burner);
}

TEST(Api, ShippedDataFoundAndPartitionFunctionsLoad) {
  const std::string found = zoneode_data_dir();
  ASSERT_FALSE(found.empty());
  EXPECT_TRUE(std::filesystem::exists(found + "/partition_functions/rt2000_frdm_rpz24.txt")) << found;
  // The build tree's library finds the source tree's data (no install here).
  EXPECT_EQ(std::filesystem::weakly_canonical(found), std::filesystem::weakly_canonical(source_dir + "/inputs/data"));
  zoneode_burner* burner =
      create_or_fail(source_dir + "/inputs/quick.yaml", {"physics.partition_functions=true", "integrator.method=implicit",
                                                         "integrator.schedule=adaptive"});
  EXPECT_NE(burner, nullptr);
  zoneode_burner_destroy(burner);
}

// ---- Errors: every argument's bad value, a code and a message, nothing printed. ----

class ApiErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    const int code = zoneode_burner_create_from_file((source_dir + "/inputs/quick.yaml").c_str(), nullptr, 0, &burner_);
    ASSERT_EQ(code, ZONEODE_OK);
    zoneode_burner_species_count(burner_, &species_);
    T9_.assign(zones_, 2.0);
    rho_.assign(zones_, 1e6);
    Y_.assign(zones_ * species_, 0.0);
    for (int zone = 0; zone < zones_; ++zone) zoneode_burner_deck_abundances(burner_, species_, &Y_[zone * species_]);
    Y_before_ = Y_;
  }
  void TearDown() override {
    zoneode_burner_destroy(burner_);
    EXPECT_EQ(testing::internal::GetCapturedStdout(), "");  // no call printed anything
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  }
  // `code` and a message naming `words`; the zones untouched.
  void expect_error(int got, int code, const std::string& words) {
    EXPECT_EQ(got, code) << zoneode_last_error();
    EXPECT_NE(std::string(zoneode_last_error()).find(words), std::string::npos)
        << "message: " << zoneode_last_error() << "\nexpected it to contain: " << words;
    EXPECT_EQ(std::memcmp(Y_.data(), Y_before_.data(), Y_.size() * sizeof(double)), 0);
  }
  int burn(std::int64_t zones, int species, double dt, double* T9, const double* rho, double* Y, int memory = 0,
           zoneode_burner* burner = nullptr) {
    return zoneode_burn(burner ? burner : burner_, zones, species, dt, T9, rho, Y, nullptr, memory);
  }
  zoneode_burner* burner_ = nullptr;
  int species_ = 0;
  const int zones_ = 3;
  std::vector<double> T9_, rho_, Y_, Y_before_;
};

TEST_F(ApiErrors, Burn) {
  double* T9 = T9_.data();
  const double* rho = rho_.data();
  double* Y = Y_.data();
  expect_error(zoneode_burn(nullptr, zones_, species_, 1e-4, T9, rho, Y, nullptr, 0), ZONEODE_ERROR_NULL_ARGUMENT,
               "burner is NULL");
  expect_error(burn(-1, species_, 1e-4, T9, rho, Y), ZONEODE_ERROR_INVALID_ARGUMENT, "zone_count -1, expected >= 0");
  expect_error(burn(zones_, species_ + 1, 1e-4, T9, rho, Y), ZONEODE_ERROR_INVALID_ARGUMENT,
               "species_count 17, expected the network's 16");
  expect_error(burn(zones_, -3, 1e-4, T9, rho, Y), ZONEODE_ERROR_INVALID_ARGUMENT, "species_count -3");
  for (double dt : {0.0, -1e-4, std::nan(""), std::numeric_limits<double>::infinity(), 1e-40})
    expect_error(burn(zones_, species_, dt, T9, rho, Y), ZONEODE_ERROR_INVALID_ARGUMENT, "expected a finite time > 0");
  expect_error(burn(zones_, species_, 1e-4, T9, rho, Y, 7), ZONEODE_ERROR_INVALID_ARGUMENT, "memory 7");
  // A CPU burner takes no device arrays (the GPU backend's, tests/gpu/api_device_memory.cpp).
  expect_error(burn(zones_, species_, 1e-4, T9, rho, Y, ZONEODE_DEVICE_MEMORY), ZONEODE_ERROR_UNSUPPORTED,
               "ZONEODE_DEVICE_MEMORY: the cpu backend integrates host arrays only");
  expect_error(burn(zones_, species_, 1e-4, nullptr, rho, Y), ZONEODE_ERROR_NULL_ARGUMENT, "T9 is NULL");
  expect_error(burn(zones_, species_, 1e-4, T9, nullptr, Y), ZONEODE_ERROR_NULL_ARGUMENT, "rho is NULL");
  expect_error(burn(zones_, species_, 1e-4, T9, rho, nullptr), ZONEODE_ERROR_NULL_ARGUMENT, "Y is NULL");
  // Self-heating's T9 floor (1e-3 GK): a colder zone is refused, not lifted (issue 40).
  zoneode_burner* heated = nullptr;
  const char* heating[] = {"physics.self_heating=true"};
  ASSERT_EQ(zoneode_burner_create_from_file((source_dir + "/inputs/quick.yaml").c_str(), heating, 1, &heated), ZONEODE_OK)
      << zoneode_last_error();
  std::vector<double> cold = T9_;
  cold[1] = 5e-4;
  expect_error(burn(zones_, species_, 1e-4, cold.data(), rho, Y, 0, heated), ZONEODE_ERROR_INVALID_ARGUMENT,
               "T9[1] 5e-04, below self-heating's floor: expected T9 >= 0.001");
  zoneode_burner_destroy(heated);
  // No zones: nothing to do, null arrays allowed.
  EXPECT_EQ(burn(0, species_, 1e-4, nullptr, nullptr, nullptr), ZONEODE_OK);
  // And after all that, a good burn still works.
  EXPECT_EQ(burn(zones_, species_, 1e-4, T9, rho, Y), ZONEODE_OK) << zoneode_last_error();
}

TEST_F(ApiErrors, Create) {
  zoneode_burner* made = reinterpret_cast<zoneode_burner*>(&species_);  // set to NULL on failure
  const std::string quick = source_dir + "/inputs/quick.yaml";
  expect_error(zoneode_burner_create_from_file(nullptr, nullptr, 0, &made), ZONEODE_ERROR_NULL_ARGUMENT,
               "the deck is NULL");
  EXPECT_EQ(made, nullptr);
  expect_error(zoneode_burner_create_from_text(nullptr, nullptr, 0, &made), ZONEODE_ERROR_NULL_ARGUMENT,
               "the deck is NULL");
  expect_error(zoneode_burner_create_from_file(quick.c_str(), nullptr, 0, nullptr), ZONEODE_ERROR_NULL_ARGUMENT,
               "burner (the result's address) is NULL");
  expect_error(zoneode_burner_create_from_file(quick.c_str(), nullptr, -1, &made), ZONEODE_ERROR_INVALID_ARGUMENT,
               "override_count -1, expected >= 0");
  expect_error(zoneode_burner_create_from_file(quick.c_str(), nullptr, 1, &made), ZONEODE_ERROR_NULL_ARGUMENT,
               "overrides (override_count > 0) is NULL");
  const char* with_null[] = {"integrator.rtol=1e-6", nullptr};
  expect_error(zoneode_burner_create_from_file(quick.c_str(), with_null, 2, &made), ZONEODE_ERROR_NULL_ARGUMENT,
               "overrides[1] is NULL");
  expect_error(zoneode_burner_create_from_file("/nonexistent/deck.yaml", nullptr, 0, &made), ZONEODE_ERROR_INPUT,
               "cannot open deck '/nonexistent/deck.yaml'");
  // Bad deck text: YAML syntax, an unknown key, a bad value, a required section missing.
  expect_error(zoneode_burner_create_from_text("network: [unclosed\n", nullptr, 0, &made), ZONEODE_ERROR_INPUT,
               "deck text:");
  expect_error(zoneode_burner_create_from_text("network: {source: decay_chain, rates: [1, 2, 3]}\nintegrator: {}\n"
                                               "bogus: 1\n",
                                               nullptr, 0, &made),
               ZONEODE_ERROR_INPUT, "unknown key 'bogus'");
  expect_error(zoneode_burner_create_from_text("network: {source: decay_chain, rates: [1, 2, 3]}\n"
                                               "integrator: {rtol: -1}\n",
                                               nullptr, 0, &made),
               ZONEODE_ERROR_INPUT, "deck text:2:");
  expect_error(zoneode_burner_create_from_text("integrator: {}\n", nullptr, 0, &made), ZONEODE_ERROR_INPUT,
               "network");
  // A network file that is no REACLIB: the reader's error, with the file named.
  const std::string garbage = testing::TempDir() + "zoneode_api_garbage.reaclib";
  std::ofstream(garbage) << "this is not a REACLIB chapter\n";
  const std::string bad_network = "network: {source: reaclib, file: " + garbage + ", nuclides: [p, he4]}\n"
                                  "integrator: {}\n";
  expect_error(zoneode_burner_create_from_text(bad_network.c_str(), nullptr, 0, &made), ZONEODE_ERROR_INPUT, garbage);
  std::filesystem::remove(garbage);
  const char* bad_override[] = {"nonsense"};
  expect_error(zoneode_burner_create_from_file(quick.c_str(), bad_override, 1, &made), ZONEODE_ERROR_INPUT,
               "--set nonsense: expected section.key=value");
  const char* unknown_species[] = {"zones.composition={he4: 0.5, xx99: 0.5}"};
  expect_error(zoneode_burner_create_from_file(quick.c_str(), unknown_species, 1, &made), ZONEODE_ERROR_INPUT,
               "xx99");
  if (built_kernel_variants().empty()) {  // a CPU-only build
    const char* gpu[] = {"run.backend=gpu"};
    expect_error(zoneode_burner_create_from_file(quick.c_str(), gpu, 1, &made), ZONEODE_ERROR_UNSUPPORTED,
                 "'gpu' is not built");
  }
  EXPECT_EQ(made, nullptr);
  zoneode_burner_destroy(nullptr);  // allowed
}

TEST_F(ApiErrors, Queries) {
  int count = 0, A = 0, Z = 0, index = 0;
  const char* text = nullptr;
  expect_error(zoneode_burner_species_count(nullptr, &count), ZONEODE_ERROR_NULL_ARGUMENT, "burner is NULL");
  expect_error(zoneode_burner_species_count(burner_, nullptr), ZONEODE_ERROR_NULL_ARGUMENT, "species_count is NULL");
  expect_error(zoneode_burner_species_name(nullptr, 0, &text), ZONEODE_ERROR_NULL_ARGUMENT, "burner is NULL");
  expect_error(zoneode_burner_species_name(burner_, -1, &text), ZONEODE_ERROR_INVALID_ARGUMENT,
               "species -1, expected 0 to 15");
  expect_error(zoneode_burner_species_name(burner_, 16, &text), ZONEODE_ERROR_INVALID_ARGUMENT, "species 16");
  expect_error(zoneode_burner_species_name(burner_, 0, nullptr), ZONEODE_ERROR_NULL_ARGUMENT, "name is NULL");
  expect_error(zoneode_burner_species_nucleons(burner_, 99, &A, &Z), ZONEODE_ERROR_INVALID_ARGUMENT, "species 99");
  expect_error(zoneode_burner_species_nucleons(burner_, 0, nullptr, &Z), ZONEODE_ERROR_NULL_ARGUMENT,
               "mass_number is NULL");
  expect_error(zoneode_burner_species_nucleons(burner_, 0, &A, nullptr), ZONEODE_ERROR_NULL_ARGUMENT,
               "charge is NULL");
  expect_error(zoneode_burner_species_index(burner_, "unobtainium", &index), ZONEODE_ERROR_INVALID_ARGUMENT,
               "no species 'unobtainium'");
  expect_error(zoneode_burner_species_index(burner_, nullptr, &index), ZONEODE_ERROR_NULL_ARGUMENT, "name is NULL");
  expect_error(zoneode_burner_species_index(burner_, "he4", nullptr), ZONEODE_ERROR_NULL_ARGUMENT, "species is NULL");
  expect_error(zoneode_burner_species_index(nullptr, "he4", &index), ZONEODE_ERROR_NULL_ARGUMENT, "burner is NULL");
  expect_error(zoneode_burner_deck(burner_, nullptr), ZONEODE_ERROR_NULL_ARGUMENT, "resolved_yaml is NULL");
  expect_error(zoneode_burner_deck(nullptr, &text), ZONEODE_ERROR_NULL_ARGUMENT, "burner is NULL");
  expect_error(zoneode_burner_backend(burner_, nullptr), ZONEODE_ERROR_NULL_ARGUMENT, "description is NULL");
  expect_error(zoneode_burner_backend(nullptr, &text), ZONEODE_ERROR_NULL_ARGUMENT, "burner is NULL");
  std::vector<double> Y(species_);
  expect_error(zoneode_burner_deck_abundances(burner_, species_ - 1, Y.data()), ZONEODE_ERROR_INVALID_ARGUMENT,
               "species_count 15, expected the network's 16");
  expect_error(zoneode_burner_deck_abundances(burner_, species_, nullptr), ZONEODE_ERROR_NULL_ARGUMENT, "Y is NULL");
  expect_error(zoneode_burner_deck_abundances(nullptr, species_, Y.data()), ZONEODE_ERROR_NULL_ARGUMENT,
               "burner is NULL");
}

}  // namespace
}  // namespace zoneode
