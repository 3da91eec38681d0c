#include "value_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace zoneode::compare {

std::string format_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
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
