#include "cvode_zone.hpp"

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cmath>

#include "common/constants.hpp"
#include "integrators/asymptotic.hpp"
#include "integrators/jacobian.hpp"

namespace zoneode::validation {

namespace {

struct ZoneData {
  StepView net;
  JacobianView jacobian;
  std::vector<double> rate_factor, flux, slot, entries, energy_row, ye_column;
  double T9 = 0.0, rho = 0.0;  // [GK], [g/cm^3]: the screening's plasma (the network's physics options)
};

int rhs(sunrealtype, N_Vector y, N_Vector ydot, void* user) {
  ZoneData& d = *static_cast<ZoneData*>(user);
  const double* Y = N_VGetArrayPointer(y);
  double* out = N_VGetArrayPointer(ydot);
  zone_fluxes(d.net, d.rate_factor.data(), Y, d.flux.data(), d.T9, d.rho);  // screened when the network is
  species_rates(d.net, d.flux.data(), out);
  out[d.net.species_count] = energy_release_rate(d.net, d.flux.data());
  return 0;
}

int jacobian(sunrealtype, N_Vector y, N_Vector, SUNMatrix J, void* user, N_Vector, N_Vector, N_Vector) {
  ZoneData& d = *static_cast<ZoneData*>(user);
  const int n = d.net.species_count;
  const double* Y = N_VGetArrayPointer(y);
  flux_derivative_slots(d.net, d.jacobian, d.rate_factor.data(), Y, d.slot.data());
  jacobian_from_slots(n, d.jacobian, d.slot.data(), d.entries.data(), d.ye_column.data(), d.energy_row.data());
  SUNMatZero(J);
  for (int e = 0; e < d.jacobian.entry_count; ++e)
    SM_ELEMENT_D(J, d.jacobian.entry_row[e], d.jacobian.entry_column[e]) += d.entries[e];
  for (int i = 0; i < n; ++i)  // the electron captures' rank-one part u Z^T
    for (int m = 0; m < n; ++m) SM_ELEMENT_D(J, i, m) += d.ye_column[i] * d.net.species_Z[m];
  for (int j = 0; j < n; ++j) SM_ELEMENT_D(J, n, j) = d.energy_row[j];
  return 0;
}

}  // namespace

CvodeResult cvode_integrate_zone(const CompactNetwork& network, const ImplicitStructure& structure, double T9,
                                 double rho, double start_time, double end_time, double rtol, double atol,
                                 std::vector<double>& Y) {
  const int n = network.species_count();
  ZoneData data{network.step_view(), structure.jacobian_view(), std::vector<double>(network.reaction_count()),
                std::vector<double>(network.reaction_count()), std::vector<double>(structure.jacobian_view().slot_count),
                std::vector<double>(structure.jacobian_view().entry_count), std::vector<double>(n),
                std::vector<double>(n)};
  zone_rate_factors(network.rate_view(), T9, rho, data.rate_factor.data());
  data.T9 = T9;
  data.rho = rho;

  CvodeResult result;
  SUNContext context = nullptr;
  if (SUNContext_Create(nullptr, &context) != 0) return result;
  N_Vector y = N_VNew_Serial(n + 1, context);
  N_Vector tolerances = N_VNew_Serial(n + 1, context);
  for (int i = 0; i < n; ++i) {
    NV_Ith_S(y, i) = Y[i];
    NV_Ith_S(tolerances, i) = atol;
  }
  NV_Ith_S(y, n) = 0.0;
  // E [MeV mol/g] starts at 0: an absolute tolerance like a species' (1 MeV per reaction). With
  // 1e-300 the weight 1e300 overflowed CVODE's squared norm at E = 0, and short burns came back
  // with E = 0 and unburnt abundances (quick.yaml to 1e-7 s: c12 off by 3e-3).
  NV_Ith_S(tolerances, n) = atol;
  void* memory = CVodeCreate(CV_BDF, context);
  SUNMatrix matrix = SUNDenseMatrix(n + 1, n + 1, context);
  SUNLinearSolver solver = SUNLinSol_Dense(y, matrix, context);
  bool ok = memory && matrix && solver && CVodeInit(memory, rhs, start_time, y) == CV_SUCCESS &&
            CVodeSVtolerances(memory, rtol, tolerances) == CV_SUCCESS &&
            CVodeSetUserData(memory, &data) == CV_SUCCESS &&
            CVodeSetLinearSolver(memory, solver, matrix) == CV_SUCCESS &&
            CVodeSetJacFn(memory, jacobian) == CV_SUCCESS && CVodeSetMaxNumSteps(memory, 10000000) == CV_SUCCESS &&
            CVodeSetStopTime(memory, end_time) == CV_SUCCESS && CVodeSetMaxHnilWarns(memory, -1) == CV_SUCCESS;
  double t = start_time;
  if (ok) ok = CVode(memory, end_time, y, &t, CV_NORMAL) >= 0 && t == end_time;
  if (memory) {
    long value = 0;
    CVodeGetNumSteps(memory, &value);
    result.steps = value;
    CVodeGetNumErrTestFails(memory, &value);
    result.error_test_failures = value;
    CVodeGetNumRhsEvals(memory, &value);
    result.rhs_evaluations = value;
    CVodeGetNumJacEvals(memory, &value);
    result.jacobian_evaluations = value;
    CVodeGetNumLinSolvSetups(memory, &value);
    result.factorizations = value;
  }
  result.ok = ok;
  for (int i = 0; i < n; ++i) Y[i] = NV_Ith_S(y, i);
  result.energy_generation_rate =
      constants::avogadro * constants::mev_to_erg * NV_Ith_S(y, n) / (end_time - start_time);
  CVodeFree(&memory);
  SUNLinSolFree(solver);
  SUNMatDestroy(matrix);
  N_VDestroy(tolerances);
  N_VDestroy(y);
  SUNContext_Free(&context);
  return result;
}

}  // namespace zoneode::validation
