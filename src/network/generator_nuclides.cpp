#include "network/generator_arithmetic.hpp"
#include "network/generator_nuclides.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "network/generator.hpp"
#include "network/nuclides.hpp"

namespace zoneode::generator_detail {

namespace {

// One-, two-nucleon and (for light systems) alpha separation energies all positive: the nuclide
// lives long enough (ms and more, not 1e-21 s) to be a network species. 8Be (S_alpha = -92 keV) and
// the A = 5 systems fall out here; heavy alpha emitters are long-lived, hence the A < 20 limit.
bool particle_bound(int Z, int A) {
  const int N = A - Z;
  if (Z < 2 || N < 1) return false;
  const double mass = generator_mass_excess(Z, A);
  const double neutron = generator_mass_excess(0, 1);
  const double hydrogen = generator_mass_excess(1, 1);
  if (generator_mass_excess(Z, A - 1) + neutron - mass <= 0.0) return false;           // S_n
  if (generator_mass_excess(Z - 1, A - 1) + hydrogen - mass <= 0.0) return false;      // S_p
  if (N >= 2 && generator_mass_excess(Z, A - 2) + 2.0 * neutron - mass <= 0.0) return false;   // S_2n
  if (Z >= 3 && generator_mass_excess(Z - 2, A - 2) + 2.0 * hydrogen - mass <= 0.0) return false;  // S_2p
  if (Z >= 3 && N >= 2 && A < 20 && generator_mass_excess(Z - 2, A - 4) + generator_mass_excess(2, 4) - mass <= 0.0)
    return false;  // S_alpha
  return true;
}

// Height above the valley of beta stability [MeV]: the mass excess above the lowest of the nearby
// isobars. Zero for the beta-stable isobar.
double valley_height(int Z, int A) {
  double lowest = generator_mass_excess(Z, A);
  for (int z = std::max(1, Z - 4); z <= std::min(A, Z + 4); ++z) lowest = std::min(lowest, generator_mass_excess(z, A));
  return generator_mass_excess(Z, A) - lowest;
}

double binding_per_nucleon(int Z, int A) {
  return (Z * generator_mass_excess(1, 1) + (A - Z) * generator_mass_excess(0, 1) - generator_mass_excess(Z, A)) / A;
}

}  // namespace


// Species: n, p, he4, then rows Z = 2, 3, ... . In each row the centre is the beta-stable isotope
// (valley height 0) with the largest B/A (7Li, 9Be, 11B, 12C, 15N, 16O, ...); the row takes the
// particle-bound isotopes within `half_width(Z)` neutrons of it, nearest first (ties: lower valley
// height, then fewer neutrons). The band is a single isotope up to boron and widens by one neutron
// every two elements after that, which keeps 12C and 16O in the 16-species network and gives the
// larger networks compact, well connected regions; `band` scales that width (GeneratorSettings::
// isotope_band). If Z = 118 is reached first, the band is widened (doubled) and the selection repeated.
std::vector<Nuclide> select_nuclides(int count, double band) {
  if (count < 3) throw std::invalid_argument("generator: at least 3 species (n, p, he4), got " + std::to_string(count));
  for (double widen = 1.0; widen <= 64.0; widen *= 2.0) {
    std::vector<Nuclide> list = {{0, 1}, {1, 1}, {2, 4}};
    for (int Z = 2; Z <= max_element_Z && static_cast<int>(list.size()) < count; ++Z) {
      const double half_width = widen * band * (0.5 + 0.5 * std::max(0, Z - 5));
      std::vector<int> bound;
      for (int N = 1; N <= 3 * Z + 40; ++N)
        if (particle_bound(Z, Z + N)) bound.push_back(N);
      if (bound.empty()) continue;
      int centre = bound.front();
      for (int N : bound) {
        const double h = valley_height(Z, Z + N), hc = valley_height(Z, Z + centre);
        if (h < hc || (h == hc && binding_per_nucleon(Z, Z + N) > binding_per_nucleon(Z, Z + centre))) centre = N;
      }
      struct Choice {
        int distance;
        double height;
        int N;
      };
      std::vector<Choice> row;
      for (int N : bound) {
        const int distance = std::abs(N - centre);
        if (distance > half_width || (Z == 2 && N == 2)) continue;  // he4 is already in
        row.push_back({distance, valley_height(Z, Z + N), N});
      }
      std::sort(row.begin(), row.end(), [](const Choice& a, const Choice& b) {
        if (a.distance != b.distance) return a.distance < b.distance;
        if (a.height != b.height) return a.height < b.height;
        return a.N < b.N;
      });
      for (const Choice& c : row) {
        if (static_cast<int>(list.size()) >= count) break;
        list.push_back({Z, Z + c.N});
      }
    }
    if (static_cast<int>(list.size()) == count) {
      // n, p, he4 first; the rest by Z, then A.
      std::sort(list.begin() + 3, list.end(), [](const Nuclide& a, const Nuclide& b) {
        return a.Z != b.Z ? a.Z < b.Z : a.A < b.A;
      });
      return list;
    }
  }
  throw std::invalid_argument("generator: cannot place " + std::to_string(count) +
                              " particle-bound nuclides up to Z = 118, expected fewer species");
}

}  // namespace zoneode::generator_detail
