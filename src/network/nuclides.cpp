#include "network/nuclides.hpp"

#include <array>
#include <cctype>
#include <stdexcept>
#include <string>

#include "common/numbers.hpp"

namespace zoneode {

namespace {

// Element symbols by Z, lower case as in REACLIB names. Index 0 is unused: the neutron is spelled
// "n" alone, which is also nitrogen's symbol ("n14" is nitrogen).
constexpr std::array<std::string_view, max_element_Z + 1> element_symbols = {
    "",   "h",  "he", "li", "be", "b",  "c",  "n",  "o",  "f",  "ne", "na", "mg", "al", "si", "p",
    "s",  "cl", "ar", "k",  "ca", "sc", "ti", "v",  "cr", "mn", "fe", "co", "ni", "cu", "zn", "ga",
    "ge", "as", "se", "br", "kr", "rb", "sr", "y",  "zr", "nb", "mo", "tc", "ru", "rh", "pd", "ag",
    "cd", "in", "sn", "sb", "te", "i",  "xe", "cs", "ba", "la", "ce", "pr", "nd", "pm", "sm", "eu",
    "gd", "tb", "dy", "ho", "er", "tm", "yb", "lu", "hf", "ta", "w",  "re", "os", "ir", "pt", "au",
    "hg", "tl", "pb", "bi", "po", "at", "rn", "fr", "ra", "ac", "th", "pa", "u",  "np", "pu", "am",
    "cm", "bk", "cf", "es", "fm", "md", "no", "lr", "rf", "db", "sg", "bh", "hs", "mt", "ds", "rg",
    "cn", "nh", "fl", "mc", "lv", "ts", "og"};

}  // namespace

std::string nuclide_name(int Z, int A) {
  if (Z == 0 && A == 1) return "n";
  if (Z == 1 && A == 1) return "p";
  if (Z == 1 && A == 2) return "d";
  if (Z == 1 && A == 3) return "t";
  if (Z < 1 || Z > max_element_Z || A < Z) throw std::invalid_argument("no nuclide Z=" + std::to_string(Z) + ", A=" + std::to_string(A));
  return std::string(element_symbols[Z]) + std::to_string(A);
}

bool parse_nuclide_name(std::string_view name, int& Z, int& A) {
  std::string text(name);
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (text == "n") { Z = 0; A = 1; return true; }
  if (text == "p") { Z = 1; A = 1; return true; }
  if (text == "d") { Z = 1; A = 2; return true; }
  if (text == "t") { Z = 1; A = 3; return true; }
  std::size_t letters = 0;
  while (letters < text.size() && std::isalpha(static_cast<unsigned char>(text[letters]))) ++letters;
  const std::string_view symbol = std::string_view(text).substr(0, letters);
  const std::string_view digits = std::string_view(text).substr(letters);
  // No leading zero and at most three digits, so every nuclide has exactly one spelling.
  if (symbol.empty() || digits.empty() || digits.size() > 3 || digits.front() == '0') return false;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  int z = -1;
  for (int k = 1; k <= max_element_Z; ++k) {
    if (element_symbols[k] == symbol) z = k;
  }
  if (z < 0) return false;
  const int a = static_cast<int>(*parse_whole_integer(digits));  // 1 to 3 digits, checked above
  if (a < z) return false;
  // REACLIB spells the hydrogen isotopes p, d, t; "h1" etc. would give a second name for them.
  if (z == 1) return false;
  Z = z;
  A = a;
  return true;
}

}  // namespace zoneode
