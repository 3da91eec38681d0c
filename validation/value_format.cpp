#include "value_format.hpp"

#include "common/numbers.hpp"

#include <cmath>
#include <cstdio>

namespace zoneode::compare {

std::string format_double(double value) {
  return std::isnan(value) ? "nan" : format_number(value);  // one spelling for every NaN
}

std::string format_short(double value) {
  if (!std::isfinite(value)) return format_double(value);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

std::string format_value(double value) { return format_double(value); }
std::string format_value(std::int64_t value) { return std::to_string(value); }
std::string format_value(const std::string& value) { return "'" + value + "'"; }

}  // namespace zoneode::compare
