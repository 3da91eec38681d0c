// How zoneode-compare writes values, in its reports and in the problems it names.
#pragma once

#include <cstdint>
#include <string>

namespace zoneode::compare {

std::string format_double(double value);  // shortest text that reads back as the same double
std::string format_short(double value);   // 3 significant digits
std::string format_value(double value);
std::string format_value(std::int64_t value);
std::string format_value(const std::string& value);  // quoted

}  // namespace zoneode::compare
