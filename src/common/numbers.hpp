// Numbers as text: one formatter and one whole-field parser for messages, decks and network files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zoneode {

// The shortest text that reads back as the same double ("0.1", "1e-05", "inf", "nan"): for
// messages and the resolved deck.
std::string format_number(double value);

// printf's %.17g, "nan" for every NaN: the network file format, whose files must stay
// byte-identical to those written before (17 significant digits also read back bit-exact).
std::string format_number_17g(double value);

enum class NonFinite { reject, allow };  // whether inf and nan are acceptable values

// The whole field as one number, decimal or C hex float ("0x1p-10"): no blanks, no trailing
// characters, an optional leading '+'.
// Empty, malformed, overflowing (1e999) or underflowing-to-zero (1e-400) text gives nullopt;
// subnormal values are kept. inf and nan only with NonFinite::allow.
std::optional<double> parse_whole_number(std::string_view text, NonFinite non_finite = NonFinite::reject);

// The whole field as one integer in decimal (optional sign), or nullopt (also out of int64 range).
std::optional<std::int64_t> parse_whole_integer(std::string_view text);

}  // namespace zoneode
