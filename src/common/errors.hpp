// The error every reader of the user's input throws: exit status 2 (cli.hpp), not a runtime failure.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace zoneode {

// Bad input of any kind: a deck, an input file's contents, an output that exists already.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A value as an error message quotes it: whole when short, else its start and its length, so that
// a bad 5 MB value gives a one-line message.
inline std::string excerpt(std::string_view text, std::size_t most = 80) {
  if (text.size() <= most) return std::string(text);
  return std::string(text.substr(0, most)) + "... (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace zoneode
