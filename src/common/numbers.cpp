#include "common/numbers.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace zoneode {

namespace {

// from_chars takes no '+', which strtod (the readers' former parser) accepted.
std::string_view without_plus(std::string_view text) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-' && text[1] != '+') text.remove_prefix(1);
  return text;
}

}  // namespace

std::string format_number(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string format_number_17g(double value) {
  if (std::isnan(value)) return "nan";  // one spelling for every NaN (sign and payload are not kept)
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::optional<double> parse_whole_number(std::string_view text, NonFinite non_finite) {
  text = without_plus(text);
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (!std::isfinite(value) && non_finite == NonFinite::reject) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_whole_integer(std::string_view text) {
  text = without_plus(text);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace zoneode
