// The zoneode network file: line-oriented text that reads back bit-exact (inputs/network_file_format.md).
//
//   zoneode-network 1
//   name <text>
//   species <count>
//   <name> <Z> <A> <mass_excess_MeV>                       (count lines)
//   reactions <count>
//   reaction <reactants> -> <products> Q <Q_MeV> ec <0|1> sets <k>
//   set <label> <resonance> <reverse 0|1> <a0> ... <a6>    (k lines after each reaction)
//   end
//
// Doubles are written with %.17g, which reads back to the same bits; NaN is written "nan".
// Names and labels are single tokens with %XX escapes for anything that would not be one.
#include "network/network_file.hpp"

#include "common/atomic_file.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <vector>

#include "common/numbers.hpp"
#include "common/errors.hpp"
#include "network/network_checks.hpp"

namespace zoneode {

namespace {

constexpr std::string_view magic_line = "zoneode-network 1";
constexpr int coefficient_count = 7;
constexpr const char* coefficient_names[coefficient_count] = {"a0", "a1", "a2", "a3", "a4", "a5", "a6"};

// ---- writing ----

bool is_plain(char c, bool first) {
  const unsigned char u = static_cast<unsigned char>(c);
  if (u <= 0x20 || u >= 0x7f || c == '%') return false;
  return !(first && c == '#');  // a token starting with '#' would read as a comment
}

// A string as one token: printable ASCII as is, every other byte (and '%', and a leading '#') as
// %XX. The empty string is "%" alone, which no escape sequence can produce.
std::string encode_token(const std::string& text) {
  if (text.empty()) return "%";
  std::string out;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (is_plain(c, k == 0)) {
      out += c;
    } else {
      char escape[4];
      std::snprintf(escape, sizeof escape, "%%%02X", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += escape;
    }
  }
  // A name spelled like a keyword of the reaction line would be ambiguous there.
  if (out == "->") out = "%2D>";
  return out;
}

// ---- reading ----

class Parser {
 public:
  Parser(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

  Network parse() {
    Network network;
    skip_byte_order_mark(in_);  // an editor's BOM is no part of the magic line
    std::vector<std::string> fields = next_line("the magic line 'zoneode-network 1'");
    if (joined(fields) != magic_line)
      fail("bad magic line '" + excerpt(joined(fields)) + "', expected '" + std::string(magic_line) + "'");

    fields = next_line("a 'name' line");
    expect_keyword(fields, "name", 2, "name <network name>");
    network.name = decode_token(fields[1], "the network name");

    fields = next_line("a 'species' line");
    expect_keyword(fields, "species", 2, "species <count>");
    const int species_count = parse_count(fields[1], "species count");
    std::map<std::string, int> index;
    for (int i = 0; i < species_count; ++i) {
      fields = next_line("species " + std::to_string(i + 1) + " of " + std::to_string(species_count));
      if (fields.size() != 4)
        fail(std::to_string(fields.size()) + " fields on a species line, expected 4 (name Z A mass_excess)");
      Species s;
      s.name = decode_token(fields[0], "a species name");
      s.Z = parse_int(fields[1], "Z");
      s.A = parse_int(fields[2], "A");
      s.mass_excess_MeV = parse_double(fields[3], "the mass excess", true);
      if (!index.emplace(s.name, i).second) fail("species '" + excerpt(s.name) + "' appears twice, expected unique names");
      network.species.push_back(std::move(s));
    }

    fields = next_line("a 'reactions' line");
    expect_keyword(fields, "reactions", 2, "reactions <count>");
    const int reaction_count = parse_count(fields[1], "reaction count");
    std::vector<int> reaction_lines;
    for (int r = 0; r < reaction_count; ++r) {
      fields = next_line("reaction " + std::to_string(r + 1) + " of " + std::to_string(reaction_count));
      reaction_lines.push_back(line_);
      network.reactions.push_back(parse_reaction(fields, index));
      Reaction& reaction = network.reactions.back();
      const int set_count = parse_count(fields.back(), "set count");
      if (set_count < 1) fail("0 sets, expected at least 1 set per reaction");
      for (int k = 0; k < set_count; ++k) {
        fields = next_line("set " + std::to_string(k + 1) + " of " + std::to_string(set_count) + " of reaction " +
                           std::to_string(r + 1));
        reaction.sets.push_back(parse_set(fields, k + 1, set_count));
      }
    }

    fields = next_line("the 'end' line");
    if (fields.size() != 1 || fields[0] != "end") fail("'" + excerpt(joined(fields)) + "', expected 'end'");
    std::vector<std::string> rest;
    if (read_content_line(rest)) fail("'" + excerpt(joined(rest)) + "' after 'end', expected the end of the file");

    validate_network(network, source_);
    check_network_physics(network, source_, reaction_lines);
    return network;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(source_ + ":" + std::to_string(line_) + ": " + what);
  }

  // The next line with content (comments and blank lines skipped), split on blanks. False at EOF.
  bool read_content_line(std::vector<std::string>& fields) {
    std::string text;
    while (std::getline(in_, text)) {
      ++line_;
      fields.clear();
      std::size_t k = 0;
      while (k < text.size()) {
        while (k < text.size() && is_blank(text[k])) ++k;
        if (k >= text.size() || text[k] == '#') break;  // a token starting with '#' opens a comment
        const std::size_t start = k;
        while (k < text.size() && !is_blank(text[k])) ++k;
        fields.emplace_back(text.substr(start, k - start));
      }
      if (!fields.empty()) return true;
    }
    if (in_.bad()) fail("read error, expected readable text");
    return false;
  }

  std::vector<std::string> next_line(const std::string& expected) {
    std::vector<std::string> fields;
    if (!read_content_line(fields)) {
      line_ += 1;  // the error is at the line that is missing: one past the last
      fail("truncated file (end of file), expected " + expected);
    }
    return fields;
  }

  static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

  static std::string joined(const std::vector<std::string>& fields) {
    std::string text;
    for (std::size_t k = 0; k < fields.size(); ++k) text += (k ? " " : "") + fields[k];
    return text;
  }

  void expect_keyword(const std::vector<std::string>& fields, const std::string& keyword, std::size_t count,
                      const std::string& form) {
    if (fields[0] != keyword) fail("'" + excerpt(fields[0]) + "' line, expected '" + form + "'");
    if (fields.size() != count)
      fail(std::to_string(fields.size()) + " fields on the '" + keyword + "' line, expected " + std::to_string(count) +
           " ('" + form + "')");
  }

  std::string decode_token(const std::string& token, const std::string& what) {
    if (token == "%") return {};
    std::string out;
    for (std::size_t k = 0; k < token.size(); ++k) {
      if (token[k] != '%') {
        out += token[k];
        continue;
      }
      auto hex = [&](std::size_t at) -> int {
        if (at >= token.size()) return -1;
        const char c = token[at];
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
      };
      const int high = hex(k + 1), low = hex(k + 2);
      if (high < 0 || low < 0) fail("bad escape in " + what + " '" + excerpt(token) + "', expected %XX with two hex digits");
      out += static_cast<char>(high * 16 + low);
      k += 2;
    }
    return out;
  }

  int parse_int(const std::string& field, const std::string& what) {
    const std::optional<std::int64_t> value = parse_whole_integer(field);
    if (!value || *value < std::numeric_limits<int>::min() || *value > std::numeric_limits<int>::max())
      fail("bad number '" + excerpt(field) + "' for " + what + ", expected an integer");
    return static_cast<int>(*value);
  }

  int parse_count(const std::string& field, const std::string& what) {
    const int value = parse_int(field, what);
    if (value < 0) fail("bad number '" + excerpt(field) + "' for " + what + ", expected a count >= 0");
    return value;
  }

  // NaN only where allowed, and always the same NaN.
  double parse_double(const std::string& field, const std::string& what, bool allow_nan) {
    const std::optional<double> value = parse_whole_number(field, NonFinite::allow);
    if (value && std::isnan(*value) && allow_nan) return std::numeric_limits<double>::quiet_NaN();
    if (!value || !std::isfinite(*value))
      fail("bad number '" + excerpt(field) + "' for " + what + (allow_nan ? ", expected a number or nan" : ", expected a finite number"));
    return *value;
  }

  Reaction parse_reaction(const std::vector<std::string>& fields, const std::map<std::string, int>& index) {
    // reaction r1 .. -> p1 .. Q <q> ec <0|1> sets <k>: the last six fields are fixed, so a product
    // named like a keyword cannot confuse the parse.
    if (fields[0] != "reaction")
      fail("'" + excerpt(fields[0]) + "' line, expected 'reaction <reactants> -> <products> Q <Q> ec <0|1> sets <count>'");
    if (fields.size() < 10)
      fail(std::to_string(fields.size()) + " fields on a reaction line, expected at least 10 "
           "('reaction <reactants> -> <products> Q <Q> ec <0|1> sets <count>')");
    const std::size_t tail = fields.size() - 6;
    if (fields[tail] != "Q" || fields[tail + 2] != "ec" || fields[tail + 4] != "sets")
      fail("reaction line ends '" +
           excerpt(fields[tail] + " " + fields[tail + 1] + " " + fields[tail + 2] + " " + fields[tail + 3] + " " +
                   fields[tail + 4] + " " + fields[tail + 5]) +
           "', expected 'Q <Q> ec <0|1> sets <count>'");
    std::size_t arrow = 0;
    for (std::size_t k = 1; k < tail; ++k)
      if (fields[k] == "->") {
        if (arrow) fail("two '->' on a reaction line, expected one");
        arrow = k;
      }
    if (!arrow) fail("no '->' on a reaction line, expected 'reactants -> products'");
    Reaction reaction;
    auto side = [&](std::size_t first, std::size_t last, std::vector<int>& list, const char* what) {
      for (std::size_t k = first; k < last; ++k) {
        const std::string name = decode_token(fields[k], std::string("a ") + what + " name");
        const auto it = index.find(name);
        if (it == index.end()) fail("unknown species '" + excerpt(name) + "' among the " + what + "s, expected a name from the species list");
        list.push_back(it->second);
      }
      if (list.empty() || list.size() > 4)
        fail(std::to_string(list.size()) + " " + what + "s, expected 1 to 4");
    };
    side(1, arrow, reaction.reactants, "reactant");
    side(arrow + 1, tail, reaction.products, "product");
    reaction.Q_MeV = parse_double(fields[tail + 1], "Q", false);
    const std::string& ec = fields[tail + 3];
    if (ec != "0" && ec != "1") fail("bad electron-capture flag '" + excerpt(ec) + "', expected 0 or 1");
    reaction.electron_capture = ec == "1";
    return reaction;
  }

  RateSet parse_set(const std::vector<std::string>& fields, int number, int count) {
    if (fields[0] != "set")
      fail("'" + excerpt(fields[0]) + "' line, expected 'set' (set " + std::to_string(number) + " of " + std::to_string(count) +
           " of the reaction above)");
    if (fields.size() != 4 + coefficient_count)
      fail(std::to_string(fields.size()) + " fields on a set line, expected 11 (set label resonance reverse a0 .. a6)");
    RateSet set;
    set.label = decode_token(fields[1], "a set label");
    const std::string& resonance = fields[2];
    if (resonance.size() != 1 || std::string_view("nrws").find(resonance[0]) == std::string_view::npos)
      fail("bad resonance flag '" + excerpt(resonance) + "', expected one of n, r, w, s");
    set.resonance = resonance[0];
    if (fields[3] != "0" && fields[3] != "1") fail("bad reverse flag '" + excerpt(fields[3]) + "', expected 0 or 1");
    set.reverse = fields[3] == "1";
    for (int k = 0; k < coefficient_count; ++k)
      set.a[k] = parse_double(fields[4 + k], coefficient_names[k], false);
    return set;
  }

  std::istream& in_;
  std::string source_;
  int line_ = 0;
};

}  // namespace

void write_network_file(const Network& network, std::ostream& out) {
  validate_network(network, "network file");
  for (const auto& reaction : network.reactions)
    for (const auto& set : reaction.sets)
      if (std::string_view("nrws").find(set.resonance) == std::string_view::npos)
        throw std::runtime_error("network file: reaction " + excerpt(network.describe(reaction)) + " has resonance flag '" +
                                 std::string(1, set.resonance) + "', expected one of n, r, w, s");
  // Appended piece by piece ("literal" + std::string&& trips a GCC 12 -Wrestrict false positive).
  std::string text;
  auto put = [&text](std::initializer_list<std::string_view> pieces) {
    for (std::string_view piece : pieces) text += piece;
  };
  put({magic_line, "\n# ", std::to_string(network.species_count()), " species, ", std::to_string(network.reaction_count()),
       " reactions; format: inputs/network_file_format.md\n"});
  put({"name ", encode_token(network.name), "\n"});
  put({"species ", std::to_string(network.species_count()), "\n"});
  for (const auto& s : network.species)
    put({encode_token(s.name), " ", std::to_string(s.Z), " ", std::to_string(s.A), " ", format_number_17g(s.mass_excess_MeV), "\n"});
  put({"reactions ", std::to_string(network.reaction_count()), "\n"});
  for (const auto& reaction : network.reactions) {
    put({"reaction"});
    for (int i : reaction.reactants) put({" ", encode_token(network.species[i].name)});
    put({" ->"});
    for (int i : reaction.products) put({" ", encode_token(network.species[i].name)});
    put({" Q ", format_number_17g(reaction.Q_MeV), " ec ", reaction.electron_capture ? "1" : "0", " sets ",
         std::to_string(reaction.sets.size()), "\n"});
    for (const auto& set : reaction.sets) {
      const char resonance[2] = {set.resonance, '\0'};
      put({"  set ", encode_token(set.label), " ", resonance, " ", set.reverse ? "1" : "0"});
      for (double a : set.a) put({" ", format_number_17g(a)});
      put({"\n"});
    }
  }
  text += "end\n";
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  if (!out) throw std::runtime_error("network file: write failed");
}

void write_network_file(const Network& network, const std::string& path) {
  // A failed write never leaves a truncated file under the final name (common/atomic_file.hpp).
  std::ostringstream text;
  write_network_file(network, text);
  write_file_atomically(path, text.str());
}

Network parse_network_file(std::istream& in, const std::string& source) {
  return Parser(in, source).parse();
}

Network read_network_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw std::runtime_error("cannot open '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  return parse_network_file(in, path);
}

}  // namespace zoneode
