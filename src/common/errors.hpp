// The error every reader of the user's input throws: exit status 2 (cli.hpp), not a runtime failure.
#pragma once

#include <istream>
#include <stdexcept>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace zoneode {

// Bad input of any kind: a deck, an input file's contents, an output that exists already.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Text as a terminal may show it: control bytes (C0, DEL, C1), bytes of no valid UTF-8 sequence
// and a NUL as \xNN (tab, newline and return as \t, \n, \r), valid UTF-8 as it is. So an ESC
// sequence in a file never reaches the terminal, and an invisible byte is seen.
inline std::string printable(std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  const auto escape = [&](unsigned char byte) {
    if (byte == '\t') out += "\\t";
    else if (byte == '\n') out += "\\n";
    else if (byte == '\r') out += "\\r";
    else out += {'\\', 'x', hex[byte >> 4], hex[byte & 15]};
  };
  for (std::size_t k = 0; k < text.size();) {
    const auto byte = static_cast<unsigned char>(text[k]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += text[k++];
      continue;
    }
    // The length of a well-formed UTF-8 sequence starting here (no overlong forms, no surrogates),
    // 0 for none.
    const std::size_t length = byte >= 0xc2 && byte <= 0xdf   ? 2
                               : byte >= 0xe0 && byte <= 0xef ? 3
                               : byte >= 0xf0 && byte <= 0xf4 ? 4
                                                              : 0;
    if (length > 0 && k + length <= text.size()) {
      const auto second = static_cast<unsigned char>(text[k + 1]);
      const bool second_in_range = byte == 0xe0   ? second >= 0xa0   // no overlong form
                                   : byte == 0xed ? second < 0xa0    // no surrogate
                                   : byte == 0xf0 ? second >= 0x90   // no overlong form
                                   : byte == 0xf4 ? second < 0x90    // at most U+10FFFF
                                                  : true;
      const bool second_ok = second_in_range && (second & 0xc0) == 0x80;
      bool ok = second_ok && !(byte == 0xc2 && second < 0xa0);  // U+0080-U+009F: C1 controls
      for (std::size_t j = 2; j < length; ++j) ok = ok && (static_cast<unsigned char>(text[k + j]) & 0xc0) == 0x80;
      if (ok) {
        out.append(text.substr(k, length));
        k += length;
        continue;
      }
    }
    escape(byte);
    ++k;
  }
  return out;
}

// For a name holding a character outside ASCII: " (its character N, U+XXXX, is no ASCII
// character: names are ASCII; a look-alike letter?)", else "". A Cyrillic 'е' in "hе4" printed
// as the Latin one and the message read "expected a species ..., got 'he4'" (issue 40).
inline std::string non_ascii_note(std::string_view name) {
  std::size_t character = 0;
  for (std::size_t k = 0; k < name.size(); ++k) {
    const auto byte = static_cast<unsigned char>(name[k]);
    if ((byte & 0xc0) != 0x80) ++character;  // a UTF-8 continuation byte starts no character
    if (byte < 0x80) continue;
    const std::size_t length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    std::uint32_t code = length == 1 ? byte : byte & (0xff >> (length + 1));
    bool valid = length > 1 && k + length <= name.size();
    for (std::size_t j = 1; valid && j < length; ++j) {
      const auto next = static_cast<unsigned char>(name[k + j]);
      valid = (next & 0xc0) == 0x80;
      code = (code << 6) | (next & 0x3f);
    }
    char what[16];
    std::snprintf(what, sizeof what, valid ? "U+%04X" : "byte 0x%02X", valid ? code : byte);
    std::string note = " (its character ";  // appended: a GCC 12 -Wrestrict false positive otherwise
    note += std::to_string(character);
    note += ", ";
    note += what;
    note += ", is no ASCII character: names are ASCII; a look-alike letter?)";
    return note;
  }
  return "";
}

// A value as an error message quotes it: whole when short, else its start and its length, so that
// a bad 5 MB value gives a one-line message; printable (above).
inline std::string excerpt(std::string_view text, std::size_t most = 80) {
  if (text.size() <= most) return printable(text);
  return printable(text.substr(0, most)) + "... (" + std::to_string(text.size()) + " bytes)";
}

// Names as a message lists them: "p, he4, c12".
inline std::string comma_list(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

// Skips a UTF-8 byte order mark at the start of `in`, as the deck reader does: an editor's BOM gave
// "bad magic line 'zoneode-network 1', expected 'zoneode-network 1'".
inline void skip_byte_order_mark(std::istream& in) {
  static constexpr char mark[] = "\xef\xbb\xbf";
  for (int k = 0; k < 3; ++k) {
    if (in.peek() != static_cast<unsigned char>(mark[k])) {
      // A partial mark is no mark: put back what was read (at most 2 bytes).
      for (int j = 0; j < k; ++j) in.unget();
      return;
    }
    in.get();
  }
}

}  // namespace zoneode
