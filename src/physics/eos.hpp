// The equation of state self-heating uses: the specific heat at constant volume c_v(T, rho, Y) of
//   - ideal ions:        c_v = 3/2 k_B N_A sum_i Y_i            (= 3/2 R / mu_ion)
//   - radiation:         c_v = 4 a T^3 / rho
//   - electrons and positrons: an exact ideal Fermi gas of any degeneracy and relativity, pairs
//     included (below). Coulomb corrections and ionisation are not modelled (the ions are ideal).
//
// Electron-positron gas. With beta = k T / m_e c^2, x = (kinetic energy) / k T and eta the
// electrons' chemical potential without rest mass over k T, the electrons' and positrons'
// number densities are n_-+ = K beta^3/2 A(eta_-+), K = sqrt2 (m_e c / hbar)^3 / pi^2, with
// eta_- = eta, eta_+ = -eta - 2 / beta and A(eta) = F_1/2(eta, beta) + beta F_3/2(eta, beta) =
// int_0^inf w(x) f dx, w = x^1/2 (1 + beta x / 2)^1/2 (1 + beta x), f = 1 / (exp(x - eta) + 1)
// (the generalised Fermi-Dirac integrals). eta is solved from the net electron density
// n_- - n_+ = rho Ye N_A (Newton in eta, safeguarded by the bracket it builds). c_v = (du/dT) at
// fixed rho and composition = u_T - u_mu n_T / n_mu: with h = f (1 - f) and, per species,
// B = int w h, C = int w h (x - eta), D = int w (1 + beta x) h, E = int w (1 + beta x) h (x - eta),
//   c_v rho = K k_B beta^1/2 [E_- + E_+ - (D_- - D_+)(C_- - C_+) / (B_- + B_+)].
// (u counts the kinetic energy of both and 2 m_e c^2 per positron; the electrons' net rest mass
// is constant at fixed rho and Ye.)
//
// Quadrature (after Aparicio 1998, ApJS 117, 627 and Gong et al. 2001, CPC 136, 294: split
// intervals around the Fermi edge, Gauss-Legendre on each, Gauss-Laguerre for the tail): the
// transition [eta - 12, max(eta, 0) + 12] (from 0 while eta < 24) in pieces of at most 6 (the integrand's poles
// sit pi off the real axis at x = eta); below it pieces of doubling length (24, 48, ...) down to
// the piece that starts at 0, which is integrated in t = sqrt(x) (no x^1/2 branch point) in two
// halves of t; above it 24-point Gauss-Laguerre. 16-point Gauss-Legendre per piece. Accuracy
// (tests/test_physics_eos.cpp, against a long-double adaptive-Simpson integration over momentum
// with c_v from the derivatives under the integral): within 1e-9 relative on the grid T9 0.1-10 x
// rho 1-1e10 (most points 1e-12), on both sides of every switch of this layout (eta = 6 k - 12
// where the transition's piece count steps, 24 where it leaves 0, 60, 132, ... where a doubling
// piece is added, and where positrons are skipped) from T9 0.01 to 20, and the published limits
// from T9 0.001 (Sommerfeld) to T9 100 (pairs, 7 a T^3); the Gauss rules' error bound from the
// poles' distance is ~1e-10 for beta <= 17.
// Cost: 80 nodes (eta < 24) to ~220 (eta ~ 1000, T9 0.1 at rho 1e10) per species per pass, one
// exp and two square roots a node; 2-6 passes (the Newton iterations), positrons skipped where
// eta_+ < -100 (their share < 1e-40). 3-35 us a call on one core of the (shared) development
// machine (zoneode-eos-cost), so on the host self-heating reads c_v and the energy per added
// electron (energy_per_ye, below) from a table of this gas (physics/eos_table.hpp, built below at
// first use; ~0.1 us a call, c_v within 2.2e-7) unless the deck
// says physics.eos: exact; device code reads the GPU backend's copy of the table (StepView::eos_table),
// or with physics.eos: exact evaluates the quadrature.
// Host/device: no containers, no exceptions; the nodes are local constants.
#pragma once

#include <cmath>
#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
#include <vector>
#endif

#include "common/portability.hpp"
#include "physics/cgs.hpp"
#include "physics/eos_table.hpp"

namespace zoneode {

// Ideal ions [erg/(g K)]; ion_sum = sum_i Y_i [mol/g].
ZONEODE_HD inline double ion_specific_heat(double ion_sum) { return 1.5 * cgs::gas_constant * ion_sum; }

// Radiation [erg/(g K)] at T [K], rho [g/cm^3].
ZONEODE_HD inline double radiation_specific_heat(double temperature, double density) {
  return 4.0 * cgs::radiation_constant * temperature * temperature * temperature / density;
}

namespace eos_detail {

// The moments of one species (electrons or positrons) at (eta, beta), dimensionless: A = int w f,
// B = int w h, C = int w h (x - eta), D = int w (1 + beta x) h, E = int w (1 + beta x) h (x - eta),
// U = int w beta x f (the kinetic energy in m_e c^2).
struct FermiMoments {
  double A = 0.0, B = 0.0, C = 0.0, D = 0.0, E = 0.0, U = 0.0;
};

// Adds one quadrature node at x with weight dx (the measure, without w).
ZONEODE_HD inline void add_node(FermiMoments& m, double x, double dx, double eta, double beta) {
  const double z = x - eta;
  if (z > 700.0) return;  // f < 1e-304
  double f, one_minus_f;  // without overflow or cancellation on either side of the edge
  if (z > 0.0) {
    const double e = exp(-z);
    f = e / (1.0 + e);
    one_minus_f = 1.0 / (1.0 + e);
  } else {
    const double e = exp(z);
    f = 1.0 / (1.0 + e);
    one_minus_f = e / (1.0 + e);
  }
  const double bx = beta * x;
  const double w = sqrt(x) * sqrt(1.0 + 0.5 * bx) * (1.0 + bx) * dx;
  const double wh = w * f * one_minus_f;
  m.A += w * f;
  m.B += wh;
  m.C += wh * z;
  m.D += wh * (1.0 + bx);
  m.E += wh * (1.0 + bx) * z;
  m.U += w * bx * f;
}

// 16-point Gauss-Legendre on [a, b] in x, or in t = sqrt(x) on [sqrt(a), sqrt(b)] when in_sqrt.
ZONEODE_HD inline void add_legendre_piece(FermiMoments& m, double a, double b, bool in_sqrt, double eta,
                                          double beta) {
  const double nodes[8] = {0.09501250983763745, 0.2816035507792589, 0.45801677765722737, 0.6178762444026438,
                           0.755404408355003,   0.8656312023878318, 0.9445750230732326,  0.9894009349916499};
  const double weights[8] = {0.18945061045506859, 0.1826034150449236,  0.16915651939500262, 0.14959598881657676,
                             0.12462897125553403, 0.09515851168249259, 0.062253523938647706, 0.027152459411754037};
  const double lo = in_sqrt ? sqrt(a) : a, hi = in_sqrt ? sqrt(b) : b;
  const double half = 0.5 * (hi - lo), mid = 0.5 * (hi + lo);
  for (int k = 0; k < 8; ++k) {
    for (int side = -1; side <= 1; side += 2) {
      const double s = mid + side * half * nodes[k];
      const double ds = half * weights[k];
      if (in_sqrt) add_node(m, s * s, 2.0 * s * ds, eta, beta);  // x = t^2, dx = 2 t dt
      else add_node(m, s, ds, eta, beta);
    }
  }
}

// The piece [0, b] that holds the x^1/2 branch point: in t = sqrt(x), split into two halves in t, so
// that a Fermi edge at or just past b (poles at x = eta +- i pi) stays several half-lengths from
// the nodes (one 16-point rule on [0, sqrt(b)] left c_v 3.5e-9 off with the edge at b = 6 or 48).
ZONEODE_HD inline void add_origin_piece(FermiMoments& m, double b, double eta, double beta) {
  add_legendre_piece(m, 0.0, 0.25 * b, true, eta, beta);  // t in [0, sqrt(b)/2]
  add_legendre_piece(m, 0.25 * b, b, true, eta, beta);    // t in [sqrt(b)/2, sqrt(b)]
}

// 24-point Gauss-Laguerre on [a, inf): int g(x) dx = sum w_k e^{y_k} g(a + y_k).
ZONEODE_HD inline void add_laguerre_tail(FermiMoments& m, double a, double eta, double beta) {
  const double nodes[24] = {0.05901985218150761, 0.3112391461984835, 0.7660969055459361, 1.4255975908036125,
                            2.2925620586321904,  3.3707742642089986, 4.66508370346717,   6.181535118736765,
                            7.927539247172152,   9.912098015077705,  12.146102711729764, 14.642732289596674,
                            17.417992646508978,  20.491460082616424, 23.887329848169735, 27.635937174332717,
                            31.776041352374722,  36.35840580165162,  41.45172048487077,  47.153106445156325,
                            53.60857454469507,   61.05853144721876,  69.96224003510503,  81.49827923394889};
  const double weights[24] = {
      0.14281197333475043,  0.25877410751744107,   0.2588067072728734,    0.18332268897778237,
      0.09816627262992299,  0.04073247815141022,   0.013226019405120549,  0.0033693490584784146,
      0.0006721625640935707, 0.00010446121465927847, 1.2544721977993773e-05, 1.151315812737323e-06,
      7.960812959133895e-08, 4.072858987550192e-09, 1.507008226292658e-10, 3.917736515058548e-12,
      6.894181052958382e-14, 7.819800382459628e-16, 5.350188813010104e-18, 2.0105174645555705e-20,
      3.6057658645529064e-23, 2.451818845878714e-26, 4.08830159368094e-30,  5.575345788327942e-35};
  for (int k = 0; k < 24; ++k) add_node(m, a + nodes[k], weights[k] * exp(nodes[k]), eta, beta);
}

// All moments of one species at (eta, beta): the quadrature described at the top.
ZONEODE_HD ZONEODE_DEVICE_NOINLINE inline FermiMoments fermi_moments(double eta, double beta) {
  FermiMoments m;
  const double edge_width = 12.0;  // f and h are within e^-12 of their far values beyond it
  // The transition interval leaves x = 0 only once it can start at least one edge width above it:
  // a Legendre piece starting just above 0 sees the x^1/2 branch point at its end (eta just above
  // 12 gave c_v 4.4e-6 off when the interval left 0 at eta = 12).
  const double lo = eta - edge_width >= edge_width ? eta - edge_width : 0.0;
  const double hi = (eta > 0.0 ? eta : 0.0) + edge_width;
  // Below the edge: pieces of doubling length, each at least its own length above 0, until the
  // one that starts at 0 (at most twice the next length, so the edge's poles stay far from it in t).
  double top = lo, length = 2.0 * edge_width;
  while (top > 0.0) {
    if (top < 2.0 * length) {
      add_origin_piece(m, top, eta, beta);
      break;
    }
    add_legendre_piece(m, top - length, top, false, eta, beta);
    top -= length;
    length *= 2.0;
  }
  const int pieces = static_cast<int>(ceil((hi - lo) / 6.0));
  for (int k = 0; k < pieces; ++k) {
    const double a = lo + (hi - lo) * k / pieces, b = lo + (hi - lo) * (k + 1) / pieces;
    if (a == 0.0) add_origin_piece(m, b, eta, beta);
    else add_legendre_piece(m, a, b, false, eta, beta);
  }
  add_laguerre_tail(m, hi, eta, beta);
  return m;
}

}  // namespace eos_detail

// The electron-positron gas at T [K], rho [g/cm^3], Ye [mol/g]: eta (chemical potential without
// rest mass over k T), number densities [1/cm^3], c_v and internal energy (kinetic energy of both
// plus 2 m_e c^2 per positron) per gram.
struct ElectronPositronGas {
  double eta = 0.0;
  double electron_density = 0.0, positron_density = 0.0;  // [1/cm^3]
  double specific_heat = 0.0;                              // [erg/(g K)]
  double energy = 0.0;                                     // [erg/g]
  double energy_per_ye = 0.0;                              // (d energy / d Ye) at fixed T, rho [erg/mol]
  int iterations = 0;                                      // quadrature passes taken
};

ZONEODE_HD ZONEODE_DEVICE_NOINLINE inline ElectronPositronGas electron_positron_gas(double temperature, double density, double ye) {
  using eos_detail::FermiMoments;
  using eos_detail::fermi_moments;
  const double mc2 = cgs::electron_mass * cgs::speed_of_light * cgs::speed_of_light;  // [erg]
  const double compton = cgs::electron_mass * cgs::speed_of_light / cgs::hbar;         // m_e c / hbar [1/cm]
  const double K = sqrt(2.0) * compton * compton * compton / (cgs::pi * cgs::pi);      // [1/cm^3]
  const double beta = cgs::boltzmann * temperature / mc2;
  const double scale = K * beta * sqrt(beta);
  const double net = density * cgs::avogadro * (ye > 0.0 ? ye : 0.0) / scale;  // target A_- - A_+
  // First guess: the Maxwell-Boltzmann value (A = e^eta sqrt(pi)/2 (1 + 15/8 beta) without pairs)
  // where it is negative, else the larger of it and the degenerate (T = 0) value; not below
  // -1/beta (mu = 0: pairs dominate there).
  const double x_F = cbrt(3.0 * cgs::pi * cgs::pi * density * cgs::avogadro * (ye > 0.0 ? ye : 0.0)) / compton;
  const double degenerate = (x_F * x_F / (sqrt(1.0 + x_F * x_F) + 1.0)) / beta;
  const double boltzmann = net > 0.0 ? log(net / (0.886226925452758 * (1.0 + 1.875 * beta))) : -1e300;
  double eta = (boltzmann < 0.0 || degenerate < boltzmann) ? boltzmann : degenerate;
  if (eta < -1.0 / beta) eta = -1.0 / beta;
  const double skip_positrons = -100.0;  // eta_+ below it: positrons < e^-100 of their non-degenerate density
  double lo = -1e300, hi = 1e300;        // the bracket found so far
  FermiMoments minus, plus;
  ElectronPositronGas gas;
  for (int pass = 1; pass <= 200; ++pass) {
    const double eta_plus = -eta - 2.0 / beta;
    minus = fermi_moments(eta, beta);
    plus = eta_plus > skip_positrons ? fermi_moments(eta_plus, beta) : FermiMoments{};
    gas.iterations = pass;
    const double residual = minus.A - plus.A - net;
    const double slope = minus.B + plus.B;
    if (fabs(residual) <= 1e-13 * (minus.A + plus.A) || !(slope > 0.0)) break;
    if (residual > 0.0) hi = eta;
    else lo = eta;
    double step = -residual / slope;
    const double max_step = 10.0 + 0.5 * fabs(eta);  // Newton far from the root can overshoot
    if (step > max_step) step = max_step;
    if (step < -max_step) step = -max_step;
    double next = eta + step;
    if (!(next > lo && next < hi)) next = (lo > -1e300 && hi < 1e300) ? 0.5 * (lo + hi) : next;
    if (fabs(next - eta) <= 1e-14 * (1.0 + fabs(eta))) break;
    eta = next;
  }
  gas.eta = eta;
  gas.electron_density = scale * minus.A;
  gas.positron_density = scale * plus.A;
  const double slope = minus.B + plus.B;
  const double coupled = slope > 0.0 ? (minus.D - plus.D) * (minus.C - plus.C) / slope : 0.0;
  gas.specific_heat = K * cgs::boltzmann * sqrt(beta) * (minus.E + plus.E - coupled) / density;
  gas.energy = (scale * mc2 * (minus.U + plus.U) + 2.0 * mc2 * gas.positron_density) / density;
  // d energy / d Ye at fixed T and rho: eta moves with Ye, d(n_- - n_+)/d eta = scale (B_- + B_+)
  // and d(rho energy)/d eta = scale mc2 (D_- - D_+ - B_- - B_+) (dA/d eta = B, d(beta int w x f)/d eta
  // = D - B, eta_+ = -eta - 2/beta), so per mol of net electrons
  //   energy_per_ye = N_A mc2 [(D_- - D_+) / (B_- + B_+) - 1]
  // (non-degenerate: 3/2 N_A k T; degenerate: the Fermi kinetic energy; pairs: towards -N_A mc2, the
  // added electron's rest mass that the atomic masses count and the annihilated pair gives back).
  // Without an electron to add (B's underflow, Ye 0 at T9 < 0.01): the non-degenerate value.
  gas.energy_per_ye = slope > 0.0 ? cgs::avogadro * mc2 * ((minus.D - plus.D) / slope - 1.0)
                                  : 1.5 * cgs::avogadro * cgs::boltzmann * temperature;
  return gas;
}

// Electrons and positrons [erg/(g K)] (ye = sum Z Y [mol/g]) from the exact gas above.
ZONEODE_HD inline double electron_specific_heat_exact(double temperature, double density, double ye) {
  return electron_positron_gas(temperature, density, ye).specific_heat;
}

#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
// The table of physics/eos_table.hpp, built on the host from the exact gas.
struct ElectronGasTable {
  std::vector<double> log_c;
  std::vector<double> ye_energy;  // q = energy_per_ye / (N_A k T) at the same nodes
  std::vector<int> row_first, row_end, row_offset;
  ElectronGasTableView view;  // into the vectors above (rebuilt by refresh_view after a copy)
  void refresh_view() {
    view.log_c = log_c.data();
    view.ye_energy = ye_energy.data();
    view.row_first = row_first.data();
    view.row_end = row_end.data();
    view.row_offset = row_offset.data();
  }
};

inline ElectronGasTable build_electron_gas_table() {
  using namespace eos_table_detail;
  ElectronGasTable table;
  ElectronGasTableView& v = table.view;
  v.T9_min = 0.005;
  v.T9_max = 200.0;
  v.rho_ye_min = 0.1;
  v.rho_ye_max = 2e10;
  const double h = 0.1;
  v.y_step = v.x_step = h;
  const double y_lo = temperature_coordinate(beta_of_T9(v.T9_min));
  const double y_hi = temperature_coordinate(beta_of_T9(v.T9_max));
  v.y_first = y_lo - 3.0 * h;
  v.rows = static_cast<int>(floor((y_hi - v.y_first) / h)) + 5;
  v.x_first = density_coordinate(v.T9_max, v.rho_ye_min) - 3.0 * h;
  // T9 at row coordinate y (y increases with T9): bisection in ln T9.
  auto T9_at = [](double y) {
    double lo = log(1e-6), hi = log(1e5);
    for (int k = 0; k < 200; ++k) {
      const double mid = 0.5 * (lo + hi);
      if (temperature_coordinate(beta_of_T9(exp(mid))) < y) lo = mid;
      else hi = mid;
    }
    return exp(0.5 * (lo + hi));
  };
  auto clamp_T9 = [&](double T9) { return T9 < v.T9_min ? v.T9_min : (T9 > v.T9_max ? v.T9_max : T9); };
  std::vector<double> row_T9(v.rows);
  table.row_first.resize(v.rows);
  table.row_end.resize(v.rows);
  table.row_offset.resize(v.rows + 1);
  table.row_offset[0] = 0;
  for (int r = 0; r < v.rows; ++r) {
    row_T9[r] = T9_at(v.y_first + r * h);
    // Row r is read by lookups in cell rows r-3..r+2: T9 from row r-3's to row r+3's.
    const double T9_low = clamp_T9(T9_at(v.y_first + (r - 3) * h)), T9_high = clamp_T9(T9_at(v.y_first + (r + 3) * h));
    const int column_low = static_cast<int>(floor((density_coordinate(T9_high, v.rho_ye_min) - v.x_first) / h));
    const int column_high = static_cast<int>(floor((density_coordinate(T9_low, v.rho_ye_max) - v.x_first) / h));
    table.row_first[r] = column_low - 2 > 0 ? column_low - 2 : 0;
    table.row_end[r] = column_high + 4;
    table.row_offset[r + 1] = table.row_offset[r] + (table.row_end[r] - table.row_first[r]);
  }
  table.log_c.resize(table.row_offset[v.rows]);
  table.ye_energy.resize(table.row_offset[v.rows]);
  const double per_electron = cgs::avogadro * cgs::boltzmann;  // c_v per gram at Ye = 1 over c [in k_B]
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic)  // each node independent: the same table on any thread count
#endif
  for (int r = 0; r < v.rows; ++r) {
    const double T9 = row_T9[r];
    for (int column = table.row_first[r]; column < table.row_end[r]; ++column) {
      const double rho_ye = exp(v.x_first + column * h) * T9 * T9 * T9;
      const ElectronPositronGas gas = electron_positron_gas(T9 * cgs::kelvin_per_gk, rho_ye, 1.0);
      const int node = table.row_offset[r] + column - table.row_first[r];
      table.log_c[node] = log(gas.specific_heat / per_electron);
      table.ye_energy[node] = gas.energy_per_ye / (per_electron * T9 * cgs::kelvin_per_gk);
    }
  }
  table.refresh_view();
  return table;
}

// Whether the host reads the table (deck physics.eos: table | exact; set once in the run's set-up,
// before any zone runs; true by default).
inline bool& host_electron_gas_table_enabled() {
  static bool enabled = true;
  return enabled;
}

// The host's table, built at first use (thread-safe: a function-local static).
inline const ElectronGasTableView& host_electron_gas_table() {
  static const ElectronGasTable table = build_electron_gas_table();
  return table.view;
}
#endif

// Electrons and positrons [erg/(g K)] (ye = sum Z Y [mol/g]): from the table on the host within its
// range (physics/eos_table.hpp, within 1e-6 of the exact gas) unless physics.eos is exact, else
// (and in device code, whose self-heating reads electron_gas_response instead) exact.
ZONEODE_HD inline double electron_specific_heat(double temperature, double density, double ye) {
#if !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__) && !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
  double c = 0.0;
  if (ye > 0.0 && host_electron_gas_table_enabled() && electron_gas_table_lookup(host_electron_gas_table(), temperature / cgs::kelvin_per_gk, density * ye, c))
    return ye * cgs::avogadro * cgs::boltzmann * c;
#endif
  return electron_specific_heat_exact(temperature, density, ye);
}

// The total c_v [erg/(g K)] with the exact e-/e+ gas (the table's reference; zoneode-eos-cost).
ZONEODE_HD inline double specific_heat_exact(double temperature, double density, double ion_sum, double ye) {
  return ion_specific_heat(ion_sum) + radiation_specific_heat(temperature, density) +
         electron_specific_heat_exact(temperature, density, ye);
}

// The total c_v [erg/(g K)].
ZONEODE_HD inline double specific_heat(double temperature, double density, double ion_sum, double ye) {
  return ion_specific_heat(ion_sum) + radiation_specific_heat(temperature, density) +
         electron_specific_heat(temperature, density, ye);
}

// What self-heating needs of the e-/e+ gas at T [K], rho [g/cm^3], Ye [mol/g]: its c_v [erg/(g K)]
// and energy_per_ye = d(energy per gram)/dYe at fixed T, rho [erg/mol] (electron_positron_gas).
struct ElectronGasResponse {
  double specific_heat = 0.0;
  double energy_per_ye = 0.0;
};

ZONEODE_HD inline ElectronGasResponse electron_gas_response_exact(double temperature, double density, double ye) {
  const ElectronPositronGas gas = electron_positron_gas(temperature, density, ye);
  return {gas.specific_heat, gas.energy_per_ye};
}

// The same from a table within its range (both from one stencil; c_v within 2.2e-7, energy_per_ye
// within the accuracy tests/test_physics_eos_table.cpp states), else from the exact gas. The table:
// `table` where given (the GPU backend's device copy: StepView::eos_table), else on the host the
// host's own unless physics.eos is exact; device code without one evaluates the exact gas. A device
// reads the host's nodes with the same weights, its log, atan and exp rounding as the device's do
// (not the host's bits: within the implicit GPU rule).
ZONEODE_HD inline ElectronGasResponse electron_gas_response(double temperature, double density, double ye,
                                                            const ElectronGasTableView* table = nullptr) {
#if !defined(__HIP_DEVICE_COMPILE__) && !defined(__CUDA_ARCH__) && !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
  if (table == nullptr && host_electron_gas_table_enabled()) table = &host_electron_gas_table();
#endif
  double c = 0.0, q = 0.0;
  if (table != nullptr && ye > 0.0 &&
      electron_gas_table_lookup(*table, temperature / cgs::kelvin_per_gk, density * ye, c, q)) {
    const double per_electron = cgs::avogadro * cgs::boltzmann;  // [erg/(mol K)]
    return {ye * per_electron * c, per_electron * temperature * q};
  }
  return electron_gas_response_exact(temperature, density, ye);
}

// The internal energy per gram [erg/g] U = 3/2 R T sum Y (ideal ions) + a T^4 / rho (radiation) + the
// e-/e+ gas's energy (exact; kinetic energy of both and 2 m_e c^2 per positron): the U whose rise
// self-heating equates with the energy released (physics/self_heating.hpp). ion_sum = sum Y, ye =
// sum Z Y [mol/g].
ZONEODE_HD inline double internal_energy_exact(double temperature, double density, double ion_sum, double ye) {
  const double T2 = temperature * temperature;
  return 1.5 * cgs::gas_constant * temperature * ion_sum + cgs::radiation_constant * T2 * T2 / density +
         electron_positron_gas(temperature, density, ye).energy;
}

}  // namespace zoneode
