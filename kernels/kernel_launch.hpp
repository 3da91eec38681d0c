// What the GPU backend hands a kernel variant, and what a variant tells the backend: host-visible
// declarations shared by the backend (src/backends/gpu) and the variant files (kernels/*.hip).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "integrators/settings.hpp"
#include "network/views.hpp"

namespace zoneode::gpu {

// Everything one launch needs; every pointer is device memory. Trivially copyable.
struct KernelArgs {
  RateView rates;
  StepView step;                      // over the device copy of the step block
  const std::byte* step_block = nullptr;
  std::int64_t step_block_bytes = 0;
  IntegratorSettings settings;
  std::int64_t zones = 0;
  const double* temperature = nullptr;  // [zone]
  const double* density = nullptr;      // [zone]
  double* abundances = nullptr;         // [zone][species], in and out
  ZoneResult* results = nullptr;        // [zone]
  double* workspace = nullptr;          // [block][workspace_doubles] for arrays kept in global memory
  std::int64_t workspace_doubles = 0;   // per block
  unsigned long long* next_zone = nullptr;  // zone counter: blocks take zones as they finish (0 at launch)
  // final: the F+/F- terms in balanced chunks, stored by column (kernels/final.hip, TermChunks)
  const std::uint32_t* chunk_terms = nullptr;         // [terms]: reaction | factor << 16
  const std::int32_t* chunk_column_start = nullptr;   // [longest chunk + 1]
  const std::int32_t* chunk_length = nullptr;         // [chunks]
  const std::int32_t* chunk_position = nullptr;       // [chunks]
  const std::int32_t* creation_chunks = nullptr;      // [species + 1]
  const std::int32_t* destruction_chunks = nullptr;   // [species + 1]
  const std::uint64_t* reaction_words = nullptr;      // [reactions]: ReactionWords
  int chunks = 0;
};

// The F+ and F- term lists end to end (destruction terms after the creation terms), cut at every
// species boundary and into pieces of at most chunk_terms terms (host side, for final). A thread
// sums one chunk; for its loads to be coalesced, the chunks are numbered longest first (ties in
// list order) and their terms stored column by column: term j of chunk c is terms[column_start[j]
// + c], so at step j the threads of a wave read consecutive words. A term is one word, reaction |
// factor << 16, instead of a 2-byte and a 1-byte load from two arrays.
struct TermChunks {
  std::vector<std::uint32_t> terms;              // [terms], by column
  std::vector<std::int32_t> column_start;        // [longest chunk + 1]
  std::vector<std::int32_t> length;              // [chunks], chunk c's terms (longest first)
  std::vector<std::int32_t> position;            // [chunks]: the number of the k-th chunk in list order
  std::vector<std::int32_t> creation_chunks;     // [species + 1]: species i's F+ chunks are the list-order
  std::vector<std::int32_t> destruction_chunks;  // [species + 1]  chunks [c[i], c[i + 1]), and its F- ones
  int chunks() const { return static_cast<int>(length.size()); }
};
TermChunks make_term_chunks(const StepView& network, int chunk_terms);
inline constexpr int chunk_term_factor_shift = 16;  // reaction_index_t is 16 bits

// A reaction's reactants and electron-capture flag in one 64-bit word (final: one load per
// reaction in the flux phase instead of one per reactant plus two): reactant k's species in bits
// [14k, 14k + 14), the reactant count in bits 56-58, the flag in bit 59.
struct ReactionWords {
  static constexpr int species_bits = 14;
  static constexpr std::uint64_t species_mask = (1u << species_bits) - 1;
  static constexpr int count_shift = 56, capture_shift = 59;
  static constexpr int max_species = 1 << species_bits;  // networks up to 16,384 species
};
std::vector<std::uint64_t> make_reaction_words(const StepView& network);

// What the device and the network are, for a variant to plan its launch.
struct LaunchContext {
  int multiprocessors = 0;
  std::size_t max_shared_bytes = 0;     // per block, opt-in limit
  int species_count = 0;
  int reaction_count = 0;
  std::int64_t step_block_bytes = 0;
  std::int64_t zones = 0;               // in the batch
  int chunks = 0;                       // final: term chunks (their sums live in LDS)
};

// A variant's launch: geometry, shared memory, global workspace, and where the arrays live.
struct LaunchPlan {
  int block = 0;
  int grid = 0;
  std::size_t shared_bytes = 0;         // dynamic
  std::int64_t workspace_doubles = 0;   // per block, in global memory
  bool stage_network = false;           // step block in LDS
  bool stage_zone = false;              // the zone's arrays (Y, rate factors, fluxes, proposals) in LDS
  int group = 1;                        // lanes per species (0: balanced term chunks)
  int min_blocks = 0;                   // launch bound: resident blocks per multiprocessor (0: none)
  std::string describe() const;
};

struct VariantOps {
  const char* name;
  LaunchPlan (*plan)(const LaunchContext& context);
  void (*launch)(const LaunchPlan& plan, const KernelArgs& args);
  // Threads the term chunks are cut for (final), 0 when the variant uses no chunks.
  int (*chunk_threads)() = nullptr;
};

// "BLOCKxGROUPxMIN_BLOCKS" (or "BLOCKxGROUP") from ZONEODE_KERNEL_CONFIG (tuned, final: the
// ladder's sweeps set it), else the defaults. min_blocks: the launch bound's minimum of resident
// blocks per multiprocessor (CUDA), which caps registers; 0 for none.
struct KernelConfig {
  int block;
  int group;
  int min_blocks;
};
KernelConfig kernel_config(KernelConfig defaults);

// The variants compiled into this binary (ZONEODE_KERNEL); null when the variant is not built.
const VariantOps* baseline_variant();
const VariantOps* lds_variant();
const VariantOps* wave_variant();
const VariantOps* tuned_variant();
const VariantOps* final_variant();

// Doubles per zone of the arrays integrate_zone_team uses: Y, rate factors, fluxes, two proposals,
// and the chunk sums of final.
inline std::int64_t zone_array_doubles(int species, int reactions, int chunks = 0) {
  return 3 * static_cast<std::int64_t>(species) + 2 * static_cast<std::int64_t>(reactions) + chunks;
}

}  // namespace zoneode::gpu
