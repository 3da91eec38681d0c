// One zone integrated by a team of threads (a workgroup): the device-side driver that every
// kernel variant instantiates. It runs the shared pieces of integrators/asymptotic.hpp and the
// shared StepControl; variants differ only in the template arguments (block size, how reductions
// are done, lanes per species) and in where the arrays they pass live (global or LDS).
//
// Mapping: threads over reactions for rate factors and fluxes, over species (or a group of lanes
// per species) for the F+/F- sums and the update. Every reduction is done in a fixed order, so a
// result is bitwise the same from run to run (no atomics in any sum); it differs from the CPU's
// serial sums only in the last bits (validation/README.md).
#pragma once

#include "runtime/gpu_runtime.hpp"
#include "runtime/kernel_launch.hpp"
#include "integrators/asymptotic.hpp"
#include "integrators/step_control.hpp"
#include "network/rates.hpp"
#include "zone_team_physics.hpp"

namespace zoneode::gpu {

// What a thread contributes to one attempt's reductions.
struct AttemptPartials {
  double mass = 0.0;           // sum A Y of the proposed state
  double release_start = 0.0;  // sum flux Q at the start state
  double release_mid = 0.0;    // sum flux Q at the half-step state (adaptive)
  double error = 0.0;          // combine_error over this thread's species
  double non_finite = 0.0;     // 1 if any of this thread's proposed abundances is not finite
};

// How a block reduces: a shared-memory tree; wave shuffles then a short tree; or wave shuffles,
// then one barrier after which every thread adds the waves' partials itself (broadcast: one
// barrier instead of the tree's log2(waves) + 2, with the scratch double-buffered so that the
// next reduction need not wait for every thread to have read this one).
enum class Reduction { tree, wave, broadcast };

// A workgroup of BLOCK threads. scratch: shared memory of scratch_doubles. LANES: the device's
// (gpu_runtime.hpp's DeviceLanes: its wave size, rank, barriers and shuffles), or the CPU
// emulation's, which runs this code with 64- or 32-lane waves (tests/test_asymptotic_team.cpp).
template <int BLOCK, Reduction REDUCTION, typename LANES = DeviceLanes>
struct BlockTeam {
  using Lanes = LANES;
  static constexpr int wave_size = Lanes::wave_size;
  static_assert(BLOCK % wave_size == 0 && (BLOCK & (BLOCK - 1)) == 0, "BLOCK: a power of two, whole waves");
  static constexpr int size = BLOCK;
  static constexpr int waves = BLOCK / wave_size;
  static constexpr int max_slots = 6;  // values reduced at once
  static constexpr bool transposed_wave_sums = Lanes::transposed_wave_sums;  // reduce_sums_and_flag
  static constexpr int scratch_doubles = REDUCTION == Reduction::broadcast ? 2 * max_slots * waves : max_slots * BLOCK;
  double* scratch;
  mutable int buffer = 0;  // broadcast: the half of the scratch the next reduction uses

  __device__ int rank() const { return Lanes::rank(); }
  __device__ void sync() const { Lanes::sync(); }
  __device__ static bool sync_any(bool predicate) { return Lanes::sync_any(predicate); }
  __device__ static double shuffle_down(double value, int offset, int width) {
    return Lanes::shuffle_down(value, offset, width);
  }
  __device__ static double shuffle_xor(double value, int mask, int width) { return Lanes::shuffle_xor(value, mask, width); }
  __device__ static double shuffle_from(double value, int source, int width) {
    return Lanes::shuffle_from(value, source, width);
  }

  // Reduces N values per thread over each wave (shuffles); lane 0 of a wave holds its results.
  template <int SUMS, int N>
  __device__ static void reduce_wave(double (&v)[N]) {
#pragma unroll
    for (int slot = 0; slot < N; ++slot) {
#pragma unroll
      for (int offset = wave_size / 2; offset > 0; offset /= 2) {
        const double other = shuffle_down(v[slot], offset, wave_size);
        v[slot] = slot < SUMS ? v[slot] + other : combine_error(v[slot], other);
      }
    }
  }

  // Reduces N values per thread over the block: slots [0, SUMS) are added, the others combined
  // by combine_error (a max that keeps INFINITY). On return every thread holds the results.
  template <int SUMS, int N>
  __device__ void reduce(double (&v)[N]) const {
    static_assert(N <= max_slots, "at most max_slots values at once");
    if constexpr (REDUCTION == Reduction::broadcast) {
      reduce_wave<SUMS>(v);
      // Reduction k writes half k % 2; a thread reaches reduction k + 2 only after every thread
      // has passed the barrier of reduction k + 1, so after every read of reduction k.
      double* partials = scratch + buffer * max_slots * waves;
      buffer ^= 1;
      if (rank() % wave_size == 0) {
#pragma unroll
        for (int slot = 0; slot < N; ++slot) partials[slot * waves + rank() / wave_size] = v[slot];
      }
      sync();
#pragma unroll
      for (int slot = 0; slot < N; ++slot) {
        double total = partials[slot * waves];
        for (int wave = 1; wave < waves; ++wave)
          total = slot < SUMS ? total + partials[slot * waves + wave] : combine_error(total, partials[slot * waves + wave]);
        v[slot] = total;
      }
      return;
    }
    int count = BLOCK;
    if constexpr (REDUCTION == Reduction::wave) {
      reduce_wave<SUMS>(v);
      const int lane = rank() % wave_size, wave = rank() / wave_size;
      if (lane == 0) {
#pragma unroll
        for (int slot = 0; slot < N; ++slot) scratch[slot * BLOCK + wave] = v[slot];
      }
      count = waves;
    } else {
#pragma unroll
      for (int slot = 0; slot < N; ++slot) scratch[slot * BLOCK + rank()] = v[slot];
    }
    sync();
    for (int half = count / 2; half > 0; half /= 2) {
      if (rank() < half) {
#pragma unroll
        for (int slot = 0; slot < N; ++slot) {
          double& mine = scratch[slot * BLOCK + rank()];
          const double other = scratch[slot * BLOCK + rank() + half];
          mine = slot < SUMS ? mine + other : combine_error(mine, other);
        }
      }
      sync();
    }
#pragma unroll
    for (int slot = 0; slot < N; ++slot) v[slot] = scratch[slot * BLOCK];
    sync();  // the scratch may be reused at once
  }

  __device__ double sum(double value) const {
    double v[1] = {value};
    reduce<1>(v);
    return v[0];
  }

  // Sums N values per thread over the block, and whether `flag` was set on any thread. broadcast:
  // the flag rides on the reduction's one barrier (sync_any) instead of being a value of its own,
  // and the waves' partials are added pairwise (log2(waves) dependent adds instead of waves - 1);
  // every thread adds them in the same order, so every thread holds the same bits. Other
  // reductions count the flag as one more sum (0s and 1s: exact).
  template <int N>
  __device__ void reduce_sums_and_flag(double (&v)[N], bool& flag) const {
    if constexpr (REDUCTION == Reduction::broadcast && N <= 4 && transposed_wave_sums) {
      // Four sums (N padded) over a wave in fewer shuffles than four butterflies: the first level
      // sends half the values each way (the lower half-wave keeps slots 0-1, the upper 2-3), the
      // second half of those, the rest is one butterfly; a quarter-wave then holds one slot's
      // wave sum. After the barrier each quarter-wave adds its slot's wave partials (a strided
      // sum, then a butterfly), and every lane takes the N totals from the quarter-waves' first
      // lanes. Every lane ends with the same bits; the order is fixed, as the other reductions'.
      constexpr int quarter = wave_size / 4;
      const int lane = rank() % wave_size;
      double a[4];
#pragma unroll
      for (int slot = 0; slot < 4; ++slot) a[slot] = slot < N ? v[slot] : 0.0;
      const bool upper = (lane & (wave_size / 2)) != 0, second = (lane & quarter) != 0;
      const double kept0 = upper ? a[2] : a[0], kept1 = upper ? a[3] : a[1];
      const double b0 = kept0 + shuffle_xor(upper ? a[0] : a[2], wave_size / 2, wave_size);
      const double b1 = kept1 + shuffle_xor(upper ? a[1] : a[3], wave_size / 2, wave_size);
      double c = (second ? b1 : b0) + shuffle_xor(second ? b0 : b1, quarter, wave_size);
#pragma unroll
      for (int mask = quarter / 2; mask > 0; mask /= 2) c += shuffle_xor(c, mask, wave_size);
      const int slot = lane / quarter;  // the slot this lane's c sums: 2 * upper + second
      double* partials = scratch + buffer * max_slots * waves;
      buffer ^= 1;
      if (lane % quarter == 0 && slot < N) partials[slot * waves + rank() / wave_size] = c;
      flag = sync_any(flag);
      constexpr int spread = waves < quarter ? waves : quarter;  // lanes of a quarter-wave that load
      const int k = lane % spread;
      double total = 0.0;
      if (slot < N) {
        total = partials[slot * waves + k];
#pragma unroll
        for (int w = k + spread; w < waves; w += spread) total += partials[slot * waves + w];
      }
#pragma unroll
      for (int mask = spread / 2; mask > 0; mask /= 2) total += shuffle_xor(total, mask, wave_size);
#pragma unroll
      for (int s = 0; s < N; ++s) v[s] = shuffle_from(total, s * quarter, wave_size);
    } else if constexpr (REDUCTION == Reduction::broadcast) {
      reduce_wave<N>(v);
      double* partials = scratch + buffer * max_slots * waves;
      buffer ^= 1;
      if (rank() % wave_size == 0) {
#pragma unroll
        for (int slot = 0; slot < N; ++slot) partials[slot * waves + rank() / wave_size] = v[slot];
      }
      flag = sync_any(flag);
#pragma unroll
      for (int slot = 0; slot < N; ++slot) v[slot] = pairwise_sum<waves>(partials + slot * waves, rank());
    } else {
      double all[N + 1];
#pragma unroll
      for (int slot = 0; slot < N; ++slot) all[slot] = v[slot];
      all[N] = flag ? 1.0 : 0.0;
      reduce<N + 1>(all);
#pragma unroll
      for (int slot = 0; slot < N; ++slot) v[slot] = all[slot];
      flag = all[N] != 0.0;
    }
  }

  // ((p0 + p1) + (p2 + p3)) + ...: COUNT (a power of two, at most a wave) values in a fixed tree
  // order. Lane w loads p[w % COUNT] and a butterfly of shuffles adds the tree's levels: every lane
  // ends with the same bits (a + b == b + a), in one load per wave instead of COUNT per thread
  // (after the barrier every wave would otherwise queue COUNT shared loads: EXPERIMENTS.md 23).
  template <int COUNT>
  __device__ static double pairwise_sum(const double* p, int rank) {
    static_assert(COUNT <= wave_size && (COUNT & (COUNT - 1)) == 0, "COUNT: a power of two, at most a wave");
    double value = p[rank % COUNT];
#pragma unroll
    for (int mask = 1; mask < COUNT; mask *= 2) value += shuffle_xor(value, mask, COUNT);
    return value;
  }
};

// How a team computes every species' F+ and F-: a policy with
//     for_each_species(team, net, flux, body)
// that calls body(i, fplus, fminus) once per species, on one thread (the species' owner), and
// leaves the others out. Every thread of the team must call it.

// GROUP lanes per species (GROUP 1: a thread per species, the CPU's order): each lane sums every
// GROUP-th term of the species' CSR lists, then the group adds its lanes by shuffles. Every lane
// of a wave runs the same number of rounds, since shuffles need the whole wave.
template <int GROUP>
struct LaneGroupSums {
  template <typename Team, typename Fluxes, typename Body>
  __device__ void for_each_species(const Team& team, const StepView& net, const Fluxes& flux, Body&& body) const {
    constexpr int groups = Team::size / GROUP;
    const int group = team.rank() / GROUP, lane = team.rank() % GROUP;
    for (int base = 0; base < net.species_count; base += groups) {
      const int i = base + group;
      const bool active = i < net.species_count;
      double fplus = 0.0, fminus = 0.0;
      if (active) {
        for (int k = net.creation_offsets[i] + lane; k < net.creation_offsets[i + 1]; k += GROUP)
          fplus += flux_term(net.creation_reaction, net.creation_factor, k, flux);
        for (int k = net.destruction_offsets[i] + lane; k < net.destruction_offsets[i + 1]; k += GROUP)
          fminus += flux_term(net.destruction_reaction, net.destruction_factor, k, flux);
      }
      if constexpr (GROUP > 1) {
        fplus = lane_group_sum<GROUP, typename Team::Lanes>(fplus);
        fminus = lane_group_sum<GROUP, typename Team::Lanes>(fminus);
      }
      if (active && lane == 0) body(i, fplus, fminus);
    }
  }
};

// The latency path's species chunk sums (ResidentChunkSums) loaded ahead of their adds, this many
// at a time: 8 on NVIDIA; on gfx90a, where final runs at its 128-VGPR cap for 4 waves per SIMD, 2
// (larger unrolls spill VGPRs there; kernels/RESOURCES.md). Code generation only: the adds and
// their order are the same for any value. Measured (H100, 2026-12-07, kernels/bench/final-ab.sh):
// h104 26.64 -> 24.37 ns per zone-step on the latency path, while the same loads ahead in ChunkSums
// (its species phase, and a chunk's terms 8 at a time) made the other paths 11-23% slower (h832
// 15.22 -> 16.93, h6656 12.75 -> 14.22, (a) 9.41 -> 11.52, (c1) 7.22 -> 8.86): ChunkSums keeps one
// load per add.
#if defined(__CUDACC__)
constexpr int species_chunk_unroll = 8;
#else
constexpr int species_chunk_unroll = 2;
#endif
// A species' F+ and F- from its chunk sums (consecutive LDS words, list order), the two chains
// side by side: the loads of UNROLL chunks of each are issued before their adds, which then run in
// list order, one add per chunk (the same additions as one add per loaded word: bitwise). A loop
// with one dependent load per add waits an LDS latency per chunk, and the heavy species (n, p, he4:
// 20-40 chunks each) bound the species phase of every step.
template <int UNROLL>
__device__ inline void add_species_chunks(const double* chunk_sum, int creation_first, int creation,
                                          int destruction_first, int destruction, double& fplus, double& fminus) {
  const int longer = creation > destruction ? creation : destruction;
  for (int k = 0; k < longer; k += UNROLL) {
    double plus[UNROLL], minus[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      plus[u] = k + u < creation ? chunk_sum[creation_first + k + u] : 0.0;
      minus[u] = k + u < destruction ? chunk_sum[destruction_first + k + u] : 0.0;
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (k + u < creation) fplus += plus[u];
      if (k + u < destruction) fminus += minus[u];
    }
  }
}

// Balanced chunks (final): the F+ and F- term lists, end to end, with a term of factor k written
// as k unit terms, are cut into chunks of at most a few terms of one species' list, about one
// chunk per thread, and stored by column for coalesced loads (TermChunks in kernel_launch.hpp,
// built on the host). Each thread sums its chunks into LDS at the chunks' list-order numbers
// (one index per chunk, loaded beside its terms); after a barrier each species adds its few
// chunks in list order, from consecutive LDS words (no index per chunk on the species' serial
// path, which bounds a step when zones are few: EXPERIMENTS.md 21). A species with 686 terms
// (s150's neutron) no longer holds its whole block back. A term is a reaction index only: flux[r]
// added k times instead of k * flux[r] (no conversion, no multiply; rounding differs from the
// CPU's in the last bits).
struct ChunkSums {
  const reaction_index_t* terms;          // by column: term j of chunk c at terms[column_start[j] + c]
  const std::int32_t* column_start;
  const std::int32_t* length;             // [chunks]
  const std::int32_t* list_index;         // [chunks]: storage order -> list order
  const std::int32_t* creation_chunks;    // [species + 1]: species i's F+ chunks, in list order
  const std::int32_t* destruction_chunks; // [species + 1]: its F- chunks
  int chunks;
  double* chunk_sum;                      // LDS, [chunks], in list order

  template <typename Team, typename Fluxes, typename Body>
  __device__ void for_each_species(const Team& team, const StepView& net, const Fluxes& flux, Body&& body) const {
    for (int c = team.rank(); c < chunks; c += Team::size) {
      double sum = 0.0;
      const int terms_in_chunk = length[c];
      for (int j = 0; j < terms_in_chunk; ++j) sum += flux[terms[column_start[j] + c]];
      chunk_sum[list_index[c]] = sum;
    }
    team.sync();
    for (int i = team.rank(); i < net.species_count; i += Team::size) {
      double fplus = 0.0, fminus = 0.0;
      for (int c = creation_chunks[i]; c < creation_chunks[i + 1]; ++c) fplus += chunk_sum[c];
      for (int c = destruction_chunks[i]; c < destruction_chunks[i + 1]; ++c) fminus += chunk_sum[c];
      body(i, fplus, fminus);
    }
  }
};

// final's latency path (few zones: a block per zone, alone on its multiprocessor). What ChunkSums
// loads on every step - a chunk's length and term indices, a species' chunk range - is the same on
// every step of every zone, so each thread loads its share once per launch into registers: a chunk
// per thread (chunks <= BLOCK, at most MAX_TERMS terms), a species per thread (species <= BLOCK).
// Then a step's chunk phase is the flux loads alone, issued ahead of the adds, instead of two
// dependent L1 loads per term (ncu, h104 on the H200: the chunk loop 2,200 of 10,350 warp
// instructions per zone-step and 14% of the stall samples, the barrier after it another 10%). The
// same terms added in the same order as ChunkSums: bitwise the same sums.
template <int BLOCK, int MAX_TERMS>
struct ResidentChunkSums {
  static constexpr int index_words = (MAX_TERMS + 1) / 2;
  std::uint32_t index_pair[index_words] = {};  // this thread's chunk: two 16-bit reaction indices per word
  int length = 0;                               // its terms (0: no chunk)
  int list_slot = 0;                            // where its sum goes (list order)
  int creation_first = 0, creation_last = 0, destruction_first = 0, destruction_last = 0;  // its species' chunks
  double* chunk_sum = nullptr;                  // LDS, [chunks], in list order

  ResidentChunkSums() = default;
  // Whether a launch's chunks fit: one per thread, each of at most MAX_TERMS terms, a species per thread.
  static constexpr bool fits(int chunks, int longest_chunk, int species_count) {
    return chunks <= BLOCK && longest_chunk <= MAX_TERMS && species_count <= BLOCK;
  }

  __device__ ResidentChunkSums(const KernelArgs& a, int rank, double* chunk_sum_) : chunk_sum(chunk_sum_) {
    if (rank < a.chunks) {
      length = a.chunk_length[rank];
      list_slot = a.chunk_list_index[rank];
#pragma unroll
      for (int j = 0; j < MAX_TERMS; ++j) {
        if (j < length)
          index_pair[j / 2] |= static_cast<std::uint32_t>(a.chunk_terms[a.chunk_column_start[j] + rank]) << (16 * (j % 2));
      }
    }
    if (rank < a.step.species_count) {
      creation_first = a.creation_chunks[rank];
      creation_last = a.creation_chunks[rank + 1];
      destruction_first = a.destruction_chunks[rank];
      destruction_last = a.destruction_chunks[rank + 1];
    }
  }

  template <typename Team, typename Fluxes, typename Body>
  __device__ void for_each_species(const Team& team, const StepView& net, const Fluxes& flux, Body&& body) const {
    static_assert(Team::size == BLOCK, "the registers hold BLOCK threads' shares");
    if (length > 0) {
      double sum = 0.0;
#pragma unroll
      for (int j = 0; j < MAX_TERMS; ++j) {  // unrolled: the loads' addresses are known, the compiler issues them early
        if (j < length) sum += flux[index_pair[j / 2] >> (16 * (j % 2)) & 0xffffu];
      }
      chunk_sum[list_slot] = sum;
    }
    team.sync();
    if (team.rank() < net.species_count) {
      // F+ and F- in one loop: two independent chains of adds side by side instead of one after
      // the other (a species' two sums bound this phase; each in ChunkSums' order, so the same bits).
      double fplus = 0.0, fminus = 0.0;
      add_species_chunks<species_chunk_unroll>(chunk_sum, creation_first, creation_last - creation_first,
                                               destruction_first, destruction_last - destruction_first, fplus, fminus);
      body(team.rank(), fplus, fminus);
    }
  }
};

// This thread's part of Ye = sum Z_i Y_i, over the species it owns in strided order.
template <typename Team, typename Abundances>
__device__ inline double electron_fraction_part(const Team& team, const StepView& net, const Abundances& Y) {
  double part = 0.0;
  for (int i = team.rank(); i < net.species_count; i += Team::size) part += net.species_Z[i] * Y[i];
  return part;
}

// Where a team reads each reaction's reactants: the step view's CSR arrays, or final's one word
// per reaction (ReactionWords). The flux is reaction_flux()'s either way.
struct StepViewReactions {
  template <typename Array, typename Abundances>
  __device__ double flux(const StepView& net, int r, const Array& rate_factor, const Abundances& Y, double ye) const {
    return reaction_flux(net, r, rate_factor[r], Y, ye);
  }
};
// final: every reaction multiplies in the network's most reactants, a reaction's unused slots
// naming Y[species_count], which run_zones keeps at 1.0 (reaction_flux_slots: bitwise
// reaction_flux's), so a warp's reactions do not diverge on their counts.
struct WordReactions {
  const std::uint64_t* words;
  int slots;
  template <typename Array, typename Abundances>
  __device__ double flux(const StepView&, int r, const Array& rate_factor, const Abundances& Y, double ye) const {
    const std::uint64_t word = words[r];
    return reaction_flux_slots(
        rate_factor[r], slots,
        [word](int k) { return static_cast<int>(word >> (ReactionWords::species_bits * k) & ReactionWords::species_mask); },
        (word >> ReactionWords::capture_shift & 1) != 0, Y, ye);
  }
};

// final's latency path: WordReactions with each thread's reaction words (reactions rank, rank +
// BLOCK, ...: at most PER_THREAD) in registers, loaded once per launch; its fluxes are computed
// before any is stored, so that every reactant load of the thread is issued at once (a store to
// flux could alias Y's entries as far as the compiler knows). Bitwise WordReactions' fluxes and
// release sum (same products, same order).
constexpr int resident_reactions_per_thread = 4;  // 2,048 reactions at 512 threads
template <int BLOCK, int PER_THREAD>
struct ResidentReactions {
  std::uint64_t word[PER_THREAD] = {};
  int slots = 0;
  ResidentReactions() = default;
  static constexpr bool fits(int reaction_count) { return reaction_count <= BLOCK * PER_THREAD; }
  __device__ ResidentReactions(const KernelArgs& a, int rank) : slots(a.reactant_slots) {
#pragma unroll
    for (int k = 0; k < PER_THREAD; ++k) {
      const int r = rank + k * BLOCK;
      if (r < a.step.reaction_count) word[k] = a.reaction_words[r];
    }
  }
};

// Fluxes of every reaction at abundances Y with electron fraction ye (threads over reactions);
// returns this thread's part of sum flux Q. Ends with a barrier: flux is complete on return.
template <typename Team, typename Reactions, typename Abundances, typename Array>
__device__ inline double team_fluxes(const Team& team, const Reactions& reactions, const StepView& net,
                                     const Array& rate_factor, const Abundances& Y, double ye, Array flux) {
  double release = 0.0;
  for (int r = team.rank(); r < net.reaction_count; r += Team::size) {
    flux[r] = reactions.flux(net, r, rate_factor, Y, ye);
    release += flux[r] * net.q_value_MeV[r];
  }
  team.sync();
  return release;
}

template <typename Team, int BLOCK, int PER_THREAD, typename Abundances, typename Array>
__device__ inline double team_fluxes(const Team& team, const ResidentReactions<BLOCK, PER_THREAD>& reactions,
                                     const StepView& net, const Array& rate_factor, const Abundances& Y, double ye,
                                     Array flux) {
  static_assert(Team::size == BLOCK, "the registers hold BLOCK threads' shares");
  double value[PER_THREAD];
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const int r = team.rank() + k * BLOCK;
    const std::uint64_t word = reactions.word[k];
    value[k] = r < net.reaction_count
                   ? reaction_flux_slots(
                         rate_factor[r], reactions.slots,
                         [word](int j) { return static_cast<int>(word >> (ReactionWords::species_bits * j) & ReactionWords::species_mask); },
                         (word >> ReactionWords::capture_shift & 1) != 0, Y, ye)
                   : 0.0;
  }
  double release = 0.0;
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    const int r = team.rank() + k * BLOCK;
    if (r < net.reaction_count) {
      flux[r] = value[k];
      release += value[k] * net.q_value_MeV[r];
    }
  }
  team.sync();
  return release;
}

// A zone's start, for every team integrator: its initial mass and finiteness reduced, the step
// control made from them, and (when the zone runs) every reaction's rate factor; ends with a
// barrier. PARTITION: the rate factors with the partition functions (the physics instantiations;
// the plain kernels call the REACLIB fit alone, which costs them fewer registers).
template <bool PARTITION, typename Team, typename Array>
__device__ inline StepControl team_start_zone(const Team& team, const RateView& rates, const StepView& net,
                                              const IntegratorSettings& settings, double T9, double rho, Array Y,
                                              Array rate_factor) {
  double initial[2] = {0.0, 0.0};  // mass (a sum), non-finite (a max)
  for (int i = team.rank(); i < net.species_count; i += Team::size) {
    initial[0] += net.species_A[i] * Y[i];
    if (!is_finite(Y[i])) initial[1] = 1.0;
  }
  team.template reduce<1>(initial);
  StepControl control(settings, initial[0], zone_input_valid(T9, rho, initial[1] == 0.0, initial[0]));
  if (control.running()) {
    for (int r = team.rank(); r < rates.reaction_count; r += Team::size)  // physics hook: partition functions
      rate_factor[r] = PARTITION ? reaction_rate_factor(rates, r, T9, rho)
                                 : reaction_rate_factor_fitted(rates, r, T9, rho);
  }
  team.sync();
  return control;
}

// Integrates one zone like integrate_zone(), with the team. Y, rate_factor, flux, y_full and
// y_half may live in global memory or LDS; every thread of the team must call this.
// FUSED_YE: the electron fraction of a proposed state is reduced with the attempt's other sums
// (one reduction per geometric step instead of two) and reused as the next step's Ye when the
// state is accepted unscaled; otherwise Ye is reduced on its own before each flux evaluation.
// SWAP: an accepted proposal becomes Y by exchanging the two arrays' roles, not by a copy and a
// barrier (a geometric step then has three barriers: fluxes, chunk sums, the reduction). The
// exchange is safe without a barrier: the old Y is next written in the next step's species phase,
// after that step's flux barrier, by when every read of it is done.
// PHYSICS: the instantiation that evaluates the physics options (zone_team_physics.hpp) as the step
// view's run-time flags ask; without it the code is exactly that of a run without options.
template <bool FUSED_YE, bool SWAP, bool PHYSICS = false, typename Sums, typename Reactions, typename Team,
          typename Array>
__device__ inline void integrate_zone_team(const Team& team, const Sums& sums, const Reactions& reactions,
                                           const RateView& rates,
                                           const StepView& net, const IntegratorSettings& settings, double T9,
                                           double rho, Array Y, Array rate_factor, Array flux, Array y_full,
                                           Array y_half, ZoneResult* result) {
  const Array zone_Y = Y;
  const int S = net.species_count;
  const double floor = settings.abundance_floor;
  StepControl control = team_start_zone<PHYSICS>(team, rates, net, settings, T9, rho, Y, rate_factor);
  const bool adaptive = settings.schedule == StepSchedule::adaptive;
  bool ye_known = false;  // FUSED_YE: ye holds Ye of the current Y
  double ye = 0.0;
  while (control.begin_attempt()) {
    const double step = control.step();
    AttemptPartials part;
    double ye_part = 0.0;  // FUSED_YE: Ye of the proposed state
    if (!(FUSED_YE && ye_known)) ye = team.sum(electron_fraction_part(team, net, Y));
    // physics hook (zone_team_physics.hpp): the screened rate factors in flux, or rate_factor
    const Array rates_at_Y = team_screened_rate_factors<PHYSICS>(team, net, rate_factor, Y, T9, rho, ye, flux);
    part.release_start = team_fluxes(team, reactions, net, rates_at_Y, Y, ye, flux);
    if (!adaptive) {
      sums.for_each_species(team, net, flux, [&](int i, double fplus, double fminus) {
        const double y = asymptotic_update(Y[i], fplus, fminus, step, floor);
        y_full[i] = y;
        part.mass += net.species_A[i] * y;
        if constexpr (FUSED_YE) ye_part += net.species_Z[i] * y;
        if (!is_finite(y)) part.non_finite = 1.0;
      });
    } else {
      // One full step and the first half step share the fluxes at Y.
      sums.for_each_species(team, net, flux, [&](int i, double fplus, double fminus) {
        y_full[i] = asymptotic_update(Y[i], fplus, fminus, step, floor);
        y_half[i] = asymptotic_update(Y[i], fplus, fminus, 0.5 * step, floor);
      });
      team.sync();
      const double ye_half = team.sum(electron_fraction_part(team, net, y_half));
      // physics hook (zone_team_physics.hpp): screening at the half-step state
      const Array rates_at_half =
          team_screened_rate_factors<PHYSICS>(team, net, rate_factor, y_half, T9, rho, ye_half, flux);
      part.release_mid = team_fluxes(team, reactions, net, rates_at_half, y_half, ye_half, flux);
      sums.for_each_species(team, net, flux, [&](int i, double fplus, double fminus) {
        const double y = asymptotic_update(y_half[i], fplus, fminus, 0.5 * step, floor);
        y_half[i] = y;
        part.error = combine_error(part.error, scaled_local_error(settings, Y[i], y, y_full[i]));
        part.mass += net.species_A[i] * y;
        if constexpr (FUSED_YE) ye_part += net.species_Z[i] * y;
        if (!is_finite(y)) part.non_finite = 1.0;
      });
    }
    AttemptReductions reductions;
    double ye_next = 0.0;  // FUSED_YE: Ye of the proposed state
    if (adaptive) {
      double v[6] = {part.mass, part.release_start, part.release_mid, ye_part, part.error, part.non_finite};
      team.template reduce<FUSED_YE ? 4 : 3>(v);  // sums, then maxima (slot 3 is unused, 0, unless fused)
      reductions.mass = v[0];
      reductions.release_rate_start = v[1];
      reductions.release_rate_mid = v[2];
      ye_next = v[3];
      reductions.error_norm = v[4];
      reductions.finite = v[5] == 0.0;
    } else {
      // A geometric step has no half-step release and no error estimate: two values fewer, and
      // the non-finite flag rides on the reduction's barrier.
      double v[3] = {part.mass, part.release_start, ye_part};  // slot 2 unused (0) unless fused
      bool non_finite = part.non_finite != 0.0;
      team.reduce_sums_and_flag(v, non_finite);
      reductions.mass = v[0];
      reductions.release_rate_start = v[1];
      ye_next = v[2];
      reductions.finite = !non_finite;
    }
    // Every thread runs the same controller on the same reduced values: no broadcast needed.
    if (control.end_attempt(reductions) == StepVerdict::accepted) {
      const double scale = control.scale();
      if constexpr (SWAP) {
        const Array previous = Y;
        if (adaptive) {
          Y = y_half;
          y_half = previous;
        } else {
          Y = y_full;
          y_full = previous;
        }
        if (scale != 1.0) {  // every thread takes the same branch
          for (int i = team.rank(); i < S; i += Team::size) Y[i] *= scale;
          team.sync();
        }
      } else {
        const Array proposed = adaptive ? y_half : y_full;
        for (int i = team.rank(); i < S; i += Team::size) Y[i] = proposed[i] * scale;
      }
      if constexpr (FUSED_YE) {
        ye = ye_next;
        ye_known = scale == 1.0;  // a renormalised state is summed again
      }
    }
    if constexpr (!SWAP) team.sync();
  }
  if constexpr (SWAP) {
    // The result belongs in the caller's array, which after an odd number of exchanges is not Y.
    if (Y != zone_Y) {
      for (int i = team.rank(); i < S; i += Team::size) zone_Y[i] = Y[i];
      Y = zone_Y;  // each thread reads back only what it wrote: no barrier needed
    }
  }
  double final_mass = 0.0;
  for (int i = team.rank(); i < S; i += Team::size) final_mass += net.species_A[i] * Y[i];
  final_mass = team.sum(final_mass);
  if (team.rank() == 0) {
    if constexpr (PHYSICS) {  // the zone's T9, its input: self-heating runs never reach a team kernel
      ZoneResult finished = control.finish(final_mass);
      finished.final_T9 = T9;
      *result = finished;
    } else {
      *result = control.finish(final_mass);
    }
  }
}

}  // namespace zoneode::gpu
