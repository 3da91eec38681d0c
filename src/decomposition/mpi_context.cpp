#include "decomposition/mpi_context.hpp"

namespace zoneode {

MpiContext::MpiContext(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiContext::~MpiContext() { MPI_Finalize(); }

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

}  // namespace zoneode
