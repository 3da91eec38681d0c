// The REACLIB fits' temperature range (issue 39, item 3): which rate sets a run above T9 10 takes
// beyond their fits. Every set is evaluated at min(T9, 10) (network/rates.hpp, reaclib_fit_T9);
// this names the sets for which that policy matters most, so that a run can say so.
#pragma once

#include <string>
#include <vector>

#include "network/network.hpp"

namespace zoneode {

struct FitRangeSet {
  int reaction = 0;
  int set = 0;
  double log_change = 0.0;  // ln lambda_fit(T9) - ln lambda_fit(10): what following the fit would do
  double T9 = 0.0;
  // "s31 -> p + p30 [mb07, reverse]: fit x e^606.2 at T9 11" (", set 2 of 3" where it has several)
  std::string describe(const Network& network) const;
};

// The network's rate sets whose fit, followed from T9 10 to T9, would change lambda by more than
// a factor e^min_log_change (either way): the rising ones first, largest rise first, then the
// falling ones, largest fall first; none for T9 <= 10. Rising fits are the ones that stalled the
// integrators (step_underflow) before the fits were held at T9 10.
std::vector<FitRangeSet> rate_sets_beyond_fit(const Network& network, double T9, double min_log_change);

// How many rate sets the network has (all REACLIB-form fits, held at T9 10 above it).
int rate_set_count(const Network& network);

}  // namespace zoneode
