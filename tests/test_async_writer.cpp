// The writer thread of the overlapped output (io/async_writer.hpp) and the deck spelling of the
// state-file storage (io/state_storage.hpp).
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <csignal>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "io/async_writer.hpp"
#include "io/state_storage.hpp"

namespace zoneode {
namespace {

using namespace std::chrono_literals;

TEST(AsyncWriter, RunsTheJobOnAnotherThreadBesideTheCaller) {
  AsyncWriter writer;
  std::atomic<bool> release{false};
  bool released = false;
  std::thread::id job_thread;
  writer.start([&] {
    job_thread = std::this_thread::get_id();
    // Held until the caller has gone on (at most 5 s: a start() that ran the job itself ends here).
    const auto give_up = std::chrono::steady_clock::now() + 5s;
    while (!release && std::chrono::steady_clock::now() < give_up) std::this_thread::sleep_for(1ms);
    released = release;
  });
  EXPECT_TRUE(writer.in_flight());
  release = true;  // the caller runs on while the job waits for it
  const AsyncWriter::Outcome outcome = writer.wait();
  EXPECT_FALSE(writer.in_flight());
  EXPECT_TRUE(released) << "the job held the caller";
  EXPECT_EQ(outcome.error, nullptr);
  EXPECT_NE(job_thread, std::this_thread::get_id());
  EXPECT_GE(outcome.seconds, 0.0);
}

TEST(AsyncWriter, TimesTheJobAndHandsBackItsError) {
  AsyncWriter writer;
  writer.start([] {
    std::this_thread::sleep_for(50ms);
    throw std::runtime_error("cannot write /abundances");
  });
  const AsyncWriter::Outcome outcome = writer.wait();
  EXPECT_GE(outcome.seconds, 0.045);
  ASSERT_NE(outcome.error, nullptr);
  try {
    std::rethrow_exception(outcome.error);
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "cannot write /abundances");
  }
  // The next job starts clean.
  int ran = 0;
  writer.start([&] { ++ran; });
  EXPECT_EQ(writer.wait().error, nullptr);
  EXPECT_EQ(ran, 1);
}

TEST(AsyncWriter, OneJobInFlightAtMost) {
  AsyncWriter writer;
  std::atomic<bool> release{false};
  writer.start([&] {
    while (!release) std::this_thread::sleep_for(1ms);
  });
  EXPECT_THROW(writer.start([] {}), std::logic_error);
  release = true;
  writer.wait();
  EXPECT_THROW(writer.wait(), std::logic_error);  // nothing started
}

TEST(AsyncWriter, StopSignalsAreLeftToTheOtherThreads) {
  AsyncWriter writer;
  sigset_t mask;
  writer.start([&] { pthread_sigmask(SIG_BLOCK, nullptr, &mask); });
  writer.wait();
  EXPECT_TRUE(sigismember(&mask, SIGTERM));
  EXPECT_TRUE(sigismember(&mask, SIGUSR1));
  sigset_t caller;
  pthread_sigmask(SIG_BLOCK, nullptr, &caller);
  EXPECT_FALSE(sigismember(&caller, SIGTERM)) << "the caller's own mask is unchanged";
}

TEST(AsyncWriter, DestructorWaitsForTheJobInFlight) {
  std::atomic<bool> finished{false};
  {
    AsyncWriter writer;
    writer.start([&] {
      std::this_thread::sleep_for(30ms);
      finished = true;
    });
  }
  EXPECT_TRUE(finished);
}

TEST(StateStorage, CompressionSpellings) {
  StateStorage storage;
  ASSERT_TRUE(parse_compression("none", storage));
  EXPECT_FALSE(storage.compressed());
  ASSERT_TRUE(parse_compression("gzip-4", storage));
  EXPECT_EQ(storage.gzip_level, 4);
  EXPECT_FALSE(storage.shuffle);
  ASSERT_TRUE(parse_compression("shuffle+gzip-9", storage));
  EXPECT_EQ(storage.gzip_level, 9);
  EXPECT_TRUE(storage.shuffle);
  EXPECT_EQ(storage.compression_name(), "shuffle+gzip-9");
  for (const char* bad : {"gzip", "gzip-0", "gzip-10", "gzip-a", "shuffle", "shuffle+", "shuffle+none", "GZIP-1", ""}) {
    StateStorage other;
    EXPECT_FALSE(parse_compression(bad, other)) << bad;
    EXPECT_FALSE(other.compressed());
    EXPECT_FALSE(other.shuffle);
  }
  storage.chunk_zones = 4096;
  EXPECT_EQ(storage.describe(), "chunks of 4096 zones, shuffle+gzip-9");
  EXPECT_EQ(StateStorage{}.describe(), "contiguous");
  EXPECT_EQ((StateStorage{16, 0, false}).describe(), "chunks of 16 zones, no compression");
}

}  // namespace
}  // namespace zoneode
