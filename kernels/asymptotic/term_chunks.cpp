// final's host-side layout of the F+/F- terms and the reactions (kernel_launch.hpp: TermChunks,
// ReactionWords), plain C++ so that host tests check it without a GPU.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "runtime/kernel_launch.hpp"

namespace zoneode::gpu {

namespace {

// 8-byte words of shared memory that a half-wave (16 lanes) loads in one wavefront: distinct
// modulo 16, or the same word (a broadcast).
constexpr int bank_pairs = 16;
constexpr int half_wave = 16;

// Extra wavefronts of one half-wave's loads at one column: the most distinct words sharing a bank
// pair, minus one.
int half_conflicts(const std::vector<std::vector<reaction_index_t>>& group, std::size_t half, std::size_t column) {
  std::array<reaction_index_t, half_wave> words;
  int count = 0;
  for (std::size_t lane = half; lane < std::min(group.size(), half + half_wave); ++lane)
    if (column < group[lane].size()) words[count++] = group[lane][column];
  int worst = count > 0 ? 1 : 0;
  for (int a = 0; a < count; ++a) {
    int same_pair = 1;
    for (int b = 0; b < a; ++b) {
      if (words[b] == words[a]) { same_pair = 0; break; }  // counted with its first occurrence
    }
    if (same_pair == 0) continue;
    for (int b = a + 1; b < count; ++b) {
      bool first = true;
      for (int c = a + 1; c < b; ++c) first = first && words[c] != words[b];
      if (first && words[b] != words[a] && words[b] % bank_pairs == words[a] % bank_pairs) ++same_pair;
    }
    worst = std::max(worst, same_pair);
  }
  return worst - 1;
}

// Orders the terms of chunks [first, first + 32) (one wave's, in storage order, longest first)
// against bank conflicts: a greedy pass column by column (each lane takes, of its remaining
// terms, one whose word its half-wave already loads at this column, else one whose bank pair is
// still free, else its next one), then exchanges of two terms within a chunk wherever they lower
// the conflicts of the two columns involved, until none does. Each chunk keeps its terms.
void order_for_banks(std::vector<std::vector<reaction_index_t>>& group) {
  std::vector<std::vector<reaction_index_t>> placed(group.size());
  std::size_t longest = 0;
  for (const auto& terms : group) longest = std::max(longest, terms.size());
  for (std::size_t column = 0; column < longest; ++column) {
    for (std::size_t half = 0; half < group.size(); half += half_wave) {
      std::array<int, bank_pairs> owner;  // the reaction whose word holds each bank pair, -1 if free
      owner.fill(-1);
      for (std::size_t lane = half; lane < std::min(group.size(), half + half_wave); ++lane) {
        std::vector<reaction_index_t>& left = group[lane];
        if (left.empty()) continue;
        std::size_t pick = 0;
        int best = 3;  // 0: same word, 1: free pair, 2: conflict
        for (std::size_t k = 0; k < left.size() && best > 0; ++k) {
          const int taken = owner[left[k] % bank_pairs];
          const int quality = taken == left[k] ? 0 : taken < 0 ? 1 : 2;
          if (quality < best) best = quality, pick = k;
        }
        const reaction_index_t r = left[pick];
        if (owner[r % bank_pairs] < 0) owner[r % bank_pairs] = r;
        placed[lane].push_back(r);
        left.erase(left.begin() + static_cast<std::ptrdiff_t>(pick));
      }
    }
  }
  group = std::move(placed);
  for (bool improved = true; improved;) {
    improved = false;
    for (std::size_t lane = 0; lane < group.size(); ++lane) {
      const std::size_t half = lane / half_wave * half_wave;
      std::vector<reaction_index_t>& terms = group[lane];
      for (std::size_t a = 0; a < terms.size(); ++a) {
        for (std::size_t b = a + 1; b < terms.size(); ++b) {
          if (terms[a] == terms[b]) continue;
          const int before = half_conflicts(group, half, a) + half_conflicts(group, half, b);
          std::swap(terms[a], terms[b]);
          const int after = half_conflicts(group, half, a) + half_conflicts(group, half, b);
          if (after < before) {
            improved = true;
          } else {
            std::swap(terms[a], terms[b]);
          }
        }
      }
    }
  }
}

}  // namespace

TermChunks make_term_chunks(const StepView& network, int chunk_terms, bool bank_order) {
  if (chunk_terms < 1) throw std::invalid_argument("term chunks: chunk_terms must be >= 1");
  // The chunks in list order, each its unit terms (a term of factor k is its reaction k times).
  std::vector<std::vector<reaction_index_t>> list;
  TermChunks chunks;
  auto cut = [&](const std::int32_t* offsets, const reaction_index_t* reaction, const stoich_factor_t* factor,
                 std::vector<std::int32_t>& per_species) {
    for (int i = 0; i < network.species_count; ++i) {
      per_species.push_back(static_cast<std::int32_t>(list.size()));
      std::vector<reaction_index_t> units;
      for (std::int32_t k = offsets[i]; k < offsets[i + 1]; ++k) units.insert(units.end(), factor[k], reaction[k]);
      for (std::size_t k = 0; k < units.size(); k += static_cast<std::size_t>(chunk_terms))
        list.emplace_back(units.begin() + static_cast<std::ptrdiff_t>(k),
                          units.begin() + static_cast<std::ptrdiff_t>(std::min(units.size(), k + chunk_terms)));
    }
    per_species.push_back(static_cast<std::int32_t>(list.size()));
  };
  cut(network.creation_offsets, network.creation_reaction, network.creation_factor, chunks.creation_chunks);
  cut(network.destruction_offsets, network.destruction_reaction, network.destruction_factor,
      chunks.destruction_chunks);
  // Longest first; a stable sort keeps list order among equals.
  std::vector<std::int32_t> order(list.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::int32_t>(k);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::int32_t a, std::int32_t b) { return list[a].size() > list[b].size(); });
  std::vector<std::vector<reaction_index_t>> stored(list.size());
  chunks.position.resize(list.size());
  chunks.list_index = order;
  for (std::size_t c = 0; c < order.size(); ++c) {
    chunks.position[order[c]] = static_cast<std::int32_t>(c);
    chunks.length.push_back(static_cast<std::int32_t>(list[order[c]].size()));
    stored[c] = list[order[c]];
  }
  // A wave sums 32 consecutive chunks (any block size: thread t takes chunks t, t + block, ...).
  if (bank_order) {
    for (std::size_t first = 0; first < stored.size(); first += 32) {
      std::vector<std::vector<reaction_index_t>> group(stored.begin() + static_cast<std::ptrdiff_t>(first),
                                                       stored.begin() + static_cast<std::ptrdiff_t>(std::min(stored.size(), first + 32)));
      order_for_banks(group);
      std::copy(group.begin(), group.end(), stored.begin() + static_cast<std::ptrdiff_t>(first));
    }
  }
  const std::int32_t longest = chunks.length.empty() ? 0 : chunks.length.front();
  chunks.column_start.push_back(0);
  for (std::int32_t j = 0; j < longest; ++j) {
    for (std::size_t c = 0; c < stored.size() && chunks.length[c] > j; ++c) chunks.terms.push_back(stored[c][j]);
    chunks.column_start.push_back(static_cast<std::int32_t>(chunks.terms.size()));
  }
  return chunks;
}

std::int64_t term_bank_conflicts(const TermChunks& chunks) {
  std::int64_t extra = 0;
  for (std::size_t j = 0; j + 1 < chunks.column_start.size(); ++j) {
    const std::int32_t begin = chunks.column_start[j], end = chunks.column_start[j + 1];
    for (std::int32_t half = begin; half < end; half += half_wave) {
      std::array<std::vector<reaction_index_t>, bank_pairs> words;
      for (std::int32_t k = half; k < std::min(end, half + half_wave); ++k) {
        auto& pair = words[chunks.terms[k] % bank_pairs];
        if (std::find(pair.begin(), pair.end(), chunks.terms[k]) == pair.end()) pair.push_back(chunks.terms[k]);
      }
      std::size_t wavefronts = 1;
      for (const auto& pair : words) wavefronts = std::max(wavefronts, pair.size());
      extra += static_cast<std::int64_t>(wavefronts) - 1;
    }
  }
  return extra;
}

int most_reactants(const StepView& network) {
  int most = 0;
  for (int r = 0; r < network.reaction_count; ++r) most = std::max(most, static_cast<int>(network.reactant_count[r]));
  return most;
}

std::vector<std::uint64_t> make_reaction_words(const StepView& network) {
  static_assert(max_reactants_per_reaction * ReactionWords::species_bits <= ReactionWords::count_shift);
  if (network.species_count > ReactionWords::max_species)
    throw std::invalid_argument("kernel final: at most " + std::to_string(ReactionWords::max_species) +
                                " species (this network has " + std::to_string(network.species_count) + ")");
  std::vector<std::uint64_t> words(network.reaction_count);
  for (int r = 0; r < network.reaction_count; ++r) {
    std::uint64_t word = static_cast<std::uint64_t>(network.reactant_count[r]) << ReactionWords::count_shift;
    if (network.reaction_flags[r] & reaction_flag_electron_capture) word |= std::uint64_t{1} << ReactionWords::capture_shift;
    for (int k = 0; k < max_reactants_per_reaction; ++k) {
      const std::uint64_t species = k < network.reactant_count[r]
                                        ? network.reactant_species[max_reactants_per_reaction * r + k]
                                        : static_cast<std::uint64_t>(network.species_count);  // the 1.0 entry
      word |= species << (ReactionWords::species_bits * k);
    }
    words[r] = word;
  }
  return words;
}

void prepare_term_chunks(const CompactNetwork& network, DeviceUploads& uploads, KernelArgs& args, LaunchContext& context,
                         int chunk_threads_cut) {
  const std::int64_t terms = network.flux_terms();
  const int chunk_terms = context.tuning.chunk_terms > 0
                              ? context.tuning.chunk_terms
                              : static_cast<int>(std::max<std::int64_t>(1, (terms + chunk_threads_cut - 1) / chunk_threads_cut));
  const TermChunks chunks = make_term_chunks(network.step_view(), chunk_terms, context.tuning.bank_order);
  args.chunk_terms = uploads.upload(chunks.terms);
  args.chunk_column_start = uploads.upload(chunks.column_start);
  args.chunk_length = uploads.upload(chunks.length);
  args.chunk_list_index = uploads.upload(chunks.list_index);
  args.creation_chunks = uploads.upload(chunks.creation_chunks);
  args.destruction_chunks = uploads.upload(chunks.destruction_chunks);
  args.chunks = chunks.chunks();
  args.reaction_words = uploads.upload(make_reaction_words(network.step_view()));
  args.reactant_slots = most_reactants(network.step_view());
  context.chunks = chunks.chunks();
  context.longest_chunk = static_cast<int>(chunks.column_start.size()) - 1;
  context.state_padding = 1;  // run_zones' 1.0 entry of each state array
}

}  // namespace zoneode::gpu
