// What the GPU backend hands a kernel variant, and what a variant tells the backend: host-visible
// declarations shared by the backend (gpu_backend.hip) and the variant files (kernels/*.hip).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/choices.hpp"
#include "integrators/implicit_team_view.hpp"
#include "integrators/method_network.hpp"
#include "integrators/settings.hpp"
#include "network/compact.hpp"
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
  // final: the F+/F- terms in balanced chunks, stored by column (kernels/asymptotic/final.hip, TermChunks)
  const reaction_index_t* chunk_terms = nullptr;      // [unit terms]: reaction, by column
  const std::int32_t* chunk_column_start = nullptr;   // [longest chunk + 1]
  const std::int32_t* chunk_length = nullptr;         // [chunks]
  const std::int32_t* chunk_list_index = nullptr;     // [chunks]
  const std::int32_t* creation_chunks = nullptr;      // [species + 1]
  const std::int32_t* destruction_chunks = nullptr;   // [species + 1]
  const std::uint64_t* reaction_words = nullptr;      // [reactions]: ReactionWords
  int reactant_slots = 0;                             // the network's most reactants (final)
  int chunks = 0;
  // integrator.method implicit: its structure and its team schedule on the device (implicit_gpu.hip)
  ImplicitView implicit;
  ImplicitScheduleView implicit_schedule;
};

// The F+ and F- term lists end to end (destruction terms after the creation terms), a term of
// factor k written as k unit terms (its reaction k times), cut at every species boundary and into
// pieces of at most chunk_terms terms (host side, for final). A thread sums one chunk; for its
// loads to be coalesced, the chunks are numbered longest first (ties in list order) and their
// terms stored column by column: term j of chunk c is terms[column_start[j] + c], so at step j the
// threads of a wave read consecutive indices. With bank_order, the terms of each chunk are put in
// the order that spreads a wave's flux[reaction] loads of one column over the shared-memory banks
// (a permutation within the chunk; the chunk's sum changes only by rounding).
struct TermChunks {
  std::vector<reaction_index_t> terms;           // [unit terms], by column
  std::vector<std::int32_t> column_start;        // [longest chunk + 1]
  std::vector<std::int32_t> length;              // [chunks], chunk c's terms (longest first)
  std::vector<std::int32_t> position;            // [chunks]: the number of the k-th chunk in list order
  std::vector<std::int32_t> list_index;          // [chunks]: the list-order number of stored chunk c (position's inverse)
  std::vector<std::int32_t> creation_chunks;     // [species + 1]: species i's F+ chunks are the list-order
  std::vector<std::int32_t> destruction_chunks;  // [species + 1]  chunks [c[i], c[i + 1]), and its F- ones
  int chunks() const { return static_cast<int>(length.size()); }
};
TermChunks make_term_chunks(const StepView& network, int chunk_terms, bool bank_order);
// Extra 8-byte shared-memory wavefronts a wave's loads of flux[terms] cost over conflict-free
// loads, summed over every column (the model bank_order minimises: 16 lanes of a half-wave share
// one wavefront when their 8-byte words differ modulo 16 or are the same word).
std::int64_t term_bank_conflicts(const TermChunks& chunks);

// A reaction's reactants and electron-capture flag in one 64-bit word (final: one load per
// reaction in the flux phase instead of one per reactant plus two): reactant k's species in bits
// [14k, 14k + 14), an unused slot holding species_count (the state arrays' 1.0 entry), the
// reactant count in bits 56-58, the flag in bit 59.
struct ReactionWords {
  static constexpr int species_bits = 14;
  static constexpr std::uint64_t species_mask = (1u << species_bits) - 1;
  static constexpr int count_shift = 56, capture_shift = 59;
  static constexpr int max_species = (1 << species_bits) - 1;  // networks up to 16,383 species
};
std::vector<std::uint64_t> make_reaction_words(const StepView& network);
// The most reactants of any reaction (final loads that many slots per reaction).
int most_reactants(const StepView& network);

// What the device and the network are, and the deck's launch choices, for a variant to plan its launch.
struct LaunchContext {
  KernelTuning tuning;                  // run.kernel_config, kernel_placement, chunk_terms
  int multiprocessors = 0;
  std::size_t max_shared_bytes = 0;     // per block, opt-in limit
  // NVIDIA sm_80/sm_90: the L1 and shared memory of a multiprocessor are one array of
  // unified_l1_bytes (0 elsewhere: AMD's LDS is separate, other NVIDIA parts are not modelled),
  // shared memory taken in the carve-out steps the architecture offers; the hardware reserves
  // reserved_shared_bytes per resident block.
  std::size_t unified_l1_bytes = 0, reserved_shared_bytes = 0, max_shared_per_multiprocessor = 0;
  std::vector<int> carveout_kib;        // the shared-memory capacities per multiprocessor [KiB], increasing
  int resident_blocks_wanted = 0;       // > 0: size_grid runs this many blocks per multiprocessor (the
                                        // backend's occupancy measurement), not its L1 rule
  int species_count = 0;
  int reaction_count = 0;
  std::int64_t step_block_bytes = 0;
  std::int64_t zones = 0;               // in the batch
  int chunks = 0;                       // final: term chunks (their sums live in LDS)
  int longest_chunk = 0;                // final: the most terms of a chunk
  int state_padding = 0;                // final: one more entry per state array (the 1.0 reactant slot)
  // implicit: one zone's workspace; device memory free at prepare and given to workspaces [B]
  ImplicitWorkspaceLayout implicit_layout;
  std::size_t free_bytes = 0, workspace_budget_bytes = 0;
  IntegrationMethod method = IntegrationMethod::asymptotic;  // the zone arrays it needs
  bool physics = false;                 // screening, partition functions or self-heating: physics instantiation
  bool self_heating = false;            // T9 in the state: the implicit team's heated instantiation
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
  int kernel = 0;                       // a variant with several kernels: which one this plan launches
  std::string summary;                  // what describe() says, where a variant words it itself
  bool physics = false;                 // launch the variant's physics instantiation (zone_team_physics.hpp)
  bool heating = false;                 // implicit team: launch the heated instantiation (implicit_team.hip)
  bool stage_columns = false;           // implicit team: the LU's column indices as bytes in LDS
  bool resident = false;                // final's latency path: chunks, species and reaction words in registers
  std::string l1_note;                  // fewer resident blocks than occupancy allows, so that L1 holds the network (why)
  int occupancy_limit = 0;              // > 0: the most resident blocks per multiprocessor, where fewer leave L1 more
                                        // (size_grid's carve-out choice applies; the backend may measure it)
  std::string describe() const;
};

// Copies a variant's own host arrays to the device, once per run; the backend keeps the copies
// for the run and frees them (a variant's prepare hook uses it).
class DeviceUploads {
 public:
  virtual ~DeviceUploads() = default;
  virtual const void* upload(const void* data, std::size_t bytes) = 0;
  template <typename T>
  const T* upload(const std::vector<T>& values) {
    return static_cast<const T*>(upload(values.data(), values.size() * sizeof(T)));
  }
};

// final's prepare hook (kernels/asymptotic/final.hip; the CPU emulation of its team calls it too):
// the term chunks (run.chunk_terms, else ceil(terms / chunk_threads_cut) terms each) and the
// reaction words, uploaded into args; the chunk count and the state arrays' 1.0 entry in context.
void prepare_term_chunks(const CompactNetwork& network, DeviceUploads& uploads, KernelArgs& args, LaunchContext& context,
                         int chunk_threads_cut);

// A kernel variant, as kernels/asymptotic/NAME.hip defines it (NAME_variant(); its name is the list's).
struct VariantOps {
  LaunchPlan (*plan)(const LaunchContext& context);
  void (*launch)(const LaunchPlan& plan, const KernelArgs& args);
  // Once per run, before any plan: what the variant needs beyond the network (final: its term
  // chunks and reaction words), uploaded into args, with what the plan must know in context.
  // Null for variants that need nothing.
  void (*prepare)(const CompactNetwork& network, DeviceUploads& uploads, KernelArgs& args,
                  LaunchContext& context) = nullptr;
};

// The qss2 method on the GPU (kernels/qss2/qss2_kernels.hip): a variant's plan (made with
// LaunchContext::method qss2, so that its LDS holds qss2's arrays) re-sized for the qss2 kernel of
// the same threads, lanes, reduction and placement; throws std::invalid_argument where there is
// none. launch_qss2 runs it.
LaunchPlan plan_qss2(LaunchPlan plan, const LaunchContext& context);
void launch_qss2(const LaunchPlan& plan, const KernelArgs& args);

// A launch configuration: threads per zone, lanes per species, launch bound (resident blocks per
// multiprocessor, CUDA: caps registers; 0 for none).
struct KernelConfig {
  int block;
  int group;
  int min_blocks;
};
// The deck's run.kernel_config where it gives one, else the variant's defaults.
inline KernelConfig kernel_config(const LaunchContext& context, KernelConfig defaults) {
  const KernelTuning& t = context.tuning;
  return t.configured ? KernelConfig{t.block, t.group, t.min_blocks} : defaults;
}
// "BLOCKxGROUPxMIN_BLOCKS", for messages.
std::string config_name(const KernelConfig& config);

// Each variant file kernels/asymptotic/NAME.hip defines `const VariantOps* NAME_variant()` (the launch
// table in gpu_backend.hip declares those built).

// Doubles per zone of the arrays the team integrators use: Y, rate factors, fluxes, two proposals
// (qss2: its predictor and q0), each state array `padding` entries longer (final's 1.0 entry), the
// chunk sums of final, and for qss2 one more per species (p0).
inline std::int64_t zone_array_doubles(int species, int reactions, int chunks = 0, int padding = 0,
                                       IntegrationMethod method = IntegrationMethod::asymptotic) {
  const std::int64_t qss2_p0 = method == IntegrationMethod::qss2 ? species : 0;
  return 3 * (static_cast<std::int64_t>(species) + padding) + 2 * static_cast<std::int64_t>(reactions) + chunks + qss2_p0;
}

}  // namespace zoneode::gpu
