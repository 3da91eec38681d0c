// How the per-zone datasets of a state file are stored: contiguous, or in chunks of zones with
// optional compression (deck output.chunk_zones and output.compression, inputs/README.md). The
// data read back is the same either way; only the bytes on disk and the write time differ.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zoneode {

struct StateStorage {
  std::int64_t chunk_zones = 0;  // 0: contiguous; N: chunks of N zones (all species of each zone)
  int gzip_level = 0;            // deflate level 1..9; 0: no compression
  bool shuffle = false;          // HDF5's byte shuffle before deflate (groups the bytes of each place)

  bool chunked() const { return chunk_zones > 0; }
  bool compressed() const { return gzip_level > 0; }
  // Its deck spelling: "none", "gzip-4", "shuffle+gzip-4".
  std::string compression_name() const {
    if (!compressed()) return "none";
    return std::string(shuffle ? "shuffle+" : "") + "gzip-" + std::to_string(gzip_level);
  }
  // For the run header and the summary: "contiguous" or "chunks of 4096 zones, shuffle+gzip-4".
  std::string describe() const {
    if (!chunked()) return "contiguous";
    return "chunks of " + std::to_string(chunk_zones) + " zones, " +
           (compressed() ? compression_name() : std::string("no compression"));
  }
};

// "none", "gzip-N" or "shuffle+gzip-N" (N in 1..9) into `storage`'s filters; false for anything else.
inline bool parse_compression(std::string_view text, StateStorage& storage) {
  storage.gzip_level = 0;
  storage.shuffle = false;
  if (text == "none") return true;
  constexpr std::string_view shuffled = "shuffle+";
  if (text.substr(0, shuffled.size()) == shuffled) {
    storage.shuffle = true;
    text.remove_prefix(shuffled.size());
  }
  constexpr std::string_view gzip = "gzip-";
  if (text.size() != gzip.size() + 1 || text.substr(0, gzip.size()) != gzip || text.back() < '1' || text.back() > '9') {
    storage.shuffle = false;
    return false;
  }
  storage.gzip_level = text.back() - '0';
  return true;
}

// Refuses (InputError: `where`, the deck location, and the key) a storage this HDF5 cannot write
// for `species` species: a chunk of 4 GiB or more, a filter not built in, compression with
// parallel HDF5 older than 1.10.2 (the first to write filtered datasets in parallel); with parallel
// HDF5, a compressed dataset of `zones` zones (0: not known yet) in more than most_compressed_chunks
// chunks.
inline constexpr std::int64_t most_compressed_chunks = 4096;
void check_state_storage(const StateStorage& storage, int species, const std::string& where, std::int64_t zones = 0);

}  // namespace zoneode
