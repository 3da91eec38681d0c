// The error every reader of the user's input throws: exit status 2 (cli.hpp), not a runtime failure.
#pragma once

#include <stdexcept>

namespace zoneode {

// Bad input of any kind: a deck, an input file's contents, an output that exists already.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace zoneode
