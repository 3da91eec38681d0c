#include "decomposition/mpi_context.hpp"

#include <cstdlib>

namespace zoneode {

MpiContext::MpiContext(int* argc, char*** argv) {
  // Open MPI's ompio selects a shared-file-pointer component at every MPI_File_open, though HDF5
  // never uses shared file pointers. Its default, sm, opens the named semaphore
  // /dev/shm/sem.OMPIO_<file name> (host-wide, shared by every job writing a file of that name),
  // takes it (sem_wait) and unlinks it only at the end of the open: a run killed there leaves it
  // behind, at 0 if killed while holding it, and every later run writing a file of that name then
  // hangs in MPI_File_open (tests/fault: the write watchdog ends it, exit 1). The other components
  // (lockedfile, individual) keep their state in files named per job and process, and in fcntl locks
  // that die with the process. So sm is left out unless the user chose (README, "Reliability").
  setenv("OMPI_MCA_sharedfp", "^sm", /*overwrite=*/0);
  MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &thread_level_);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_size(node, &local_size_);
  MPI_Comm_free(&node);
}

MpiContext::~MpiContext() { MPI_Finalize(); }

std::string MpiContext::thread_level_name() const {
  switch (thread_level_) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "MPI thread level " + std::to_string(thread_level_);
  }
}

std::int64_t MpiContext::sum(std::int64_t value) const {
  std::int64_t result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  return result;
}

double MpiContext::max(double value) const {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

double MpiContext::min(double value) const {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  return result;
}

double MpiContext::sum_double(double value) const {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return result;
}

int MpiContext::max_int(int value) const {
  int result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

bool MpiContext::any(bool flag) const {
  int value = flag ? 1 : 0, result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return result != 0;
}

int MpiContext::first_rank_with(bool flag) const {
  int value = flag ? rank_ : size_, result = size_;
  MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return result == size_ ? -1 : result;
}

std::string MpiContext::broadcast(std::string text, int from) const {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, from, MPI_COMM_WORLD);
  text.resize(length);
  MPI_Bcast(text.data(), length, MPI_CHAR, from, MPI_COMM_WORLD);
  return text;
}

void MpiContext::barrier() const { MPI_Barrier(MPI_COMM_WORLD); }

std::vector<std::string> MpiContext::gather(const std::string& text) const {
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(root() ? size_ : 0), displacements(root() ? size_ : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (root()) {
    for (int r = 0, offset = 0; r < size_; offset += lengths[r], ++r) displacements[r] = offset;
    all.resize(displacements.back() + lengths.back());
  }
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), displacements.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  std::vector<std::string> texts;
  for (int r = 0; root() && r < size_; ++r) texts.push_back(all.substr(displacements[r], lengths[r]));
  return texts;
}

}  // namespace zoneode
