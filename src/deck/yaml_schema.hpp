// Typed, checked access to a YAML deck: every error names the file, line, column, key and what was
// expected, and every value read (defaults included) is recorded in the resolved deck.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "common/errors.hpp"

namespace zoneode {

class DeckError : public InputError {
 public:
  using InputError::InputError;
};

// Where values come from: the deck file and the command-line overrides applied on top of it.
struct DeckSource {
  std::string file;                                  // as given on the command line
  std::map<std::string, std::string> overrides;      // dotted key -> the "--set key=value" text
};

struct NumberRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  const char* why = nullptr;     // the reason for the range, said with it ("" for none)
  std::string describe() const;  // "a number > 0", "a number in [0, 1] (WHY)"
};
NumberRange positive();
NumberRange at_least(double min);
NumberRange between(double min, double max);

class DeckSection {
 public:
  DeckSection(YAML::Node node, std::string path, std::shared_ptr<const DeckSource> source, YAML::Node resolved);

  bool has(const std::string& key) const;
  double number(const std::string& key, std::optional<double> fallback, const NumberRange& range);
  std::int64_t integer(const std::string& key, std::optional<std::int64_t> fallback, std::int64_t min,
                       std::int64_t max = std::numeric_limits<std::int64_t>::max());
  bool boolean(const std::string& key, std::optional<bool> fallback);
  std::string text(const std::string& key, std::optional<std::string> fallback,
                   const std::vector<std::string>& choices = {});
  // One of `kinds`, by the name `name_of` gives it; any other name is a deck error listing them.
  template <typename Kind, std::size_t N>
  Kind choice(const std::string& key, std::type_identity_t<std::optional<Kind>> fallback, const Kind (&kinds)[N],
              std::string_view (*name_of)(Kind)) {
    std::vector<std::string> names;
    for (Kind kind : kinds) names.emplace_back(name_of(kind));
    const std::string chosen =
        text(key, fallback ? std::optional<std::string>(name_of(*fallback)) : std::nullopt, names);
    for (Kind kind : kinds)
      if (name_of(kind) == chosen) return kind;
    fail(key, "a name that text() accepts");  // unreachable: text() took only these names
  }
  // A path, resolved against the deck file's folder when relative (recorded as written).
  std::string path(const std::string& key, std::optional<std::string> fallback);
  // A required path that must name an existing file.
  std::string existing_file(const std::string& key);
  std::vector<double> number_list(const std::string& key, const NumberRange& range);
  std::vector<std::string> text_list(const std::string& key);
  // A map of names to numbers, in deck order (e.g. a composition), with each entry's location.
  struct NamedNumber {
    std::string name;
    double value;
    std::string where;
  };
  std::vector<NamedNumber> named_numbers(const std::string& key, const NumberRange& range);
  // A nested map; absent and not required gives an empty section whose defaults still resolve.
  DeckSection section(const std::string& key, bool required = false);

  // Errors for keys this section holds but nobody read.
  void finish() const;

  // "file:line:col: key: expected ..., got ..." for a key of this section.
  [[noreturn]] void fail(const std::string& key, const std::string& expected, const std::string& got = "") const;
  std::string where(const std::string& key) const;
  std::string dotted(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  YAML::Node child(const std::string& key) const;
  // The "--set" text that set this key or a section above it, or nullptr.
  const std::string* override_of(const std::string& dotted_key) const;
  // Where a value came from: "--set ..." or file:line:column.
  std::string place(const std::string& dotted_key, const YAML::Node& node) const;
  YAML::Node node_;
  std::string path_;
  std::shared_ptr<const DeckSource> source_;
  YAML::Node resolved_;
  std::string folder_;
  mutable std::set<std::string> read_;
};

// Loads the deck file and applies the overrides ("section.key=value", value parsed as YAML).
struct LoadedDeck {
  YAML::Node root;
  std::shared_ptr<DeckSource> source;
};
LoadedDeck load_deck_yaml(const std::string& file, const std::vector<std::string>& overrides);
// The same from deck text already in memory (the library's burners); `file` names it in errors and
// is the folder relative paths resolve against ("" for none: the working directory).
LoadedDeck load_deck_yaml_text(const std::string& text, const std::string& file,
                               const std::vector<std::string>& overrides);

// Parses YAML text that must be one document of deck size (at most 100 levels deep and 200,000
// values, found before any node is built); errors name `source`, line and column (DeckError).
// Also for the deck stored in a state file.
YAML::Node load_yaml_text(const std::string& text, const std::string& source);

// YAML text of a resolved node, for printing and for HDF5 provenance.
std::string emit_yaml(const YAML::Node& node);

// `value` as YAML text that reads back as exactly that string: itself where it is a plain word
// (letters, digits, _ . / + -) that YAML reads as such, else double-quoted. For the options whose
// value is no YAML (--summary 'run #1.json' wrote 'run': '#' began a comment).
std::string yaml_string_literal(const std::string& value);

}  // namespace zoneode
