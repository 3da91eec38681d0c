#include "common/numbers.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

namespace zoneode {

namespace {

// A leading '+' (file formats may have one: "+1.5e+00"), which from_chars does not take.
std::string_view without_plus(std::string_view text) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-' && text[1] != '+') text.remove_prefix(1);
  return text;
}

bool starts_with_hex_prefix(std::string_view text) {
  return text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
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
  const bool negative = !text.empty() && text.front() == '-';
  std::string_view digits = negative ? text.substr(1) : text;
  // Hex floats ("0x1p-10"), as C's strtod reads them: from_chars takes them without the prefix.
  const bool hex = starts_with_hex_prefix(digits);
  if (hex) digits.remove_prefix(2);
  if (hex && (digits.empty() || digits.front() == '-' || digits.front() == '+')) return std::nullopt;
  std::string_view field = hex ? digits : text;
  double value = 0.0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value,
                                            hex ? std::chars_format::hex : std::chars_format::general);
  if (field.empty() || error != std::errc() || end != field.data() + field.size()) return std::nullopt;
  if (!std::isfinite(value) && non_finite == NonFinite::reject) return std::nullopt;
  return hex && negative ? -value : value;
}

std::optional<std::int64_t> parse_whole_integer(std::string_view text) {
  text = without_plus(text);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace zoneode
