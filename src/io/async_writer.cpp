#include "io/async_writer.hpp"

#include <pthread.h>

#include <chrono>
#include <csignal>
#include <stdexcept>
#include <utility>

namespace zoneode {

namespace {

// The writer thread takes no stop or terminal signal: they reach the main thread (cli/signals), and
// none interrupts a system call of a write in flight (MPI-IO's polls are not restarted by SA_RESTART).
std::thread start_without_signals(std::function<void()> body) {
  sigset_t blocked, previous;
  sigemptyset(&blocked);
  for (int signal : {SIGTERM, SIGUSR1, SIGUSR2, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&blocked, signal);
  pthread_sigmask(SIG_BLOCK, &blocked, &previous);  // the new thread inherits this mask
  std::thread thread(std::move(body));
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return thread;
}

}  // namespace

AsyncWriter::AsyncWriter() : thread_(start_without_signals([this] { loop(); })) {}

AsyncWriter::~AsyncWriter() {
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !job_; });
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void AsyncWriter::start(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (started_) throw std::logic_error("AsyncWriter::start: a job is in flight");
    job_ = std::move(job);
    started_ = true;
    outcome_ = {};
  }
  changed_.notify_all();
}

bool AsyncWriter::in_flight() const {
  std::lock_guard lock(mutex_);
  return started_;
}

AsyncWriter::Outcome AsyncWriter::wait() {
  std::unique_lock lock(mutex_);
  if (!started_) throw std::logic_error("AsyncWriter::wait: no job in flight");
  changed_.wait(lock, [this] { return !job_; });
  started_ = false;
  return std::exchange(outcome_, {});
}

void AsyncWriter::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || job_; });
    if (!job_) return;  // stopping, nothing left
    std::function<void()> job = job_;
    lock.unlock();
    Outcome outcome;
    const auto begin = std::chrono::steady_clock::now();
    try {
      job();
    } catch (...) {
      outcome.error = std::current_exception();
    }
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    lock.lock();
    outcome_ = std::move(outcome);
    job_ = nullptr;
    changed_.notify_all();
  }
}

}  // namespace zoneode
