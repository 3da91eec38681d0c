// The work of one zone-step of the asymptotic method (geometric schedule: one flux evaluation and
// one update per step), counted from the network's structure, for the ladder's floor
// (scripts/gpu-ladder.sh): floating-point operations, F+/F- terms, and the bytes a kernel that
// keeps everything on chip reads and writes there. Reading device memory (HBM) is per zone, not
// per step: T9, rho and Y in, Y and the result out.
#pragma once

#include <cstdint>

#include "network/compact.hpp"

namespace zoneode {

struct StepWork {
  std::int64_t flops = 0;           // multiplies, adds, divides (compares and conversions not counted)
  std::int64_t terms = 0;           // F+ and F- terms: factor x flux[index] accumulated
  std::int64_t on_chip_bytes = 0;   // LDS / shared-memory traffic with everything staged
  std::int64_t zone_hbm_bytes = 0;  // device-memory traffic per zone (not per step)
};

StepWork count_step_work(const CompactNetwork& network);

}  // namespace zoneode
