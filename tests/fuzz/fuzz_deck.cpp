// libFuzzer harness: the deck reader (deck/), whole, on arbitrary bytes. A clean refusal is a
// DeckError/InputError; anything else (another exception, a crash, a sanitizer report, a hang) is
// a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "deck/deck.hpp"
#include "deck/yaml_schema.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/zoneode_fuzz_deck_" + std::to_string(getpid()) + ".yaml";
  if (std::FILE* file = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, file);
    std::fclose(file);
  }
  try {
    zoneode::load_deck(path, {});
  } catch (const zoneode::InputError&) {
  }
  return 0;
}
