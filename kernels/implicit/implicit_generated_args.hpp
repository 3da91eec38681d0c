// What the generated implicit kernel (implicit_generated.hip) receives: plain views and pointers,
// shared by the host code that launches it (nvcc/hipcc) and the run-time compiled program
// (NVRTC/hipRTC), so the layout is one.
#pragma once

#include <cstdint>

#include "integrators/method_network.hpp"
#include "integrators/settings.hpp"
#include "network/views.hpp"

namespace zoneode::gpu {

struct GeneratedKernelArgs {
  RateView rates;
  StepView step;
  ImplicitView implicit;
  IntegratorSettings settings;
  std::int64_t zones = 0;
  const double* temperature = nullptr;  // [zone]
  const double* density = nullptr;      // [zone]
  double* abundances = nullptr;         // [zone][species], in and out
  ZoneResult* results = nullptr;        // [zone]
  double* workspace = nullptr;          // interleaved over the thread slots (implicit_thread.hpp)
  unsigned long long* next_zone = nullptr;
};

}  // namespace zoneode::gpu
