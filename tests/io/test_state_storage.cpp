// Chunked and compressed state files (output.chunk_zones, output.compression): the same values as
// the contiguous file, bit for bit (zoneode-compare at rtol 0, atol 0, every element), the layout
// and filters asked for, fewer bytes on disk for compressible data, and readable as a restart.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "compare.hpp"
#include "io/hdf5_handle.hpp"
#include "io/hdf5_state.hpp"
#include "io/state_layout.hpp"
#include "io_test.hpp"
#include "network/analytic.hpp"

namespace zoneode {
namespace {

using zoneode::testing::mpi;

class StateStorageFiles : public testing::FolderTest {
 protected:
  // `zones` zones of the 3-member decay chain; the abundances repeat every 8 zones (compressible)
  // yet differ in every zone's bits from the next.
  void write(const std::string& file, const StateStorage& storage, std::int64_t zones = 1000) {
    const Network network = decay_chain_network({3.0, 0.7});
    const int S = network.species_count();
    abundances_.assign(zones * S, 0.0);
    temperature_.assign(zones, 0.0);
    density_.assign(zones, 0.0);
    energy_.assign(zones, 0.0);
    steps_.assign(zones, 0);
    status_.assign(zones, 0);
    time_reached_.assign(zones, 0.0);
    for (std::int64_t z = 0; z < zones; ++z) {
      for (int i = 0; i < S; ++i) abundances_[z * S + i] = std::ldexp(1.0 + 0.1234567 * (z % 8) + i / 7.0, -7 - 3 * i);
      temperature_[z] = 1.0 + z / 3.0;
      density_[z] = 1e5 * (z + 1);
      energy_[z] = -1e10 * z;
      steps_[z] = 100 + z;
      status_[z] = static_cast<std::int32_t>(z % 3);
      time_reached_[z] = std::ldexp(1.0 + 0.7654321 * z, -4);
    }
    const LocalState state{zones, {0, zones}, abundances_.data(), temperature_.data(), density_.data(), energy_.data(),
                           steps_.data(), status_.data(), time_reached_.data()};
    StateAttributes attributes;
    attributes.time = 0.5;
    attributes.outer_step = 4;
    attributes.network_hash = "0123456789abcdef";
    write_state_file(*mpi, file, network, state, attributes, storage);
  }

  // Every compared dataset and attribute bitwise the same, every element compared.
  static void expect_same(const std::string& a, const std::string& b) {
    compare::CompareOptions exact;
    exact.rtol = 0.0;
    exact.atol = 0.0;
    const compare::CompareReport report = compare::compare_files(a, b, exact);
    EXPECT_EQ(report.exit_code(), 0) << compare::report_text(report);
    const compare::DatasetReport* abundances = report.dataset("abundances");
    ASSERT_NE(abundances, nullptr);
    EXPECT_EQ(abundances->values, 1000 * 3);
  }

  struct Layout {
    H5D_layout_t layout = H5D_LAYOUT_ERROR;
    hsize_t chunk[2] = {0, 0};
    int filters = 0;
  };
  static Layout layout_of(const std::string& file, const char* dataset) {
    const Hdf5Handle f = checked(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, "open");
    const Hdf5Handle d = checked(H5Dopen2(f, dataset, H5P_DEFAULT), H5Dclose, "open dataset");
    const Hdf5Handle p = checked(H5Dget_create_plist(d), H5Pclose, "plist");
    Layout layout;
    layout.layout = H5Pget_layout(p);
    if (layout.layout == H5D_CHUNKED) H5Pget_chunk(p, 2, layout.chunk);
    layout.filters = H5Pget_nfilters(p);
    return layout;
  }

  std::vector<double> abundances_, temperature_, density_, energy_, time_reached_;
  std::vector<std::int64_t> steps_;
  std::vector<std::int32_t> status_;
};

TEST_F(StateStorageFiles, ChunkedAndCompressedFilesHoldTheContiguousValues) {
  write(path("contiguous.h5"), {});
  EXPECT_EQ(layout_of(path("contiguous.h5"), "abundances").layout, H5D_CONTIGUOUS);
  // 7 zones per chunk: chunks do not divide 1000 zones.
  write(path("chunked.h5"), {7, 0, false});
  write(path("gzip.h5"), {64, 4, false});
  write(path("shuffle_gzip.h5"), {64, 9, true});
  // More zones per chunk than the file holds: one chunk of all of them.
  write(path("one_chunk.h5"), {1 << 20, 1, false});
  for (const char* name : {"chunked.h5", "gzip.h5", "shuffle_gzip.h5", "one_chunk.h5"}) {
    SCOPED_TRACE(name);
    expect_same(path("contiguous.h5"), path(name));
  }
  const Layout chunked = layout_of(path("chunked.h5"), "abundances");
  EXPECT_EQ(chunked.layout, H5D_CHUNKED);
  EXPECT_EQ(chunked.chunk[0], 7u);
  EXPECT_EQ(chunked.chunk[1], 3u);  // every species of a zone in its chunk
  EXPECT_EQ(chunked.filters, 0);
  EXPECT_EQ(layout_of(path("gzip.h5"), "temperature").filters, 1);
  EXPECT_EQ(layout_of(path("shuffle_gzip.h5"), "status").filters, 2);
  EXPECT_EQ(layout_of(path("one_chunk.h5"), "abundances").chunk[0], 1000u);
  // The abundances repeat every 8 zones: deflate stores them in fewer bytes.
  const auto size = [&](const char* name) { return std::filesystem::file_size(path(name)); };
  EXPECT_LT(size("gzip.h5"), size("contiguous.h5") * 3 / 4) << size("gzip.h5") << " vs " << size("contiguous.h5");
  EXPECT_LT(size("shuffle_gzip.h5"), size("contiguous.h5") * 3 / 4);
}

TEST_F(StateStorageFiles, CompressedFileReadsBackAsARestartBlock) {
  write(path("gzip.h5"), {16, 6, true});
  const std::vector<double> abundances = abundances_, temperature = temperature_, density = density_;
  // A block that starts and ends inside chunks.
  const ZoneBlock block{333, 500};
  std::vector<double> t(block.count), rho(block.count), y(block.count * 3);
  read_state_block(path("gzip.h5"), 1000, block, 3, t.data(), rho.data(), y.data());
  for (std::int64_t z = 0; z < block.count; ++z) {
    ASSERT_EQ(t[z], temperature[block.first + z]);
    ASSERT_EQ(rho[z], density[block.first + z]);
    for (int i = 0; i < 3; ++i) ASSERT_EQ(y[z * 3 + i], abundances[(block.first + z) * 3 + i]);
  }
}

}  // namespace
}  // namespace zoneode
