// A thread of its own for one job at a time: the state-file write of outer step k, run while step
// k+1 integrates (cli/run_output.cpp). One job in flight at most, so the memory it needs (one
// snapshot of the rank's zones) is bounded and known before the run starts.
//
// The job may call MPI and HDF5 only while the thread that started it calls neither: the caller
// starts a job after its last MPI call before the integration and waits for it before its next
// one. So MPI_THREAD_SERIALIZED suffices (MPI_THREAD_MULTIPLE is not needed, nor supported by
// default on Cray MPICH), and a HDF5 built without thread safety is called by one thread at a time.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace zoneode {

class AsyncWriter {
 public:
  AsyncWriter();
  ~AsyncWriter();  // waits for a job in flight (its outcome is dropped), then ends the thread
  AsyncWriter(const AsyncWriter&) = delete;
  AsyncWriter& operator=(const AsyncWriter&) = delete;

  // Starts `job` on the writer thread. Throws std::logic_error when a job is in flight.
  void start(std::function<void()> job);
  // Whether a job was started and not waited for.
  bool in_flight() const;

  struct Outcome {
    std::exception_ptr error;  // what the job threw, or null
    double seconds = 0.0;      // [s] the job's own time on the writer thread
  };
  // Waits for the job started last and returns its outcome (std::logic_error when none).
  Outcome wait();

 private:
  void loop();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::function<void()> job_;  // set by start, cleared by the thread when done
  bool started_ = false;       // a job was started and not waited for
  bool stopping_ = false;
  Outcome outcome_;
  std::thread thread_;  // last: started once every member above exists
};

}  // namespace zoneode
