// The I/O tests need MPI (HDF5 files are written collectively): one rank, initialised here.
#include <gtest/gtest.h>

#include "decomposition/mpi_context.hpp"
#include "io_test.hpp"

namespace zoneode::testing {
const MpiContext* mpi = nullptr;
}

int main(int argc, char** argv) {
  zoneode::MpiContext mpi(&argc, &argv);
  zoneode::testing::mpi = &mpi;
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
