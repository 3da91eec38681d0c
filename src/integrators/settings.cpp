#include "integrators/settings.hpp"

namespace zoneode {

const char* zone_status_name(int status) {
  switch (status) {
    case zone_ok: return "ok";
    case zone_non_finite: return "non_finite";
    case zone_mass_drift: return "mass_drift";
    case zone_max_steps: return "max_steps";
    case zone_step_underflow: return "step_underflow";
    case zone_bad_input: return "bad_input";
    default: return "unknown";
  }
}

}  // namespace zoneode
