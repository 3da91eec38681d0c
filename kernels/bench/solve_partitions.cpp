// zoneode-solve-partitions: what a partitioned inverse would make of the implicit method's
// triangular solves, for the networks of the decks given (issue 36; host only, no GPU needed).
//
//   zoneode-solve-partitions DECK [DECK ...] [--set KEY=VALUE ...]
//
// The team kernels solve L y = b and U x = y by the levels of their elimination DAG: one round per
// level (s150: 85 + 85 a solve, four solves a Rodas3 step), each a wave's loads, lane tree and
// store, the step's longest chain (kernels/EXPERIMENTS.md). A partitioned inverse (Alvarado and
// Schreiber's form) groups the levels into P consecutive partitions and stores, per partition, the
// inverse of L's columns in it, W_P: a solve is then P rounds of W_P x, every row of a round
// independent. W_P holds more nonzeros than L's columns (a path through the partition's columns
// is one entry), and forming it after each factorisation costs multiply-adds. For P = 1, 2, 4, ...
// up to the level count (the level-scheduled solve itself) this prints, for L and for U:
//   - the nonzeros of the W_P together (the multiply-adds of one solve) and against L's (U's);
//   - the largest W_P (the widest round);
//   - forming the W_P: multiply-adds (column j's entries propagated through the partition's
//     columns in order: for each column k reached inside the partition, k's entries once) and the
//     chain (levels a partition spans; the partitions are independent).
// Partitions here are even splits of the level range, not optimised.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "deck/deck.hpp"
#include "integrators/implicit_structure.hpp"
#include "network/compact.hpp"
#include "network/load.hpp"

namespace {

int usage(const char* why) {
  std::fprintf(stderr, "zoneode-solve-partitions: %s\nusage: zoneode-solve-partitions DECK [DECK ...] [--set KEY=VALUE ...]\n", why);
  return 2;
}

// A unit triangular factor as the solve uses it: later[j] = the unknowns that unknown j's value
// updates (each later in the solve order, numbered 0..n-1 in that order).
struct SolveGraph {
  int n = 0;
  std::vector<std::vector<int>> later;
};

void print_partitions(const char* name, const SolveGraph& g) {
  std::vector<int> level(g.n, 0);
  for (int j = 0; j < g.n; ++j)
    for (const int i : g.later[j]) level[i] = std::max(level[i], level[j] + 1);
  const int levels = g.n > 0 ? *std::max_element(level.begin(), level.end()) + 1 : 0;
  long entries = 0;
  for (const auto& l : g.later) entries += static_cast<long>(l.size());
  std::printf("  %s: %d unknowns, %ld off-diagonal entries, %d levels\n", name, g.n, entries, levels);
  std::printf("    %10s %16s %8s %16s %12s %12s\n", "partitions", "W nonzeros", "x L's", "largest W_P", "forming MACs",
              "chain levels");
  std::vector<int> parts_list = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
  parts_list.erase(std::remove_if(parts_list.begin(), parts_list.end(), [&](int p) { return p >= levels; }),
                   parts_list.end());
  parts_list.push_back(levels);
  std::vector<int> mark(g.n, -1);
  for (const int parts : parts_list) {
    long total = 0, largest = 0, forming = 0;
    int chain = 0;
    for (int p = 0; p < parts; ++p) {
      const int lo = static_cast<int>(static_cast<long>(levels) * p / parts);
      const int hi = static_cast<int>(static_cast<long>(levels) * (p + 1) / parts);  // levels [lo, hi)
      chain = std::max(chain, hi - lo);
      const auto inside = [&](int k) { return level[k] >= lo && level[k] < hi; };
      long part = 0;
      std::fill(mark.begin(), mark.end(), -1);
      for (int j = 0; j < g.n; ++j) {
        if (!inside(j)) continue;
        std::vector<int> stack{j};  // W_P's column j: the unknowns reached from j through the partition
        mark[j] = j;
        while (!stack.empty()) {
          const int k = stack.back();
          stack.pop_back();
          for (const int i : g.later[k]) {
            if (mark[i] == j) continue;
            mark[i] = j;
            ++part;
            if (inside(i)) {
              stack.push_back(i);
              forming += static_cast<long>(g.later[i].size());
            }
          }
        }
      }
      total += part;
      largest = std::max(largest, part);
    }
    std::printf("    %10d %16ld %8.2f %16ld %12ld %12d\n", parts, total, entries > 0 ? double(total) / entries : 0.0,
                largest, forming, chain);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace zoneode;
  std::vector<std::string> decks, overrides;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--set") {
      if (k + 1 >= argc) return usage("--set needs KEY=VALUE");
      overrides.push_back(argv[++k]);
    } else {
      decks.push_back(a);
    }
  }
  if (decks.empty()) return usage("expected at least one deck");
  try {
    for (const std::string& path : decks) {
      const Deck deck = load_deck(path, overrides);
      const Network network = load_network(deck.network);
      const CompactNetwork compact(network, deck.physics);
      const ImplicitStructure structure(compact);
      const int n = structure.species_count();
      SolveGraph lower{n, std::vector<std::vector<int>>(n)}, upper{n, std::vector<std::vector<int>>(n)};
      for (int i = 0; i < n; ++i)  // the filled pattern's rows in elimination order
        for (int p = structure.row_offsets[i]; p < structure.row_offsets[i + 1]; ++p) {
          const int j = structure.columns[p];
          if (j < i) lower.later[j].push_back(i);                   // forward: y_i -= L_ij y_j
          if (j > i) upper.later[n - 1 - j].push_back(n - 1 - i);   // backward, numbered in its solve order
        }
      std::printf("%s: network %s, %d species, LU %lld entries with fill, %lld updates a factorisation\n", path.c_str(),
                  network.name.c_str(), n, static_cast<long long>(structure.filled_entries()),
                  static_cast<long long>(structure.factor_updates()));
      print_partitions("L", lower);
      print_partitions("U", upper);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zoneode-solve-partitions: %s\n", e.what());
    return 1;
  }
  return 0;
}
