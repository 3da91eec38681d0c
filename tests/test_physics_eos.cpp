// The self-heating equation of state against its hand-computed limits.
#include <gtest/gtest.h>

#include <cmath>

#include "physics/eos.hpp"

namespace zoneode {
namespace {

constexpr double R = 8.314462618e7;  // k_B N_A [erg/(mol K)], CODATA 2018

TEST(PhysicsEos, IdealIonsAreThreeHalvesROverMu) {
  // Pure he4: mu_ion = 4, c_v = 1.5 R / 4.
  EXPECT_NEAR(ion_specific_heat(0.25), 1.5 * R / 4.0, 1e-9 * R);
}

TEST(PhysicsEos, RadiationIsFourATCubedOverRho) {
  const double a = 7.565733250e-15, T = 3e9, rho = 1e3;
  EXPECT_NEAR(radiation_specific_heat(T, rho), 4.0 * a * T * T * T / rho, 1e-12 * 4.0 * a * T * T * T / rho);
}

TEST(PhysicsEos, DegenerateElectronsFollowSommerfeld) {
  // Non-relativistic degenerate limit: c_v = N_A Ye (pi^2/2) k_B (k_B T / E_F,kin), E_F,kin =
  // p_F^2 / 2 m_e. Carbon at rho 1e2 (p_F = 0.037 m_e c), T 1e6 K.
  const double kB = 1.380649e-16, hbar = 1.054571817e-27, me = 9.1093837015e-28, NA = 6.02214076e23;
  const double rho = 1e2, ye = 0.5, T = 1e6;
  const double n_e = rho * NA * ye;
  const double p_F = hbar * std::cbrt(3.0 * M_PI * M_PI * n_e);
  const double E_F = p_F * p_F / (2.0 * me);
  const double sommerfeld = NA * ye * 0.5 * M_PI * M_PI * kB * kB * T / E_F;
  EXPECT_NEAR(degenerate_electron_specific_heat(T, rho, ye), sommerfeld, 1e-3 * sommerfeld);  // relativistic correction (p_F/m_e c)^2 / 2 = 7e-4
  // Ultra-relativistic limit (rho 1e12: p_F >> m_e c): c_v = N_A Ye pi^2 k_B^2 T / (p_F c).
  const double rho_ur = 1e12, c = 2.99792458e10;
  const double p_ur = hbar * std::cbrt(3.0 * M_PI * M_PI * rho_ur * NA * ye);
  const double ultra = NA * ye * M_PI * M_PI * kB * kB * T / (p_ur * c);
  EXPECT_NEAR(degenerate_electron_specific_heat(T, rho_ur, ye), ultra, 1e-3 * ultra);
}

TEST(PhysicsEos, ElectronsJoinTheTwoLimits) {
  // Hot and thin: the non-degenerate 3/2 R Ye; cold and dense: Sommerfeld; never above either.
  const double ye = 0.5;
  EXPECT_NEAR(electron_specific_heat(1e10, 1.0, ye), 1.5 * R * ye, 1e-3 * 1.5 * R * ye);
  const double degenerate = degenerate_electron_specific_heat(1e6, 1e9, ye);
  EXPECT_NEAR(electron_specific_heat(1e6, 1e9, ye), degenerate, 1e-3 * degenerate);
  for (double T : {1e8, 1e9, 1e10})
    for (double rho : {1e2, 1e5, 1e9}) {
      const double cv = electron_specific_heat(T, rho, ye);
      EXPECT_LE(cv, 1.5 * R * ye);
      EXPECT_LE(cv, degenerate_electron_specific_heat(T, rho, ye));
    }
  EXPECT_EQ(electron_specific_heat(1e9, 1e5, 0.0), 0.0);
}

TEST(PhysicsEos, TotalIsTheSum) {
  const double T = 2e9, rho = 1e6, ions = 1.0 / 12, ye = 0.5;
  EXPECT_EQ(specific_heat(T, rho, ions, ye),
            ion_specific_heat(ions) + radiation_specific_heat(T, rho) + electron_specific_heat(T, rho, ye));
}

}  // namespace
}  // namespace zoneode
