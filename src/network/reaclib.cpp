// Reader for the JINA REACLIB 2 text format, as distributed by pynucastro.
//
// A set is four lines: the chapter (1..11), a fixed-column header (six 5-character nuclide fields
// in columns 6-35, the label in 44-47, the resonance flag in 48, the reverse flag in 49, Q in
// 53-64) and two lines of 13-character coefficient fields (a0..a3, then a4..a6). Fields may touch
// ("-7.4e-02-7.9e-03"), so everything is cut by column, never split on whitespace.
#include "network/reaclib.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "common/numbers.hpp"
#include "common/errors.hpp"
#include "network/network_checks.hpp"
#include "network/nuclides.hpp"

namespace zoneode {

namespace {

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

bool is_blank(std::string_view text) { return trim(text).empty(); }

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Columns are 1-based and inclusive, as in the format description; a line shorter than the
// field gives what is there (trailing blanks are often stripped).
std::string_view columns(std::string_view line, std::size_t first, std::size_t last) {
  if (line.size() < first) return {};
  return line.substr(first - 1, last - first + 1);
}

[[noreturn]] void fail(const std::string& source, int line, const std::string& what) {
  throw std::runtime_error(source + ":" + std::to_string(line) + ": " + what);
}

// The whole (trimmed) field must be one finite number: "1.0abc" is not one.
bool parse_number(std::string_view field, double& value) {
  const std::optional<double> number = parse_whole_number(trim(field));
  if (number) value = *number;
  return number.has_value();
}

struct ChapterShape {
  int reactants;
  int min_products;
  int max_products;
};

// Reactant and product counts per chapter; chapter 8 is a+b+c->d in REACLIB 2 but a+b+c->d+e
// in some older libraries, so it allows either.
constexpr std::array<ChapterShape, 12> chapter_shapes = {{
    {0, 0, 0},  // unused
    {1, 1, 1},  // 1: a -> b
    {1, 2, 2},  // 2: a -> b + c
    {1, 3, 3},  // 3: a -> b + c + d
    {2, 1, 1},  // 4: a + b -> c
    {2, 2, 2},  // 5: a + b -> c + d
    {2, 3, 3},  // 6: a + b -> c + d + e
    {2, 4, 4},  // 7: a + b -> c + d + e + f
    {3, 1, 2},  // 8: a + b + c -> d (+ e)
    {3, 2, 2},  // 9: a + b + c -> d + e
    {4, 2, 2},  // 10: a + b + c + d -> e + f
    {1, 4, 4},  // 11: a -> b + c + d + e
}};

struct ParsedSet {
  int line = 0;  // 1-based line of the chapter line
  int chapter = 0;
  std::vector<std::string> reactants;
  std::vector<std::string> products;
  RateSet rate;
  double Q_MeV = 0.0;
};

int parse_chapter(std::string_view line, const std::string& source, int line_number) {
  const std::string text(trim(line));
  // One or two digits, as the format has them ("+7" or "011" are not chapter lines).
  const bool digits = !text.empty() && text.size() <= 2 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  const std::optional<std::int64_t> number = digits ? parse_whole_integer(text) : std::nullopt;
  if (!number || *number < 1 || *number > 11) {
    fail(source, line_number, "chapter line '" + excerpt(text) + "' is not a chapter number, expected an integer 1 to 11");
  }
  return static_cast<int>(*number);
}

void parse_header(std::string_view line, const std::string& source, int n, ParsedSet& set) {
  if (line.size() < 53) {
    fail(source, n, "header line too short (" + std::to_string(line.size()) +
                        " characters), expected nuclides, label, flags and Q value through column 53 at least");
  }
  if (!is_blank(columns(line, 1, 5))) fail(source, n, "text in columns 1-5 of the header, expected blanks");
  if (!is_blank(columns(line, 36, 43))) fail(source, n, "text in columns 36-43 of the header, expected blanks");
  if (!is_blank(columns(line, 50, 52))) fail(source, n, "text in columns 50-52 of the header, expected blanks");

  std::vector<std::string> names;
  bool seen_blank = false;
  for (int k = 0; k < 6; ++k) {
    const std::size_t first = 6 + 5 * static_cast<std::size_t>(k);
    const std::string_view field = trim(columns(line, first, first + 4));
    if (field.empty()) {
      seen_blank = true;
      continue;
    }
    const std::string where = "nuclide field " + std::to_string(k + 1) + " (columns " + std::to_string(first) +
                              "-" + std::to_string(first + 4) + ")";
    if (seen_blank) fail(source, n, where + " follows a blank field, expected the names left-packed");
    int Z = 0, A = 0;
    if (!parse_nuclide_name(field, Z, A)) {
      fail(source, n, where + " '" + excerpt(field) + "' is not a nuclide name, expected n, p, d, t or a symbol and mass number such as he4");
    }
    names.push_back(lower(field));
  }

  const ChapterShape shape = chapter_shapes[set.chapter];
  const int products = static_cast<int>(names.size()) - shape.reactants;
  if (products < shape.min_products || products > shape.max_products) {
    const int lo = shape.reactants + shape.min_products, hi = shape.reactants + shape.max_products;
    fail(source, n, "chapter " + std::to_string(set.chapter) + " set names " + std::to_string(names.size()) +
                        " nuclides, expected " + std::to_string(shape.reactants) + " reactants and " +
                        (lo == hi ? std::to_string(shape.min_products)
                                  : std::to_string(shape.min_products) + " or " + std::to_string(shape.max_products)) +
                        " product(s)");
  }
  set.reactants.assign(names.begin(), names.begin() + shape.reactants);
  set.products.assign(names.begin() + shape.reactants, names.end());

  const std::string_view label = trim(columns(line, 44, 47));
  if (label.empty()) fail(source, n, "blank set label, expected a label in columns 44-47");
  set.rate.label = std::string(label);

  const char resonance = line[47];  // column 48
  if (resonance == ' ' || resonance == 'n') {
    set.rate.resonance = 'n';
  } else if (resonance == 'r' || resonance == 'w' || resonance == 's') {
    set.rate.resonance = resonance;
  } else {
    fail(source, n, "resonance flag '" + printable(std::string(1, resonance)) + "' in column 48, expected 'n', 'r', 'w', 's' or blank");
  }
  const char reverse = line[48];  // column 49
  if (reverse != 'v' && reverse != ' ') {
    fail(source, n, "reverse flag '" + printable(std::string(1, reverse)) + "' in column 49, expected 'v' or blank");
  }
  set.rate.reverse = reverse == 'v';

  // Q runs from column 53 to the end of the line, so that a Q with text glued after it fails
  // rather than being cut at column 64.
  if (!parse_number(line.substr(52), set.Q_MeV)) {
    fail(source, n, "Q value '" + excerpt(trim(line.substr(52))) + "' is not a number, expected a finite number from column 53");
  }
}

// Coefficients a[first] .. a[first+count-1], 13 columns each from column 1.
void parse_coefficients(std::string_view line, const std::string& source, int n, int first, int count,
                        ParsedSet& set) {
  for (int k = 0; k < count; ++k) {
    const std::size_t col = 1 + 13 * static_cast<std::size_t>(k);
    const std::string_view field = columns(line, col, col + 12);
    const std::string where = "coefficient a" + std::to_string(first + k) + " (columns " + std::to_string(col) +
                              "-" + std::to_string(col + 12) + ")";
    if (is_blank(field)) fail(source, n, where + " is missing, expected a number");
    if (!parse_number(field, set.rate.a[first + k])) {
      fail(source, n, where + " '" + excerpt(trim(field)) + "' is not a number, expected a finite number");
    }
  }
  const std::size_t end = 13 * static_cast<std::size_t>(count);
  if (line.size() > end && !is_blank(line.substr(end))) {
    fail(source, n, "text after column " + std::to_string(end) + ", expected only " + std::to_string(count) +
                        " coefficients of 13 columns each");
  }
}

bool same_q(double a, double b) {
  const double diff = std::fabs(a - b);
  return diff <= 1e-6 || diff <= 1e-6 * std::max(std::fabs(a), std::fabs(b));
}

}  // namespace

bool reaclib_is_electron_capture(std::string_view label) {
  const std::string_view name = trim(label);
  return name == "ec" || name == "bec";
}

std::vector<std::string> read_nuclide_list(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open '" + path + "', expected a readable nuclide list");
  skip_byte_order_mark(in);
  std::vector<std::string> names;
  std::map<std::string, int> first_line;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::string_view text = line;
    if (const auto hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
    text = trim(text);
    if (text.empty()) continue;
    for (char c : text) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        fail(path, n, "'" + excerpt(text) + "' holds more than one name, expected one nuclide name per line");
      }
    }
    int Z = 0, A = 0;
    if (!parse_nuclide_name(text, Z, A)) {
      fail(path, n, "'" + excerpt(text) + "' is not a nuclide name, expected n, p, d, t or a symbol and mass number such as he4");
    }
    const std::string name = lower(text);
    if (const auto it = first_line.find(name); it != first_line.end()) {
      fail(path, n, "nuclide '" + excerpt(name) + "' already listed at line " + std::to_string(it->second) + ", expected each name once");
    }
    first_line[name] = n;
    names.push_back(name);
  }
  if (in.bad()) throw std::runtime_error(path + ": read error");
  return names;
}

Network parse_reaclib(std::istream& in, const std::string& source, const std::vector<std::string>& keep,
                      ReaclibSummary* summary) {
  std::vector<std::string> lines;
  skip_byte_order_mark(in);  // an editor's BOM is no part of the first chapter line
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // files written on Windows
    lines.push_back(std::move(line));
  }
  if (in.bad()) throw std::runtime_error(source + ": read error");

  // Pass 1: every set of the file, whatever the keep list, so that a malformed file is an error
  // however it is filtered.
  std::vector<ParsedSet> sets;
  for (std::size_t i = 0; i < lines.size();) {
    if (is_blank(lines[i])) {  // blank lines between sets
      ++i;
      continue;
    }
    const int start = static_cast<int>(i) + 1;
    ParsedSet set;
    set.line = start;
    set.chapter = parse_chapter(lines[i], source, start);
    if (i + 3 >= lines.size()) {
      fail(source, start, "set starting at line " + std::to_string(start) +
                              " is truncated, expected a chapter line, a header line and two coefficient lines");
    }
    parse_header(lines[i + 1], source, start + 1, set);
    parse_coefficients(lines[i + 2], source, start + 2, 0, 4, set);
    parse_coefficients(lines[i + 3], source, start + 3, 4, 3, set);
    sets.push_back(std::move(set));
    i += 4;
  }

  // The reactions: sets with one key are the parts (resonant, non-resonant) of one rate.
  using Key = std::tuple<int, std::vector<std::string>, std::vector<std::string>, std::string, bool>;
  auto key_of = [](const ParsedSet& set) {
    return Key{set.chapter, set.reactants, set.products, set.rate.label, set.rate.reverse};
  };
  {
    // The sets of each key in file order. A set given twice (a library concatenated with itself,
    // an edit, a copy rounded in its last digits) would be summed: twice the rate. The rule is
    // the network file's too (same_rate_set).
    std::map<Key, std::vector<const ParsedSet*>> group_of;
    for (const auto& set : sets) {
      std::vector<const ParsedSet*>& group = group_of[key_of(set)];
      for (const ParsedSet* earlier : group)
        if (same_rate_set(earlier->rate, set.rate))
          fail(source, set.line, "this set repeats the set at line " + std::to_string(earlier->line) +
                                     " (same nuclides, label, flags and coefficients within 1e-5), expected each set "
                                     "once: sets of one reaction are summed, so it would count twice");
      if (!group.empty() && !same_q(group.front()->Q_MeV, set.Q_MeV)) {
        const std::string text = "Q value " + format_number(set.Q_MeV) + " MeV differs from " +
                                 format_number(group.front()->Q_MeV) + " MeV at line " +
                                 std::to_string(group.front()->line + 1);
        fail(source, set.line + 1, text + " (same reaction), expected one Q value for all sets of a reaction");
      }
      group.push_back(&set);
    }
  }

  Network network;
  network.name = std::filesystem::path(source).stem().string();
  if (network.name.empty()) network.name = source;
  std::map<std::string, int> index_of;
  auto add_species = [&](const std::string& name) {
    Species species;
    if (!parse_nuclide_name(name, species.Z, species.A)) {
      throw std::runtime_error(source + ": keep-list entry '" + excerpt(name) +
                               "' is not a nuclide name, expected n, p, d, t or a symbol and mass number such as he4");
    }
    species.name = lower(name);
    species.mass_excess_MeV = std::numeric_limits<double>::quiet_NaN();  // REACLIB gives no masses
    if (!index_of.emplace(species.name, network.species_count()).second) {
      throw std::runtime_error(source + ": keep-list entry '" + excerpt(species.name) + "' appears twice, expected each once");
    }
    network.species.push_back(std::move(species));
  };
  if (keep.empty()) {
    for (const auto& set : sets) {
      for (const auto* side : {&set.reactants, &set.products})
        for (const auto& name : *side)
          if (!index_of.count(name)) add_species(name);
    }
  } else {
    for (const auto& name : keep) add_species(name);
  }

  std::map<Key, int> reaction_of;
  std::vector<int> reaction_lines;  // each reaction's first header line, for messages
  int sets_kept = 0, captures_without_weak_flag = 0, weak_sets_not_captures = 0;
  for (const auto& set : sets) {
    bool all_kept = true;
    for (const auto* side : {&set.reactants, &set.products})
      for (const auto& name : *side) all_kept = all_kept && index_of.count(name) > 0;
    if (!all_kept) continue;
    ++sets_kept;
    const bool capture = reaclib_is_electron_capture(set.rate.label);
    const bool weak = set.rate.resonance == 'w';
    if (capture && !weak) ++captures_without_weak_flag;
    if (weak && !capture) ++weak_sets_not_captures;
    if (capture) {
      // An electron absorbed: the products carry one charge less (pynucastro asserts the same).
      int charge_in = 0, charge_out = 0;
      for (const auto& name : set.reactants) charge_in += network.species[index_of.at(name)].Z;
      for (const auto& name : set.products) charge_out += network.species[index_of.at(name)].Z;
      if (charge_out != charge_in - 1) {
        fail(source, set.line + 1, "set labelled '" + excerpt(set.rate.label) + "' (an electron capture) has charge " +
                                       std::to_string(charge_in) + " in and " + std::to_string(charge_out) +
                                       " out, expected one less out");
      }
    }
    const auto [it, inserted] = reaction_of.emplace(key_of(set), network.reaction_count());
    if (inserted) {
      Reaction reaction;
      for (const auto& name : set.reactants) reaction.reactants.push_back(index_of.at(name));
      for (const auto& name : set.products) reaction.products.push_back(index_of.at(name));
      reaction.Q_MeV = set.Q_MeV;
      // REACLIB tabulates electron captures per unit rho*Ye; the label says which ones they are
      // (one label per reaction: it is part of the key).
      reaction.electron_capture = capture;
      network.reactions.push_back(std::move(reaction));
      reaction_lines.push_back(set.line + 1);
    }
    network.reactions[it->second].sets.push_back(set.rate);
  }

  if (summary) {
    summary->sets_read = static_cast<int>(sets.size());
    summary->sets_kept = sets_kept;
    summary->reactions_kept = network.reaction_count();
    summary->electron_captures = 0;
    for (const auto& reaction : network.reactions) summary->electron_captures += reaction.electron_capture ? 1 : 0;
    summary->captures_without_weak_flag = captures_without_weak_flag;
    summary->weak_sets_not_captures = weak_sets_not_captures;
  }
  if (network.reactions.empty()) {
    throw std::runtime_error(source + ": no reactions: " +
                             (sets.empty() ? std::string("the library holds no sets")
                                           : std::to_string(sets.size()) + " sets read, none with all its nuclides kept") +
                             ", expected a library with at least one reaction among the nuclides kept");
  }
  validate_network(network, source);
  check_network_physics(network, source, reaction_lines);
  return network;
}

Network read_reaclib(const std::string& path, const std::vector<std::string>& keep, ReaclibSummary* summary) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open '" + path + "', expected a readable REACLIB library");
  return parse_reaclib(in, path, keep, summary);
}

}  // namespace zoneode
