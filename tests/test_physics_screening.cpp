// Screening factors against an independent evaluation of the same formulas (Python with scipy's
// CODATA constants, the pynucastro convention: validation values in the comments below), the
// published weak-screening coefficient, and the Debye-Hueckel limit of the strong-regime fit.
#include <gtest/gtest.h>

#include <cmath>

#include "physics/screening.hpp"

namespace zoneode {
namespace {

// A plasma of the given species (Y [mol/g], Z) at T9, rho.
ScreeningPlasma plasma(double T9, double rho, std::initializer_list<std::pair<double, double>> species) {
  ScreeningPlasma p;
  p.temperature = T9 * 1e9;
  p.density = rho;
  for (const auto& [Y, Z] : species) {
    p.ye += Z * Y;
    p.z2_sum += Z * Z * Y;
  }
  return p;
}

TEST(PhysicsScreening, WeakMatchesClaytonCoefficient) {
  // Clayton (1968) eq. 4-221: H = 0.188 Z1 Z2 zeta^1/2 rho^1/2 T6^-3/2 (three digits published;
  // 0.187910 from the CODATA constants).
  const ScreeningPlasma p = plasma(0.3, 1e5, {{0.7, 1.0}, {0.07, 2.0}, {0.02 / 12, 6.0}});
  const double zeta = p.z2_sum + p.ye;
  const double T6 = 300.0;
  const double clayton = 0.18790950528656297 * 1.0 * 6.0 * std::sqrt(zeta * 1e5) * std::pow(T6, -1.5);
  EXPECT_NEAR(weak_screening_exponent(1.0, 6.0, p), clayton, 1e-9 * clayton);
  EXPECT_NEAR(weak_screening_exponent(1.0, 6.0, p) / (6.0 * std::sqrt(zeta * 1e5) * std::pow(T6, -1.5)), 0.188, 5e-4);
  EXPECT_NEAR(weak_screening_exponent(1.0, 6.0, p), 0.09432982300743648, 1e-12);  // Python value
}

struct ChugunovCase {
  const char* name;
  double T9, rho, Y, Z;  // a one-species plasma, or (for the solar case) see below
  double z1, a1, z2, a2;
  double expected_h;  // Python evaluation
};

TEST(PhysicsScreening, Chugunov2007MatchesIndependentEvaluation) {
  const ChugunovCase cases[] = {
      {"c12+c12, T9 0.5, rho 1e9 (Gamma 7.2)", 0.5, 1e9, 1.0 / 12, 6, 6, 12, 6, 12, 7.806455296883408},
      {"he4+he4, T9 0.1, rho 1e8 (Gamma 2.7)", 0.1, 1e8, 0.25, 2, 2, 4, 2, 4, 2.8152257753138703},
      {"he4+be8, T9 0.1, rho 1e8 (Gamma 4.7)", 0.1, 1e8, 0.25, 2, 2, 4, 4, 8, 5.068920342561114},
      {"c12+c12, T9 0.05, rho 1e10 (T/T_p 0.128: blend)", 0.05, 1e10, 1.0 / 12, 6, 6, 12, 6, 12, 126.19586091422826},
      {"c12+c12, T9 0.03, rho 1e10 (T/T_p 0.077: clipped)", 0.03, 1e10, 1.0 / 12, 6, 6, 12, 6, 12, 130.00370814854875},
      {"o16+o16, T9 0.01, rho 3e10 (Gamma capped)", 0.01, 3e10, 1.0 / 16, 8, 8, 16, 8, 16, 174.89128892769003},
  };
  for (const auto& c : cases) {
    const double h = chugunov2007_screening_exponent(c.z1, c.a1, c.z2, c.a2, plasma(c.T9, c.rho, {{c.Y, c.Z}}));
    EXPECT_NEAR(h, c.expected_h, 1e-9 * c.expected_h) << c.name;
  }
  const double solar = chugunov2007_screening_exponent(
      1, 1, 6, 12, plasma(0.3, 1e5, {{0.7, 1.0}, {0.07, 2.0}, {0.02 / 12, 6.0}}));
  EXPECT_NEAR(solar, 0.08287753398898938, 1e-9 * solar);
  // Below T/T_p = 0.1 the temperature is clipped: colder changes nothing.
  EXPECT_EQ(chugunov2007_screening_exponent(6, 12, 6, 12, plasma(0.03, 1e10, {{1.0 / 12, 6}})),
            chugunov2007_screening_exponent(6, 12, 6, 12, plasma(0.0215, 1e10, {{1.0 / 12, 6}})));
}

TEST(PhysicsScreening, Chugunov2007TendsToDebyeHueckelAtWeakCoupling) {
  // A one-component plasma of he4 at T9 5, rho 1: Gamma ~ 1.1e-4. The ions' Debye-Hueckel
  // exponent sqrt(3) Gamma^3/2 is Salpeter's H with the ions alone screening (no electron term).
  const ScreeningPlasma with_electrons = plasma(5.0, 1.0, {{0.25, 2.0}});
  ScreeningPlasma ions_only = with_electrons;
  ions_only.ye = 0.0;  // zeta = sum Z^2 Y
  const double h = chugunov2007_screening_exponent(2, 4, 2, 4, with_electrons);
  const double debye_hueckel = weak_screening_exponent(2, 2, ions_only);
  EXPECT_NEAR(h, debye_hueckel, 2e-4 * debye_hueckel);
  EXPECT_NEAR(debye_hueckel, 2.125953367000609e-06, 1e-9 * debye_hueckel);
}

TEST(PhysicsScreening, ReactionFactorScreensPairsInTurnAndSkipsNeutrons) {
  const ScreeningPlasma p = plasma(0.1, 1e8, {{0.25, 2.0}});
  const double z[3] = {2, 2, 2}, a[3] = {4, 4, 4};
  const double triple = reaction_screening_factor(ScreeningKind::chugunov2007, 3, z, a, p);
  EXPECT_NEAR(triple, std::exp(2.8152257753138703 + 5.068920342561114), 1e-9 * triple);
  EXPECT_EQ(reaction_screening_factor(ScreeningKind::none, 3, z, a, p), 1.0);
  const double zn[2] = {0, 6}, an[2] = {1, 12};
  EXPECT_EQ(reaction_screening_factor(ScreeningKind::weak, 2, zn, an, p), 1.0);
  EXPECT_EQ(reaction_screening_factor(ScreeningKind::weak, 1, z, a, p), 1.0);
}

}  // namespace
}  // namespace zoneode
