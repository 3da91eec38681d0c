// final's host-side layouts (kernels/asymptotic/term_chunks.cpp): the term chunks hold every species' terms
// (a factor-k term as k unit terms), their sums equal the CSR sums, the bank ordering is only a
// permutation within each chunk and removes conflicts the model counts; the branch-free flux is
// bitwise the serial one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "runtime/kernel_launch.hpp"
#include "network/analytic.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "network/rates.hpp"
#include "network_testing.hpp"

namespace zoneode {
namespace {

// Species i's unit terms, read back as final does: its chunks in list order, each chunk's terms
// by column. Checks the storage (every stored term read once, lengths within the cut, longest
// first).
std::vector<std::vector<reaction_index_t>> read_back(const StepView& net, const gpu::TermChunks& chunks,
                                                     const std::vector<std::int32_t>& per_species, int chunk_terms,
                                                     std::vector<int>& seen) {
  std::vector<std::vector<reaction_index_t>> out(net.species_count);
  for (int i = 0; i < net.species_count; ++i) {
    for (std::int32_t c = per_species[i]; c < per_species[i + 1]; ++c) {
      const std::int32_t stored = chunks.position[c];
      EXPECT_EQ(chunks.list_index[stored], c) << "list_index is not position's inverse";
      EXPECT_GE(chunks.length[stored], 1);
      EXPECT_LE(chunks.length[stored], chunk_terms);
      for (std::int32_t j = 0; j < chunks.length[stored]; ++j) {
        const std::int32_t at = chunks.column_start[j] + stored;
        EXPECT_LT(at, chunks.column_start[j + 1]);
        ++seen[at];
        out[i].push_back(chunks.terms[at]);
      }
    }
  }
  return out;
}

// The unit terms of species i's CSR row: reaction r once per unit of its factor, in list order.
std::vector<reaction_index_t> units(const std::int32_t* offsets, const reaction_index_t* reaction,
                                    const stoich_factor_t* factor, int i) {
  std::vector<reaction_index_t> out;
  for (std::int32_t k = offsets[i]; k < offsets[i + 1]; ++k) out.insert(out.end(), factor[k], reaction[k]);
  return out;
}

void expect_chunks_hold_the_lists(const StepView& net, const gpu::TermChunks& chunks, int chunk_terms, bool bank_order) {
  std::vector<int> seen(chunks.terms.size(), 0);
  const auto plus = read_back(net, chunks, chunks.creation_chunks, chunk_terms, seen);
  const auto minus = read_back(net, chunks, chunks.destruction_chunks, chunk_terms, seen);
  for (std::size_t at = 0; at < seen.size(); ++at) EXPECT_EQ(seen[at], 1) << "stored term " << at;
  for (std::size_t c = 1; c < chunks.length.size(); ++c) EXPECT_GE(chunks.length[c - 1], chunks.length[c]);
  for (int i = 0; i < net.species_count; ++i) {
    auto a = units(net.creation_offsets, net.creation_reaction, net.creation_factor, i);
    auto b = units(net.destruction_offsets, net.destruction_reaction, net.destruction_factor, i);
    if (!bank_order) {  // list order kept
      EXPECT_EQ(plus[i], a) << "F+ of species " << i;
      EXPECT_EQ(minus[i], b) << "F- of species " << i;
      continue;
    }
    // Bank order permutes terms within a chunk only: the same multiset, and each chunk's set.
    auto sorted = [](std::vector<reaction_index_t> v) { std::sort(v.begin(), v.end()); return v; };
    EXPECT_EQ(sorted(plus[i]), sorted(a)) << "F+ of species " << i;
    EXPECT_EQ(sorted(minus[i]), sorted(b)) << "F- of species " << i;
  }
}

TEST(TermChunks, HoldEverySpeciesListAsUnitTerms) {
  for (const char* preset : {"s16", "s150"}) {
    const CompactNetwork compact(generate_network(generator_preset(preset)));
    for (int chunk_terms : {1, 7, 41, 100000}) {
      for (bool bank_order : {false, true}) {
        SCOPED_TRACE(std::string(preset) + " chunk_terms " + std::to_string(chunk_terms) + (bank_order ? " banks" : " list"));
        expect_chunks_hold_the_lists(compact.step_view(), gpu::make_term_chunks(compact.step_view(), chunk_terms, bank_order),
                                     chunk_terms, bank_order);
      }
    }
  }
}

// F+ and F- summed as final sums them (unit terms per chunk, chunks in list order) equal the
// CSR sums factor * flux within rounding, on random fluxes over 30 decades.
TEST(TermChunks, SumsMatchTheCsrSums) {
  const CompactNetwork compact(generate_network(generator_preset("s150")));
  const StepView net = compact.step_view();
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> exponent(-30.0, 0.0);
  std::vector<double> flux(net.reaction_count);
  for (double& f : flux) f = std::pow(10.0, exponent(random));
  for (bool bank_order : {false, true}) {
    const gpu::TermChunks chunks = gpu::make_term_chunks(net, 20, bank_order);
    // As ChunkSums: stored chunk c summed into its list-order slot, species read their slots.
    std::vector<double> chunk_sum(chunks.chunks(), 0.0);
    for (int c = 0; c < chunks.chunks(); ++c)
      for (int j = 0; j < chunks.length[c]; ++j)
        chunk_sum[chunks.list_index[c]] += flux[chunks.terms[chunks.column_start[j] + c]];
    for (int i = 0; i < net.species_count; ++i) {
      double plus = 0.0, minus = 0.0;
      for (int c = chunks.creation_chunks[i]; c < chunks.creation_chunks[i + 1]; ++c) plus += chunk_sum[c];
      for (int c = chunks.destruction_chunks[i]; c < chunks.destruction_chunks[i + 1]; ++c) minus += chunk_sum[c];
      const double want_plus = creation_sum(net, i, flux), want_minus = destruction_sum(net, i, flux);
      EXPECT_LE(std::fabs(plus - want_plus), 1e-14 * want_plus) << "F+ species " << i;
      EXPECT_LE(std::fabs(minus - want_minus), 1e-14 * want_minus) << "F- species " << i;
    }
  }
}

// The greedy order removes most of the modelled conflicts of s150's flux gathers (a check that
// the ordering does something, measured, not assumed).
TEST(TermChunks, BankOrderRemovesModelledConflicts) {
  const CompactNetwork compact(generate_network(generator_preset("s150")));
  const std::int64_t list = gpu::term_bank_conflicts(gpu::make_term_chunks(compact.step_view(), 21, false));
  const std::int64_t banks = gpu::term_bank_conflicts(gpu::make_term_chunks(compact.step_view(), 21, true));
  RecordProperty("conflicts_list_order", static_cast<int>(list));
  RecordProperty("conflicts_bank_order", static_cast<int>(banks));
  EXPECT_GT(list, 0);
  EXPECT_LT(banks, list / 2) << "list order " << list << ", bank order " << banks;
}

// The conflict model itself on a hand-made column: 16 lanes loading words 0, 16, 32 (bank pair
// 0 three times) and 1..13 cost 2 extra wavefronts; the same word twice costs none.
TEST(TermChunks, ConflictModelCountsByHand) {
  gpu::TermChunks chunks;
  chunks.terms = {0, 16, 32, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
  chunks.column_start = {0, 16};
  EXPECT_EQ(gpu::term_bank_conflicts(chunks), 2);
  chunks.terms = {5, 5, 5, 5, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13};
  EXPECT_EQ(gpu::term_bank_conflicts(chunks), 0);
}

// reaction_flux_slots (final's branch-free flux, unused slots naming the padded 1.0 entry) is
// bitwise reaction_flux on every reaction of the generated networks, for random abundances.
TEST(ReactionFluxSlots, BitwiseTheSerialFlux) {
  for (const char* preset : {"s150", "s16"}) {
    const CompactNetwork compact(generate_network(generator_preset(preset)));
    const StepView net = compact.step_view();
    const std::vector<std::uint64_t> words = gpu::make_reaction_words(net);
    const int slots = gpu::most_reactants(net);
    std::mt19937_64 random(11);
    std::uniform_real_distribution<double> exponent(-30.0, 0.0);
    std::vector<double> Y(net.species_count + 1, 1.0);  // entry S: the 1.0 of unused slots
    for (int trial = 0; trial < 20; ++trial) {
      for (int i = 0; i < net.species_count; ++i) Y[i] = std::pow(10.0, exponent(random));
      const double ye = 0.3 + 0.1 * trial / 20.0, rate = std::pow(10.0, exponent(random) + 20.0);
      for (int r = 0; r < net.reaction_count; ++r) {
        const std::uint64_t word = words[r];
        const double got = reaction_flux_slots(
            rate, slots,
            [word](int k) { return static_cast<int>(word >> (gpu::ReactionWords::species_bits * k) & gpu::ReactionWords::species_mask); },
            (word >> gpu::ReactionWords::capture_shift & 1) != 0, Y, ye);
        EXPECT_TRUE(same_bits(got, reaction_flux(net, r, rate, Y, ye))) << preset << " reaction " << r;
      }
    }
  }
}

}  // namespace
}  // namespace zoneode
