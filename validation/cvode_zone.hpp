// One zone integrated by SUNDIALS CVODE (BDF, Newton iteration, dense linear solver) with the
// app's right-hand side and analytic Jacobian (network/rates.hpp, integrators/jacobian.hpp): the
// reference of zoneode-validate (validation/README.md). The state is Y plus the released energy E
// (E' = sum_r Q_r flux_r), so the energy rate comes out of the same error-controlled integration.
#pragma once

#include <cstdint>
#include <vector>

#include "integrators/implicit_structure.hpp"
#include "integrators/settings.hpp"
#include "network/compact.hpp"

namespace zoneode::validation {

struct CvodeResult {
  bool ok = false;
  double energy_generation_rate = 0.0;  // [erg/(g s)] mean over the burn
  std::int64_t steps = 0, error_test_failures = 0, rhs_evaluations = 0, jacobian_evaluations = 0, factorizations = 0;
};

// Integrates Y (in, out) over [start_time, end_time] at T9, rho with CVODE at rtol and atol
// [mol/g] (the energy component: rtol only).
CvodeResult cvode_integrate_zone(const CompactNetwork& network, const ImplicitStructure& structure, double T9,
                                 double rho, double start_time, double end_time, double rtol, double atol,
                                 std::vector<double>& Y);

}  // namespace zoneode::validation
