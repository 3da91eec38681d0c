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
// Partitions here are even splits of the level range, not optimised. The counts are
// PartitionedInverse's (src/integrators/partitioned_inverse.hpp), the host reference of the design.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "deck/deck.hpp"
#include "integrators/implicit_structure.hpp"
#include "integrators/partitioned_inverse.hpp"
#include "network/compact.hpp"
#include "network/load.hpp"

namespace {

int usage(const char* why) {
  std::fprintf(stderr, "zoneode-solve-partitions: %s\nusage: zoneode-solve-partitions DECK [DECK ...] [--set KEY=VALUE ...]\n", why);
  return 2;
}

void print_partitions(const zoneode::ImplicitStructure& structure) {
  using zoneode::PartitionedInverse;
  const PartitionedInverse levels_only(structure, 1 << 30);  // one partition per level: the levels themselves
  for (int f = 0; f < 2; ++f) {
    const int levels = levels_only.levels(f);
    const std::int64_t entries = levels_only.factor_entries(f);
    std::printf("  %s: %d unknowns, %lld off-diagonal entries, %d levels\n", f == 0 ? "L" : "U",
                structure.species_count(), static_cast<long long>(entries), levels);
    std::printf("    %10s %16s %8s %16s %12s %12s\n", "partitions", "W nonzeros", "x L's", "largest W_P", "forming MACs",
                "chain levels");
    std::vector<int> parts_list = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    parts_list.erase(std::remove_if(parts_list.begin(), parts_list.end(), [&](int p) { return p >= levels; }),
                     parts_list.end());
    parts_list.push_back(levels);
    for (const int parts : parts_list) {
      const PartitionedInverse inverse(structure, parts);
      // forming beyond the first copy of each column (W(i, j) = -c(i, j)): the factor's entries
      std::printf("    %10d %16lld %8.2f %16lld %12lld %12d\n", parts, static_cast<long long>(inverse.entries(f)),
                  entries > 0 ? double(inverse.entries(f)) / double(entries) : 0.0,
                  static_cast<long long>(inverse.largest_round(f)),
                  static_cast<long long>(inverse.forming_multiply_adds(f) - entries), inverse.longest_partition(f));
    }
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
      std::printf("%s: network %s, %d species, LU %lld entries with fill, %lld updates a factorisation\n", path.c_str(),
                  network.name.c_str(), structure.species_count(), static_cast<long long>(structure.filled_entries()),
                  static_cast<long long>(structure.factor_updates()));
      print_partitions(structure);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zoneode-solve-partitions: %s\n", e.what());
    return 1;
  }
  return 0;
}
