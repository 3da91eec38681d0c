// MPI for zoneode: initialise once, know your rank, reduce statistics.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace zoneode {

class MpiContext {
 public:
  // MPI_Init_thread, asking for MPI_THREAD_SERIALIZED: OpenMP threads make no MPI calls, and the
  // state-file writer thread makes its own only while the main thread makes none (cli/run_output.cpp).
  MpiContext(int* argc, char*** argv);
  ~MpiContext();
  MpiContext(const MpiContext&) = delete;
  MpiContext& operator=(const MpiContext&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  // This rank's index among the ranks of its node (MPI_COMM_TYPE_SHARED): it picks the GPU.
  int local_rank() const { return local_rank_; }
  int local_size() const { return local_size_; }  // ranks on this node
  // Whether a thread other than main may call MPI (one at a time): MPI_THREAD_SERIALIZED or more.
  bool serialized_threads() const { return thread_level_ >= MPI_THREAD_SERIALIZED; }
  std::string thread_level_name() const;
  MPI_Comm comm() const { return MPI_COMM_WORLD; }

  std::int64_t sum(std::int64_t value) const;
  double max(double value) const;
  double min(double value) const;
  double sum_double(double value) const;
  int max_int(int value) const;
  // True on every rank when `flag` is true on any rank: ranks agree on failures before acting.
  bool any(bool flag) const;
  // The lowest rank whose flag is set (or -1): that rank reports the error for all.
  int first_rank_with(bool flag) const;
  std::string broadcast(std::string text, int from) const;
  void barrier() const;
  // Every rank's text, in rank order, on rank 0 (empty elsewhere).
  std::vector<std::string> gather(const std::string& text) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  int thread_level_ = MPI_THREAD_SINGLE;  // what MPI_Init_thread provided
};

}  // namespace zoneode
