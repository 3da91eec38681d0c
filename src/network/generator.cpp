// The network generator: a physically plausible REACLIB-style network of a requested size.
//
// The network is a deterministic function of (species, flux_terms, seed), bit for bit on every
// platform: the random numbers come from our own xoshiro256** (integer operations only, no std::
// distributions), and every coefficient is built from + - * / and sqrt, which IEEE 754 rounds
// exactly, plus our own log and cube root written with those operations (libm's log, exp and cbrt
// may differ by an ulp between platforms). No FMA contraction (-ffp-contract=off in the build, and
// the pragma below), and no two random draws in one expression (the order in which function
// arguments are evaluated is unspecified and differs between GCC and Clang).
//
// What it builds:
//   nuclides   n, p, he4, then for Z = 2, 3, ... a band of particle-bound isotopes around the
//              valley of beta stability, widening with Z, until the species target is reached;
//   masses     AME2020 mass excesses where measured (Z <= 20 and the alpha nuclei to 56Ni), a
//              semi-empirical mass formula elsewhere;
//   reactions  for every target: (n,g), (p,g), (a,g) captures and (a,n), (a,p), (p,n) exchanges
//              written in their exothermic direction, each with its reverse from detailed
//              balance; beta-, beta+, electron capture and beta-delayed n and p emission; the
//              triple alpha and four heavy-ion fusions (without reverse rates, see
//              add_special_reactions);
//   selection  decays, triple alpha, fusions and the alpha chain always; then one strong link per
//              nuclide; then the rest in a seeded random order until the term target is met (or
//              the candidates run out).
#include "network/generator.hpp"

// No fused multiply-add contraction here, whatever the build flags: a*b+c rounded once instead of
// twice would change the coefficients' last bits, and with them the network.
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(_MSC_VER)
#pragma fp_contract(off)
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/constants.hpp"
#include "common/splitmix64.hpp"
#include "network/nuclides.hpp"

namespace zoneode {

namespace {

// ---------------------------------------------------------------------------------------------
// Deterministic arithmetic
// ---------------------------------------------------------------------------------------------

constexpr double ln_2 = 0.69314718055994530942;
constexpr double ln_10 = 2.30258509299404568402;

// Natural log from + - * / only: x = m 2^e with m in [sqrt(1/2), sqrt(2)), then
// ln m = 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), s = (m-1)/(m+1), |s| < 0.172, so 22 terms
// reach 1e-33. frexp is exact. Accurate to an ulp or two, identical everywhere.
double det_log(double x) {
  if (!(x > 0.0) || !std::isfinite(x)) throw std::invalid_argument("generator: log of a non-positive or non-finite value");
  int exponent = 0;
  double m = std::frexp(x, &exponent);  // m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    exponent -= 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double power = s;
  double sum = 0.0;
  for (int k = 1; k <= 43; k += 2) {
    sum += power / k;
    power *= s2;
  }
  return exponent * ln_2 + 2.0 * sum;
}

// Cube root by Newton's method from + - * /: x = m 2^(3k) with m in [0.5, 4), a fixed number of
// iterations from y = 1 (quadratic convergence; 8 steps are far more than needed).
double det_cbrt(double x) {
  if (!(x > 0.0) || !std::isfinite(x)) throw std::invalid_argument("generator: cube root of a non-positive or non-finite value");
  int exponent = 0;
  double m = std::frexp(x, &exponent);
  int remainder = exponent % 3;
  if (remainder < 0) remainder += 3;
  m = std::ldexp(m, remainder);
  exponent -= remainder;
  double y = 1.0;
  for (int k = 0; k < 8; ++k) y = (2.0 * y + m / (y * y)) / 3.0;
  return std::ldexp(y, exponent / 3);
}

double pow_three_halves(double x) { return x * std::sqrt(x); }  // sqrt is exactly rounded

// ---------------------------------------------------------------------------------------------
// Random numbers: splitmix64 to seed xoshiro256** (Blackman & Vigna), integer operations only
// ---------------------------------------------------------------------------------------------

// The splitmix64 sequence: the mixer of state + k * increment for k = 1, 2, ...
std::uint64_t next_splitmix64(std::uint64_t& state) {
  const std::uint64_t value = splitmix64(state);
  state += splitmix64_increment;
  return value;
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    std::uint64_t state = seed;
    for (auto& word : s_) word = next_splitmix64(state);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits: exact conversion of an integer times 2^-53.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n) without modulo bias (rejection of the incomplete last block).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
    std::uint64_t x = next();
    while (x >= limit) x = next();
    return x % n;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> s_{};
};

// A stream of its own for each candidate reaction, so that its rate does not depend on which other
// reactions exist (a larger network keeps the rates of the smaller one's reactions).
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t key) {
  std::uint64_t state = seed ^ 0x5a0de0de5a0de0deull;
  const std::uint64_t a = splitmix64(state);
  state = a ^ key;
  return splitmix64(state);
}

// ---------------------------------------------------------------------------------------------
// Nuclear data
// ---------------------------------------------------------------------------------------------

// Measured atomic mass excesses [keV] from AME2020: M. Wang, W.J. Huang, F.G. Kondev, G. Audi and
// S. Naimi, Chinese Physics C 45, 030003 (2021), file mass_1.mas20 (unrounded values). All
// experimental (non-'#') entries for Z = 0..20 in the range the generator can reach, and the
// alpha nuclei up to 56Ni. Particle-unbound systems (5He, 5Li, 8Be, ...) are listed on purpose:
// the generator uses them to recognise those nuclides as unbound. Sorted by (Z, A).
struct MeasuredMass {
  short Z;
  short A;
  double keV;
};
constexpr MeasuredMass measured_masses[] = {
    {0, 1, 8071.31806},
    {1, 1, 7288.971064}, {1, 2, 13135.722895}, {1, 3, 14949.81090},
    {2, 3, 14931.21888}, {2, 4, 2424.91587}, {2, 5, 11231.234}, {2, 6, 17592.095}, {2, 7, 26073.128},
    {2, 8, 31609.683}, {2, 9, 40935.826}, {2, 10, 49197.147},
    {3, 4, 25323.190}, {3, 5, 11678.887}, {3, 6, 14086.88044}, {3, 7, 14907.10463}, {3, 8, 20945.805},
    {3, 9, 24954.905}, {3, 10, 33052.628}, {3, 11, 40728.259}, {3, 12, 49009.577}, {3, 13, 56980.895},
    {4, 6, 18375.034}, {4, 7, 15768.998}, {4, 8, 4941.672}, {4, 9, 11348.451}, {4, 10, 12607.487},
    {4, 11, 20177.169}, {4, 12, 25077.761}, {4, 13, 33659.080}, {4, 14, 39954.502}, {4, 15, 49825.821},
    {4, 16, 57447.139},
    {5, 7, 27676.553}, {5, 8, 22921.569}, {5, 9, 12416.486}, {5, 10, 12050.611}, {5, 11, 8667.708},
    {5, 12, 13369.398}, {5, 13, 16561.948}, {5, 14, 23663.686}, {5, 15, 28957.379}, {5, 16, 37111.699},
    {5, 17, 43716.322}, {5, 18, 51792.640}, {5, 19, 59770.251}, {5, 20, 69401.569}, {5, 21, 78382.887},
    {6, 8, 35064.269}, {6, 9, 28910.971}, {6, 10, 15698.673}, {6, 11, 10649.397}, {6, 12, 0.0},
    {6, 13, 3125.00933}, {6, 14, 3019.89328}, {6, 15, 9873.145}, {6, 16, 13694.133}, {6, 17, 21031.880},
    {6, 18, 24919.266}, {6, 19, 32413.754}, {6, 20, 37503.567}, {6, 22, 53611.203},
    {7, 10, 38800.027}, {7, 11, 24365.644}, {7, 12, 17338.068}, {7, 13, 5345.481}, {7, 14, 2863.41683},
    {7, 15, 101.43809}, {7, 16, 5683.907}, {7, 17, 7870.079}, {7, 18, 13113.167}, {7, 19, 15856.255},
    {7, 20, 21766.498}, {7, 21, 25231.915}, {7, 22, 31764.805}, {7, 23, 36720.429},
    {8, 11, 47738.913}, {8, 12, 32013.335}, {8, 13, 23115.432}, {8, 14, 8007.781}, {8, 15, 2855.622},
    {8, 16, -4737.00217}, {8, 17, -808.76421}, {8, 18, -782.81634}, {8, 19, 3332.858}, {8, 20, 3796.172},
    {8, 21, 8062.034}, {8, 22, 9283.032}, {8, 23, 14621.371}, {8, 24, 18500.404}, {8, 25, 27329.030},
    {8, 26, 34661.041},
    {9, 14, 31964.403}, {9, 15, 16566.752}, {9, 16, 10675.182}, {9, 17, 1951.701}, {9, 18, 873.112},
    {9, 19, -1487.44512}, {9, 20, -17.463}, {9, 21, -47.605}, {9, 22, 2793.376}, {9, 23, 3285.263},
    {9, 24, 7544.516}, {9, 25, 11334.167}, {9, 26, 18674.655}, {9, 27, 25133.478}, {9, 28, 33403.796},
    {9, 29, 40150.190},
    {10, 15, 40215.374}, {10, 16, 23986.775}, {10, 17, 16500.452}, {10, 18, 5317.617}, {10, 19, 1752.054},
    {10, 20, -7041.93217}, {10, 21, -5731.776}, {10, 22, -8024.716}, {10, 23, -5154.045},
    {10, 24, -5951.642}, {10, 25, -2035.503}, {10, 26, 481.114}, {10, 27, 7050.910}, {10, 28, 11299.738},
    {10, 29, 18399.803}, {10, 30, 23280.120}, {10, 31, 31181.594},
    {11, 17, 34719.580}, {11, 18, 25037.992}, {11, 19, 12929.384}, {11, 20, 6850.489}, {11, 21, -2184.857},
    {11, 22, -5181.391}, {11, 23, -9529.85352}, {11, 24, -8417.901}, {11, 25, -9357.814},
    {11, 26, -6860.780}, {11, 27, -5517.791}, {11, 28, -988.315}, {11, 29, 2679.994}, {11, 30, 8474.670},
    {11, 31, 12246.031}, {11, 32, 18640.152}, {11, 33, 23780.113}, {11, 34, 31680.114},
    {12, 19, 31838.394}, {12, 20, 17477.694}, {12, 21, 10903.851}, {12, 22, -399.986}, {12, 23, -5473.675},
    {12, 24, -13933.578}, {12, 25, -13192.782}, {12, 26, -16214.544}, {12, 27, -14586.594},
    {12, 28, -15019.946}, {12, 29, -10612.360}, {12, 30, -8881.373}, {12, 31, -3122.152},
    {12, 32, -828.901}, {12, 33, 4962.873}, {12, 34, 8323.324}, {12, 35, 15639.786}, {12, 36, 20380.159},
    {12, 37, 28211.478},
    {13, 23, 6748.071}, {13, 24, -48.812}, {13, 25, -8915.974}, {13, 26, -12210.139}, {13, 27, -17196.864},
    {13, 28, -16850.719}, {13, 29, -18207.762}, {13, 30, -15864.116}, {13, 31, -14950.709},
    {13, 32, -11099.368}, {13, 33, -8497.382}, {13, 34, -2997.619}, {13, 35, -223.730}, {13, 36, 5950.384},
    {13, 37, 9809.564},
    {14, 24, 10745.186}, {14, 25, 3827.322}, {14, 26, -7141.003}, {14, 27, -12384.505},
    {14, 28, -21492.79711}, {14, 29, -21895.08154}, {14, 30, -24432.962}, {14, 31, -22949.037},
    {14, 32, -24077.689}, {14, 33, -20514.328}, {14, 34, -19991.684}, {14, 35, -14391.480},
    {14, 36, -12436.125}, {14, 37, -6571.512}, {14, 38, -4170.299}, {14, 39, 2320.352}, {14, 40, 5666.876},
    {15, 27, -659.032}, {15, 28, -7147.856}, {15, 29, -16952.849}, {15, 30, -20200.856},
    {15, 31, -24440.54442}, {15, 32, -24304.876}, {15, 33, -26337.350}, {15, 34, -24548.702},
    {15, 35, -24857.809}, {15, 36, -20251.045}, {15, 37, -18996.012}, {15, 38, -14621.565},
    {15, 39, -12774.636}, {15, 40, -8139.189}, {15, 41, -4979.767}, {15, 42, 1091.842},
    {16, 28, 4073.203}, {16, 29, -3094.423}, {16, 30, -14059.254}, {16, 31, -19042.531},
    {16, 32, -26015.53714}, {16, 33, -26585.85830}, {16, 34, -29931.689}, {16, 35, -28846.210},
    {16, 36, -30664.141}, {16, 37, -26896.426}, {16, 38, -26861.216}, {16, 39, -23162.672},
    {16, 40, -22837.850}, {16, 41, -19008.580}, {16, 42, -17637.748}, {16, 43, -12195.461},
    {16, 44, -9204.236},
    {17, 30, 4674.548}, {17, 31, -7034.552}, {17, 32, -13334.706}, {17, 33, -21003.340},
    {17, 34, -24440.086}, {17, 35, -29013.532}, {17, 36, -29522.008}, {17, 37, -31761.552},
    {17, 38, -29798.116}, {17, 39, -29800.218}, {17, 40, -27557.818}, {17, 41, -27307.192},
    {17, 42, -24831.770}, {17, 43, -24159.510}, {17, 44, -20478.973}, {17, 45, -18262.544},
    {17, 46, -13734.949},
    {18, 32, -2200.352}, {18, 33, -9384.295}, {18, 34, -18378.293}, {18, 35, -23047.289},
    {18, 36, -30231.542}, {18, 37, -30947.679}, {18, 38, -34714.827}, {18, 39, -33242.195},
    {18, 40, -35039.89997}, {18, 41, -33067.510}, {18, 42, -34422.678}, {18, 43, -32009.811},
    {18, 44, -32673.260}, {18, 45, -29770.801}, {18, 46, -29771.255}, {18, 47, -25367.274},
    {18, 48, -22354.927},
    {19, 35, -11172.893}, {19, 36, -17417.182}, {19, 37, -24800.201}, {19, 38, -28800.760},
    {19, 39, -33807.19535}, {19, 40, -33535.497}, {19, 41, -35559.54880}, {19, 42, -35022.031},
    {19, 43, -36575.394}, {19, 44, -35781.498}, {19, 45, -36615.643}, {19, 46, -35413.929},
    {19, 47, -35711.982}, {19, 48, -32284.482}, {19, 49, -29611.496}, {19, 50, -25727.853},
    {20, 36, -6451.166}, {20, 37, -13136.070}, {20, 38, -22058.503}, {20, 39, -27282.707},
    {20, 40, -34846.402}, {20, 41, -35137.908}, {20, 42, -38547.293}, {20, 43, -38408.873},
    {20, 44, -41468.730}, {20, 45, -40812.230}, {20, 46, -43139.610}, {20, 47, -42344.665},
    {20, 48, -44224.868}, {20, 49, -41300.003}, {20, 50, -39589.230}, {20, 51, -36332.310},
    {20, 52, -34266.272},
    {22, 44, -37548.586}, {24, 48, -42821.313}, {26, 52, -48332.095}, {28, 56, -53907.649},
};

const MeasuredMass* find_measured(int Z, int A) {
  const auto* begin = std::begin(measured_masses);
  const auto* end = std::end(measured_masses);
  const auto* it = std::lower_bound(begin, end, std::pair<int, int>{Z, A}, [](const MeasuredMass& m, std::pair<int, int> key) {
    return std::pair<int, int>{m.Z, m.A} < key;
  });
  return (it != end && it->Z == Z && it->A == A) ? it : nullptr;
}

// Semi-empirical (Bethe-Weizsacker) binding energy [MeV]:
//   B = aV A - aS A^(2/3) - aC Z(Z-1)/A^(1/3) - aA (A-2Z)^2/A + delta,  delta = +-aP/sqrt(A) (even-even
//   +, odd-odd -, odd A 0). aV..aA: a least-squares fit (this work) to 39 AME2020 nuclides from 16O
//   to 238U with aP fixed at the usual 12 MeV; rms 2.8 MeV, 56Fe within 0.1 MeV.
constexpr double volume_MeV = 15.86;
constexpr double surface_MeV = 18.39;
constexpr double coulomb_MeV = 0.715;
constexpr double asymmetry_MeV = 24.19;
constexpr double pairing_MeV = 12.0;

double formula_mass_excess(int Z, int A) {
  const int N = A - Z;
  const double a = A;
  const double a13 = det_cbrt(a);
  double binding = volume_MeV * a - surface_MeV * a13 * a13 - coulomb_MeV * Z * (Z - 1) / a13 -
                   asymmetry_MeV * (A - 2.0 * Z) * (A - 2.0 * Z) / a;
  const double delta = pairing_MeV / std::sqrt(a);
  if (Z % 2 == 0 && N % 2 == 0) binding += delta;
  if (Z % 2 == 1 && N % 2 == 1) binding -= delta;
  // Atomic mass excess: Z hydrogen atoms and N neutrons minus the binding.
  return Z * constants::hydrogen_mass_excess_mev + N * constants::neutron_mass_excess_mev - binding;
}

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

struct Nuclide {
  int Z;
  int A;
};

// Species: n, p, he4, then rows Z = 2, 3, ... . In each row the centre is the beta-stable isotope
// (valley height 0) with the largest B/A (7Li, 9Be, 11B, 12C, 15N, 16O, ...); the row takes the
// particle-bound isotopes within `half_width(Z)` neutrons of it, nearest first (ties: lower valley
// height, then fewer neutrons). The band is a single isotope up to boron and widens by one neutron
// every two elements after that, which keeps 12C and 16O in the 16-species network and gives the
// larger networks compact, well connected regions. If Z = 118 is reached first, the band is
// widened (doubled) and the selection repeated.
std::vector<Nuclide> select_nuclides(int count) {
  if (count < 3) throw std::invalid_argument("generator: at least 3 species (n, p, he4), got " + std::to_string(count));
  for (double widen = 1.0; widen <= 64.0; widen *= 2.0) {
    std::vector<Nuclide> list = {{0, 1}, {1, 1}, {2, 4}};
    for (int Z = 2; Z <= max_element_Z && static_cast<int>(list.size()) < count; ++Z) {
      const double half_width = widen * (0.5 + 0.5 * std::max(0, Z - 5));
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

// ---------------------------------------------------------------------------------------------
// Rate sets
// ---------------------------------------------------------------------------------------------

const std::string generator_label = "gen";

// Non-resonant charged-particle rate (Fowler, Caughlan & Zimmerman 1967; Iliadis eq. 3.86):
//   N_A<sigma v> = 7.8324e9 (Z1 Z2 / mu)^(1/3) S_eff[MeV b] T9^(-2/3) exp(-4.2487 (Z1^2 Z2^2 mu / T9)^(1/3))
// [cm^3/(mol s)], mu = A1 A2 / (A1 + A2) the reduced mass [u].
RateSet charged_particle_set(int Z1, int A1, int Z2, int A2, double ln_S) {
  const double mu = static_cast<double>(A1) * A2 / (A1 + A2);
  RateSet set;
  set.label = generator_label;
  set.a[0] = det_log(7.8324e9) + det_log(Z1 * Z2 / mu) / 3.0 + ln_S;
  set.a[2] = -4.2487 * det_cbrt(static_cast<double>(Z1 * Z1) * (Z2 * Z2) * mu);
  set.a[6] = -2.0 / 3.0;
  return set;
}

// Neutron-induced rate: no barrier, N_A<sigma v> nearly constant (1/v cross section), with a small
// linear drift in T9.
RateSet neutron_set(double ln_rate, double a4) {
  RateSet set;
  set.label = generator_label;
  set.a[0] = ln_rate;
  set.a[4] = a4;
  return set;
}

// A weak rate: constant in T9 (resonance flag 'w').
RateSet weak_set(double ln_rate) {
  RateSet set;
  set.label = generator_label;
  set.resonance = 'w';
  set.a[0] = ln_rate;
  return set;
}

// ln of a value drawn log-uniformly over 10^(-decades/2) .. 10^(+decades/2) around `scale`.
double log_uniform(Rng& rng, double scale, double decades) {
  return det_log(scale) + (rng.uniform() - 0.5) * decades * ln_10;
}

// ln lambda [1/s] of an allowed-like beta transition of endpoint energy Q [MeV]: Sargent's rule
// f ~ (Q / m_e c^2)^5 / 30 with log10(ft) = 4..7 (uniform) gives t_half = ft / f, so half-lives
// spread over three decades at a given Q and shorten as Q^-5 away from stability. Clamped to
// 1 ms .. 3 Gyr (1e17 s).
double beta_log_rate(Rng& rng, double Q, double log_ft_min, double log_ft_max) {
  const double log10_ft = log_ft_min + (log_ft_max - log_ft_min) * rng.uniform();
  double ln_half_life = log10_ft * ln_10 + det_log(30.0) - 5.0 * det_log(Q / constants::electron_mass_mev);
  ln_half_life = std::clamp(ln_half_life, det_log(1e-3), det_log(1e17));
  return det_log(ln_2) - ln_half_life;
}

// ---------------------------------------------------------------------------------------------
// Candidates
// ---------------------------------------------------------------------------------------------

enum class Channel : std::uint64_t {
  n_gamma = 1, p_gamma, a_gamma, a_n, a_p, p_n,
  beta_minus, beta_delayed_n, beta_plus, electron_capture, beta_delayed_p,
  triple_alpha, fusion_c12_c12_a, fusion_c12_c12_p, fusion_c12_o16, fusion_o16_o16,
};

struct Candidate {
  std::vector<Reaction> reactions;  // forward, then its reverse for strong pairs
  std::vector<int> species;         // every species it involves
  std::int64_t terms = 0;
  bool strong_pair = false;
  bool mandatory = false;
  bool selected = false;
};

int distinct_count(std::vector<int> list) {
  std::sort(list.begin(), list.end());
  return static_cast<int>(std::unique(list.begin(), list.end()) - list.begin());
}

class Builder {
 public:
  Builder(const std::vector<Nuclide>& nuclides, std::uint64_t seed) : seed_(seed) {
    for (const Nuclide& nuclide : nuclides) {
      Species s;
      s.name = nuclide_name(nuclide.Z, nuclide.A);
      s.Z = nuclide.Z;
      s.A = nuclide.A;
      s.mass_excess_MeV = generator_mass_excess(nuclide.Z, nuclide.A);
      index_[key(nuclide.Z, nuclide.A)] = static_cast<int>(species_.size());
      species_.push_back(s);
    }
  }

  const std::vector<Species>& species() const { return species_; }
  std::vector<Candidate>& candidates() { return candidates_; }

  int find(int Z, int A) const {
    const auto it = index_.find(key(Z, A));
    return it == index_.end() ? -1 : it->second;
  }

  void build() {
    add_special_reactions();
    for (int i = 0; i < static_cast<int>(species_.size()); ++i) {
      add_strong_pairs(i);
      add_weak_decays(i);
    }
  }

 private:
  static long key(int Z, int A) { return static_cast<long>(Z) * 4096 + A; }
  double mass(int i) const { return species_[i].mass_excess_MeV; }

  Rng rng_for(Channel channel, int Z, int A) const {
    return Rng(stream_seed(seed_, (static_cast<std::uint64_t>(channel) << 40) |
                                      (static_cast<std::uint64_t>(Z) << 20) | static_cast<std::uint64_t>(A)));
  }

  void add_candidate(std::vector<Reaction> reactions, bool strong_pair, bool mandatory) {
    Candidate c;
    c.strong_pair = strong_pair;
    c.mandatory = mandatory;
    for (const Reaction& r : reactions) {
      c.terms += distinct_count(r.reactants) + distinct_count(r.products);
      c.species.insert(c.species.end(), r.reactants.begin(), r.reactants.end());
      c.species.insert(c.species.end(), r.products.begin(), r.products.end());
    }
    std::sort(c.species.begin(), c.species.end());
    c.species.erase(std::unique(c.species.begin(), c.species.end()), c.species.end());
    c.reactions = std::move(reactions);
    candidates_.push_back(std::move(c));
  }

  // The reverse of `forward` from detailed balance with partition functions 1 (ground-state spins
  // only). Capture a + b -> c:  lambda_rev = 9.8685e9 (g_a g_b / g_c) (A_a A_b / A_c)^(3/2)
  // T9^(3/2) exp(-11.6045 Q / T9) lambda_fwd; exchange a + b -> c + d: lambda_rev = (g_a g_b /
  // (g_c g_d)) (A_a A_b / (A_c A_d))^(3/2) exp(-11.6045 Q / T9) lambda_fwd (the reduced-mass ratio,
  // since A_a + A_b = A_c + A_d). In REACLIB form: a0 += ln(prefactor), a1 -= Q / kT, a6 += 3/2
  // for captures; the other coefficients are those of the forward set.
  Reaction reverse_of(const Reaction& forward) const {
    double g_ratio = 1.0, a_ratio = 1.0;
    for (int i : forward.reactants) {
      g_ratio *= generator_spin_degeneracy(species_[i].Z, species_[i].A);
      a_ratio *= species_[i].A;
    }
    for (int i : forward.products) {
      g_ratio /= generator_spin_degeneracy(species_[i].Z, species_[i].A);
      a_ratio /= species_[i].A;
    }
    const bool capture = forward.reactants.size() == 2 && forward.products.size() == 1;
    double prefactor = g_ratio * pow_three_halves(a_ratio);
    if (capture) prefactor *= constants::detailed_balance_capture;
    Reaction reverse;
    reverse.reactants = forward.products;
    reverse.products = forward.reactants;
    reverse.Q_MeV = -forward.Q_MeV;
    for (const RateSet& set : forward.sets) {
      RateSet r = set;
      r.reverse = true;
      r.a[0] += det_log(prefactor);
      r.a[1] -= forward.Q_MeV * constants::inverse_kT_per_mev;
      if (capture) r.a[6] += 1.5;
      reverse.sets.push_back(r);
    }
    return reverse;
  }

  // Captures target + projectile -> product and exchanges target + projectile -> product + ejectile.
  void add_strong_pairs(int target) {
    const Species& x = species_[target];
    if (x.Z <= 1) return;  // n and p are projectiles only (no d or t in the network)
    struct ChannelSpec {
      Channel channel;
      Nuclide projectile;
      Nuclide ejectile;  // A = 0: a photon
    };
    static constexpr ChannelSpec channels[] = {
        {Channel::n_gamma, {0, 1}, {0, 0}}, {Channel::p_gamma, {1, 1}, {0, 0}}, {Channel::a_gamma, {2, 4}, {0, 0}},
        {Channel::a_n, {2, 4}, {0, 1}},     {Channel::a_p, {2, 4}, {1, 1}},     {Channel::p_n, {1, 1}, {0, 1}},
    };
    for (const ChannelSpec& spec : channels) {
      const int projectile = find(spec.projectile.Z, spec.projectile.A);
      if (projectile < 0 || projectile == target) continue;
      const int product = find(x.Z + spec.projectile.Z - spec.ejectile.Z, x.A + spec.projectile.A - spec.ejectile.A);
      if (product < 0) continue;
      Rng rng = rng_for(spec.channel, x.Z, x.A);
      const bool capture = spec.ejectile.A == 0;
      Reaction forward;
      if (capture) {
        forward.reactants = {target, projectile};
        forward.products = {product};
        forward.Q_MeV = mass(target) + mass(projectile) - mass(product);
        // A capture with Q <= 0 would make its inverse a particle decay; the product is then not
        // bound against this emission and the channel is left out.
        if (!(forward.Q_MeV > 0.0)) continue;
        const double ln_S = spec.channel == Channel::p_gamma ? log_uniform(rng, 3e-3, 6.0)   // S ~ keV b
                          : spec.channel == Channel::a_gamma ? log_uniform(rng, 0.1, 6.0)    // S ~ 0.1 MeV b
                                                             : 0.0;
        if (spec.channel == Channel::n_gamma) {
          const double ln_rate = log_uniform(rng, 3e5, 6.0);  // N_A<sigma v> ~ 3e5 cm^3/(mol s)
          const double a4 = 0.1 * (rng.uniform() - 0.5);
          forward.sets = {neutron_set(ln_rate, a4)};
        } else {
          forward.sets = {charged_particle_set(x.Z, x.A, spec.projectile.Z, spec.projectile.A, ln_S)};
        }
      } else {
        const int ejectile = find(spec.ejectile.Z, spec.ejectile.A);
        if (ejectile < 0) continue;
        const double Q = mass(target) + mass(projectile) - mass(product) - mass(ejectile);
        // Written in the exothermic direction, so that the reverse carries exp(-Q/kT) and stays
        // finite at low temperature.
        if (Q >= 0.0) {
          forward.reactants = {target, projectile};
          forward.products = {product, ejectile};
          forward.Q_MeV = Q;
        } else {
          forward.reactants = {product, ejectile};
          forward.products = {target, projectile};
          forward.Q_MeV = -Q;
        }
        const Species& r0 = species_[forward.reactants[0]];
        const Species& r1 = species_[forward.reactants[1]];
        if (r0.Z == 0 || r1.Z == 0) {
          // Two draws in separate statements: the order of evaluating function arguments is
          // unspecified (GCC and Clang differ), and it must not decide the network.
          const double ln_rate = log_uniform(rng, 1e6, 6.0);
          const double a4 = 0.1 * (rng.uniform() - 0.5);
          forward.sets = {neutron_set(ln_rate, a4)};
        } else {
          forward.sets = {charged_particle_set(r0.Z, r0.A, r1.Z, r1.A, log_uniform(rng, 10.0, 6.0))};  // S ~ 10 MeV b
        }
      }
      std::vector<Reaction> pair = {forward, reverse_of(forward)};
      // The alpha chain 12C -> 16O -> 20Ne -> ... is the backbone of helium burning: always in.
      const bool alpha_chain = spec.channel == Channel::a_gamma && x.Z == x.A - x.Z && x.Z % 2 == 0 && x.Z >= 6;
      add_candidate(std::move(pair), true, alpha_chain);
    }
  }

  void add_weak(int parent, std::vector<int> products, double Q, bool electron_capture, double ln_rate,
                bool mandatory) {
    Reaction decay;
    decay.reactants = {parent};
    decay.products = std::move(products);
    decay.Q_MeV = Q;
    decay.electron_capture = electron_capture;
    decay.sets = {weak_set(ln_rate)};
    add_candidate({decay}, false, mandatory);
  }

  // Weak decays of species i (atomic mass excesses throughout):
  //   beta-      Q = D(parent) - D(daughter)
  //   beta+      Q = D(parent) - D(daughter) - 2 m_e c^2
  //   EC         Q = D(parent) - D(daughter), rate per unit rho*Ye (electron_capture)
  //   beta- n    Q = D(parent) - D(daughter) - D(n),            daughter (Z+1, A-1)
  //   beta+ p    Q = D(parent) - D(daughter) - D(1H) - 2 m_e,  daughter (Z-2, A-1)
  // Only with Q > 0. beta-, beta+ and electron capture where beta+ is closed are always in (they
  // connect the isobars); EC next to beta+ and the beta-delayed branches are optional.
  void add_weak_decays(int i) {
    const Species& x = species_[i];
    const double two_me = 2.0 * constants::electron_mass_mev;
    if (x.Z == 0) {
      // The free neutron: measured mean life 878.4 s (PDG 2022).
      const int proton = find(1, 1);
      if (proton >= 0) add_weak(i, {proton}, mass(i) - mass(proton), false, -det_log(878.4), true);
      return;
    }
    if (x.Z == 1) return;
    if (const int d = find(x.Z + 1, x.A); d >= 0) {
      const double Q = mass(i) - mass(d);
      Rng rng = rng_for(Channel::beta_minus, x.Z, x.A);
      if (Q > 0.0) add_weak(i, {d}, Q, false, beta_log_rate(rng, Q, 4.0, 7.0), true);
    }
    if (const int d = find(x.Z + 1, x.A - 1), n = find(0, 1); d >= 0 && n >= 0) {
      const double Q = mass(i) - mass(d) - mass(n);
      Rng rng = rng_for(Channel::beta_delayed_n, x.Z, x.A);
      if (Q > 0.0) add_weak(i, {d, n}, Q, false, beta_log_rate(rng, Q, 5.0, 8.0), false);
    }
    if (const int d = find(x.Z - 1, x.A); d >= 0) {
      const double Q_ec = mass(i) - mass(d);
      const double Q_plus = Q_ec - two_me;
      Rng rng = rng_for(Channel::beta_plus, x.Z, x.A);
      if (Q_plus > 0.0) add_weak(i, {d}, Q_plus, false, beta_log_rate(rng, Q_plus, 4.0, 7.0), true);
      if (Q_ec > 0.0) {
        // Capture of continuum electrons: rate proportional to n_e, per unit rho*Ye [cm^3/(mol s)].
        // Phase space ~ (Q/m_e)^2; normalised so that at rho*Ye = 1e6 mol/cm^3 the half-life is
        // ft / (Q/m_e)^2 with log10(ft) = 4..7.
        Rng ec_rng = rng_for(Channel::electron_capture, x.Z, x.A);
        const double log10_ft = 4.0 + 3.0 * ec_rng.uniform();
        const double ln_rate = std::clamp(det_log(ln_2) - log10_ft * ln_10 + 2.0 * det_log(Q_ec / constants::electron_mass_mev),
                                          det_log(1e-17), det_log(1e3)) - det_log(1e6);
        add_weak(i, {d}, Q_ec, true, ln_rate, !(Q_plus > 0.0));
      }
    }
    if (const int d = find(x.Z - 2, x.A - 1), p = find(1, 1); x.Z >= 3 && d >= 0 && p >= 0) {
      const double Q = mass(i) - mass(d) - mass(p) - two_me;
      Rng rng = rng_for(Channel::beta_delayed_p, x.Z, x.A);
      if (Q > 0.0) add_weak(i, {d, p}, Q, false, beta_log_rate(rng, Q, 5.0, 8.0), false);
    }
  }

  // Triple alpha and heavy-ion fusions, without reverse rates. Their reactants are identical
  // (3 he4, 12C + 12C, 16O + 16O), which the two-body detailed-balance factors of reverse_of do
  // not cover, and at the temperatures of the decks (T9 <= 3) their inverses are slow: 12C -> 3
  // alpha is ~3e-8 /s at T9 = 2 and ~1 /s at T9 = 3 (CF88's ratio 2.0e20 T9^3 exp(-84.42/T9)),
  // against burns of milliseconds, and the inverse fusions also climb a Coulomb barrier. A
  // network for T9 >~ 4 would need them. Always included when the species exist.
  void add_special_reactions() {
    const int he4 = find(2, 4), c12 = find(6, 12), o16 = find(8, 16), p = find(1, 1);
    const int ne20 = find(10, 20), na23 = find(11, 23), mg24 = find(12, 24), si28 = find(14, 28);
    if (he4 >= 0 && c12 >= 0) {
      // Caughlan & Fowler (1988) resonant terms: the Hoyle state (E_r = 0.379 MeV = 4.4027 / 11.6045)
      // and a higher state; N_A^2 <alpha alpha alpha> [cm^6 / (mol^2 s)].
      Reaction r;
      r.reactants = {he4, he4, he4};
      r.products = {c12};
      r.Q_MeV = 3.0 * mass(he4) - mass(c12);
      RateSet hoyle;
      hoyle.label = "cf88";
      hoyle.resonance = 'r';
      hoyle.a[0] = det_log(2.79e-8);
      hoyle.a[1] = -4.4027;
      hoyle.a[6] = -3.0;
      RateSet upper = hoyle;
      upper.a[0] = det_log(1.35e-8);
      upper.a[1] = -24.811;
      upper.a[6] = -1.5;
      r.sets = {hoyle, upper};
      add_candidate({r}, false, true);
    }
    // REACLIB-form fits (this work) to the Caughlan & Fowler (1988) analytic rates over T9 = 0.3-5,
    // with a2 the Coulomb value -4.2487 (Z1^2 Z2^2 mu)^(1/3): within 3% there, finite everywhere.
    // 12C + 12C is split evenly between its alpha and proton channels; 12C + 16O and 16O + 16O put
    // all their flux into the alpha channel (the others are left out).
    auto fusion = [&](int a, int b, std::vector<int> products, double branch, std::array<double, 7> coefficients) {
      Reaction r;
      r.reactants = {a, b};
      r.products = products;
      r.Q_MeV = mass(a) + mass(b);
      for (int i : products) r.Q_MeV -= mass(i);
      RateSet set;
      set.label = generator_label;
      set.a = coefficients;
      set.a[0] += det_log(branch);
      r.sets = {set};
      add_candidate({r}, false, true);
    };
    if (c12 >= 0 && ne20 >= 0 && he4 >= 0)
      fusion(c12, c12, {ne20, he4}, 0.5, {64.0007, 0.0, -84.1734, -3.8719, 0.136771, -0.0705689, -0.154319});
    if (c12 >= 0 && na23 >= 0 && p >= 0)
      fusion(c12, c12, {na23, p}, 0.5, {64.0007, 0.0, -84.1734, -3.8719, 0.136771, -0.0705689, -0.154319});
    if (c12 >= 0 && o16 >= 0 && mg24 >= 0 && he4 >= 0)
      fusion(c12, o16, {mg24, he4}, 1.0, {98.8911, 0.0, -106.610, -34.394, 6.6713, -1.06132, 4.87849});
    if (o16 >= 0 && si28 >= 0 && he4 >= 0)
      fusion(o16, o16, {si28, he4}, 1.0, {84.2369, 0.0, -135.958, 0.591275, -0.9619, -0.0481815, -0.822893});
  }

  std::uint64_t seed_;
  std::vector<Species> species_;
  std::map<long, int> index_;
  std::vector<Candidate> candidates_;
};

// Picks candidates: the mandatory ones; then, for every nuclide (in species order) that no chosen
// strong pair touches yet, its first strong pair in the seeded order; then the rest in that order
// while they fit under the term target (a greedy fill that skips what would overshoot, so the
// total ends at or just below the target). If the candidates cannot reach the target, all are used.
void select_candidates(std::vector<Candidate>& candidates, int species_count, std::int64_t target, std::uint64_t seed) {
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < candidates.size(); ++k)
    if (!candidates[k].mandatory) order.push_back(k);
  Rng rng(stream_seed(seed, 0xfeedfacecafebeefull));
  for (std::size_t k = order.size(); k > 1; --k) std::swap(order[k - 1], order[rng.below(k)]);

  std::int64_t total = 0;
  std::vector<bool> linked(species_count, false);
  auto take = [&](Candidate& c) {
    c.selected = true;
    total += c.terms;
    if (c.strong_pair)
      for (int i : c.species) linked[i] = true;
  };
  for (Candidate& c : candidates)
    if (c.mandatory) take(c);
  for (int i = 3; i < species_count; ++i) {  // n, p, he4 are linked through everything else
    if (linked[i]) continue;
    for (std::size_t k : order) {
      Candidate& c = candidates[k];
      if (!c.selected && c.strong_pair && std::binary_search(c.species.begin(), c.species.end(), i)) {
        take(c);
        break;
      }
    }
  }
  for (std::size_t k : order) {
    Candidate& c = candidates[k];
    if (!c.selected && total + c.terms <= target) take(c);
  }
}

}  // namespace

GeneratorSettings generator_preset(std::string_view name) {
  if (name == "default") return {100, 1000, 1};
  if (name == "s16") return {16, 150, 1};
  if (name == "s150") return {150, 5400, 1};
  if (name == "s365") return {365, 13000, 1};
  throw std::invalid_argument("unknown generator preset '" + std::string(name) + "', expected one of: default, s16, s150, s365");
}

double generator_mass_excess(int Z, int A) {
  if (A < 1 || Z < 0 || Z > A)
    throw std::invalid_argument("generator_mass_excess: no nuclide with Z=" + std::to_string(Z) + ", A=" + std::to_string(A));
  if (const MeasuredMass* m = find_measured(Z, A)) return m->keV / 1000.0;
  return formula_mass_excess(Z, A);
}

// Ground-state degeneracy 2J+1 from a simple rule instead of a spin table: even-even nuclei have
// J = 0 (g = 1, always right); odd-A nuclei J = 1/2 (g = 2; right for n, p, 3He, 13C, 15N, ...);
// odd-odd nuclei J = 1 (g = 3; right for d, 14N, ...).
double generator_spin_degeneracy(int Z, int A) {
  if (A % 2 == 1) return 2.0;
  return Z % 2 == 0 ? 1.0 : 3.0;
}

Network generate_network(const GeneratorSettings& settings) {
  if (settings.flux_terms < 1) throw std::invalid_argument("generator: flux_terms must be >= 1, got " + std::to_string(settings.flux_terms));
  const std::vector<Nuclide> nuclides = select_nuclides(settings.species);
  Builder builder(nuclides, settings.seed);
  builder.build();
  std::vector<Candidate>& candidates = builder.candidates();
  select_candidates(candidates, settings.species, settings.flux_terms, settings.seed);

  Network network;
  network.name = "generated-" + std::to_string(settings.species) + "-" + std::to_string(settings.flux_terms) + "-seed" +
                 std::to_string(settings.seed);
  network.species = builder.species();
  for (Candidate& c : candidates)
    if (c.selected)
      for (Reaction& r : c.reactions) network.reactions.push_back(std::move(r));
  validate_network(network, "generator");
  return network;
}

}  // namespace zoneode
