#include "network/fit_range.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/errors.hpp"
#include "network/rates.hpp"

namespace zoneode {

namespace {
// ln lambda of one set: the fit's exponent (reaclib_set_lambda without the exp, so that a fit
// that overflows a double is still measured).
double log_lambda(const RateSet& set, double T9) {
  const double* a = set.a.data();
  const double T9_13 = std::cbrt(T9);
  return a[0] + a[1] / T9 + a[2] / T9_13 + a[3] * T9_13 + a[4] * T9 + a[5] * T9 * T9_13 * T9_13 + a[6] * std::log(T9);
}
}  // namespace

std::string FitRangeSet::describe(const Network& network) const {
  const Reaction& r = network.reactions[reaction];
  char text[96];
  if (r.sets.size() > 1) std::snprintf(text, sizeof text, ", set %d of %zu", set + 1, r.sets.size());
  else text[0] = '\0';
  std::string out = excerpt(network.describe(r)) + text;
  std::snprintf(text, sizeof text, ": fit x e^%.1f at T9 %g", log_change, T9);
  return out + text;
}

std::vector<FitRangeSet> rate_sets_beyond_fit(const Network& network, double T9, double min_log_change) {
  std::vector<FitRangeSet> sets;
  if (!(T9 > reaclib_fit_max_T9)) return sets;
  for (int r = 0; r < network.reaction_count(); ++r) {
    const Reaction& reaction = network.reactions[r];
    for (int s = 0; s < static_cast<int>(reaction.sets.size()); ++s) {
      const double change = log_lambda(reaction.sets[s], T9) - log_lambda(reaction.sets[s], reaclib_fit_max_T9);
      if (std::fabs(change) > min_log_change) sets.push_back({r, s, change, T9});
    }
  }
  std::stable_sort(sets.begin(), sets.end(), [](const FitRangeSet& a, const FitRangeSet& b) {
    const bool a_rises = a.log_change > 0.0, b_rises = b.log_change > 0.0;
    if (a_rises != b_rises) return a_rises;
    return std::fabs(a.log_change) > std::fabs(b.log_change);
  });
  return sets;
}

int rate_set_count(const Network& network) {
  int count = 0;
  for (const Reaction& reaction : network.reactions) count += static_cast<int>(reaction.sets.size());
  return count;
}

}  // namespace zoneode
