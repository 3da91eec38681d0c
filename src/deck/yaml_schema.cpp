#include "deck/yaml_schema.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cmath>
#include <iterator>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include "common/errors.hpp"
#include "common/file_kind.hpp"
#include "common/numbers.hpp"

namespace zoneode {

namespace {

std::string scalar_text(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsScalar()) return "'" + excerpt(node.Scalar()) + "'";
  if (node.IsSequence()) return "a list";
  return "a map";
}

std::string mark_text(const std::string& file, const YAML::Mark& mark) {
  if (mark.line < 0) return file;
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

// A deck is a few levels deep and a few hundred values long; beyond these it is no deck. Checked
// while YAML events stream by, before any node is built: a 10 MB flow-style list took 28 s and
// 160 times its size in memory to build and then refuse, and yaml-cpp's own depth guard (2000
// levels) says only "bad file". An alias counts as everything it repeats (its anchor's values and
// depth): ten lines of nested aliases ("billion laughs") expand to 10^9 values, which the tree
// walks below took 40 minutes to visit; an alias inside its own anchor (`&a [1, *a]`) makes a
// cycle that every walk followed until the stack overflowed (SIGSEGV).
constexpr int most_deck_depth = 100;
constexpr long most_deck_values = 200000;  // scalars, lists and maps (a 40k-entry map is 80k)

struct DeckTooLarge {
  YAML::Mark mark;
  std::string what;
};

// Counts the documents of a YAML stream (and where the second starts), its values and its depth,
// aliases expanded.
struct DocumentCounter : YAML::EventHandler {
  int documents = 0;
  YAML::Mark second_start;
  long values = 0;
  int depth = 0;
  // What an anchored value expands to: its values and its height (levels of lists and maps).
  struct Extent {
    long values = 0;
    int height = 0;
  };
  // The lists and maps not yet closed, innermost last, and the anchors of the closed ones.
  struct Open {
    YAML::anchor_t anchor;
    long values_before;
    int height;
  };
  std::vector<Open> open_values;
  std::map<YAML::anchor_t, Extent> anchored;

  void count(const YAML::Mark& mark, long added) {
    values += added;
    if (values > most_deck_values)
      throw DeckTooLarge{mark, "more than " + std::to_string(most_deck_values) +
                                   " values (scalars, lists and maps, an alias counted as the values it repeats); a "
                                   "deck holds a few hundred"};
  }
  // A value of `height` levels (0: a scalar) inside the innermost open list or map.
  void nest(int height) {
    if (!open_values.empty()) open_values.back().height = std::max(open_values.back().height, height + 1);
  }
  void scalar(const YAML::Mark& mark, YAML::anchor_t anchor) {
    count(mark, 1);
    nest(0);
    if (anchor != YAML::NullAnchor) anchored[anchor] = {1, 0};
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    count(mark, 1);
    if (++depth > most_deck_depth)
      throw DeckTooLarge{mark, "lists or maps nested more than " + std::to_string(most_deck_depth) +
                                   " levels deep; a deck nests a few"};
    open_values.push_back({anchor, values - 1, 1});
  }
  void close() {
    --depth;
    if (open_values.empty()) return;
    const Open closed = open_values.back();
    open_values.pop_back();
    if (closed.anchor != YAML::NullAnchor) anchored[closed.anchor] = {values - closed.values_before, closed.height};
    nest(closed.height);
  }
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents == 2) second_start = mark;
    open_values.clear();
    anchored.clear();
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { scalar(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto found = anchored.find(anchor);
    if (found == anchored.end())  // an anchor still open: this alias is inside what it names
      throw DeckTooLarge{mark, "an alias inside the list or map its anchor names (a recursive alias, as in "
                               "'x: &a [1, *a]'): it repeats without end; a deck cannot hold one"};
    count(mark, found->second.values);
    if (depth + found->second.height > most_deck_depth)
      throw DeckTooLarge{mark, "lists or maps nested more than " + std::to_string(most_deck_depth) +
                                   " levels deep (an alias counted as what it repeats); a deck nests a few"};
    nest(found->second.height);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    scalar(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }
};

// YAML reads an implicit key of at most 1024 characters; a longer one is "illegal map value"
// at its ':'. Returns the key's length when that is what `error` is, else 0.
std::size_t overlong_key(const std::string& text, const YAML::ParserException& error) {
  if (error.msg != YAML::ErrorMsg::MAP_VALUE || error.mark.pos < 0) return 0;
  const std::size_t colon = static_cast<std::size_t>(error.mark.pos);
  if (colon > text.size()) return 0;
  const std::size_t line_start = text.rfind('\n', colon == 0 ? 0 : colon - 1);
  const std::size_t first = text.find_first_not_of(" \t-", line_start == std::string::npos ? 0 : line_start + 1);
  const std::size_t length = first == std::string::npos || first > colon ? 0 : colon - first;
  return length > 1024 ? length : 0;
}

// What YAML allows but a deck must not hold, each an error naming its line: a map key that is no
// name, a key given twice (yaml-cpp would keep the first silently), a key with no value (a deck cut
// in its last line), and a tag (never read). Walks the whole tree once; O(N log N) in its keys.
void check_deck_tree(const YAML::Node& node, const std::string& file, const std::string& path) {
  const std::string tag = node.Tag();
  if (!tag.empty() && tag != "?" && tag != "!")  // "?" plain and "!" quoted scalars: no tag written
    throw DeckError(mark_text(file, node.Mark()) + ": " + (path.empty() ? "" : path + ": ") + "tag '" +
                    excerpt(tag) + "' is not read; write the value without it");
  if (node.IsSequence()) {
    for (std::size_t k = 0; k < node.size(); ++k) check_deck_tree(node[k], file, path + "[" + std::to_string(k) + "]");
  } else if (node.IsMap()) {
    std::map<std::string, YAML::Mark> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const YAML::Node key = it->first;  // a copy: *it is a temporary (ASan: stack-use-after-scope)
      const YAML::Node value = it->second;
      if (!key.IsScalar())
        throw DeckError(mark_text(file, key.Mark()) + ": " + (path.empty() ? "" : path + ": ") +
                        "expected a key name, got " + (key.IsSequence() ? "a list" : key.IsMap() ? "a map" : "nothing"));
      const std::string dotted = path.empty() ? excerpt(key.Scalar()) : path + "." + excerpt(key.Scalar());
      // yaml-cpp reads a merge key as a key named "<<" ("unknown key 'zones.<<'" said nothing).
      if (key.Scalar() == "<<" && key.Tag() == "?")
        throw DeckError(mark_text(file, key.Mark()) + ": " + dotted +
                        ": a YAML merge key ('<<: *anchor'), which this reader does not apply: write the keys out");
      const auto [first, inserted] = seen.emplace(key.Scalar(), key.Mark());
      if (!inserted)
        throw DeckError(mark_text(file, key.Mark()) + ": " + dotted + ": given twice (first at line " +
                        std::to_string(first->second.line + 1) + ")");
      if (!value.IsDefined() || value.IsNull())
        throw DeckError(mark_text(file, key.Mark()) + ": " + dotted +
                        ": expected a value, got nothing (a key with no value: a deck cut short?)");
      check_deck_tree(value, file, dotted);
    }
  }
}

// Why a scalar that reads as no double is none, where the reason is its size: "" otherwise.
std::string number_size_problem(const YAML::Node& node) {
  if (!node.IsDefined() || !node.IsScalar() || node.Scalar().empty()) return "";
  const std::string& text = node.Scalar();
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno != ERANGE) return "";
  if (std::isinf(value)) return " (beyond the largest double, 1.8e308)";
  return " (below the smallest double, 4.9e-324: it would read as 0)";
}

std::string got_number(const YAML::Node& node) { return scalar_text(node) + number_size_problem(node); }

std::string integer_size_problem(const YAML::Node& node) {
  if (!node.IsDefined() || !node.IsScalar()) return "";
  const std::string& text = node.Scalar();
  const std::size_t digits = text.find_first_not_of("+-") == 1 ? 1 : 0;
  if (text.size() <= digits + 18 || text.find_first_not_of("0123456789", digits) != std::string::npos) return "";
  return " (beyond the 64-bit integer range, 9.2e18)";
}

// A finite number in range, or false.
bool parse_number(const YAML::Node& node, const NumberRange& range, double& out) {
  if (!node.IsDefined() || !node.IsScalar()) return false;
  const std::optional<double> number = parse_whole_number(node.Scalar());
  if (!number) return false;
  out = *number;
  const bool below = range.min_exclusive ? !(out > range.min) : !(out >= range.min);
  return !below && out <= range.max;
}

}  // namespace

YAML::Node load_yaml_text(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    // First the events alone (no nodes: little time and memory): one document, its size and depth.
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentCounter counter;
    // At most two documents: YAML::LoadAll loops for ever on some malformed input (found by
    // fuzzing, yaml-cpp 0.7), returning empty documents without end.
    while (counter.documents < 2 && parser.HandleNextDocument(counter)) {
    }
    if (counter.documents > 1)
      throw DeckError(mark_text(source, counter.second_start) +
                      ": a second YAML document (after '---' or '...'); a deck is one document");
    root = YAML::Load(text);
  } catch (const DeckTooLarge& error) {
    throw DeckError(mark_text(source, error.mark) + ": " + error.what);
  } catch (const YAML::ParserException& error) {
    if (const std::size_t length = overlong_key(text, error)) {
      YAML::Mark start = error.mark;
      start.column = 0;
      throw DeckError(mark_text(source, start) + ": a key of " + std::to_string(length) +
                      " characters; YAML reads keys of at most 1024 (a deck's keys are short names)");
    }
    throw DeckError(mark_text(source, error.mark) + ": YAML syntax error: " + error.msg);
  }
  return root;
}

const std::string* DeckSection::override_of(const std::string& dotted_key) const {
  // The key itself or a section above it, replaced whole (--set zones={...}).
  for (std::string key = dotted_key;;) {
    const auto found = source_->overrides.find(key);
    if (found != source_->overrides.end()) return &found->second;
    const auto dot = key.rfind('.');
    if (dot == std::string::npos) return nullptr;
    key.resize(dot);
  }
}

std::string DeckSection::place(const std::string& dotted_key, const YAML::Node& node) const {
  if (const std::string* item = override_of(dotted_key)) return "--set " + excerpt(*item);
  if (node.Mark().line < 0) {
    // Not from the file: a section "--set a.b=1" created; name that option, not the deck.
    for (const auto& [key, item] : source_->overrides)
      if (key.rfind(dotted_key + ".", 0) == 0) return "--set " + excerpt(item);
  }
  return mark_text(source_->file, node.Mark());
}

std::string NumberRange::describe() const {
  const bool low = std::isfinite(min), high = std::isfinite(max);
  const std::string reason = why != nullptr && *why != '\0' ? std::string(" (") + why + ")" : std::string();
  if (low && high)
    return std::string("a number in ") + (min_exclusive ? "(" : "[") + format_number(min) + ", " + format_number(max) +
           "]" + reason;
  if (low) return std::string("a number ") + (min_exclusive ? "> " : ">= ") + format_number(min) + reason;
  if (high) return "a number <= " + format_number(max) + reason;
  return "a finite number" + reason;
}
NumberRange positive() { return {0.0, std::numeric_limits<double>::infinity(), true}; }
NumberRange at_least(double min) { return {min, std::numeric_limits<double>::infinity(), false}; }
NumberRange between(double min, double max) { return {min, max, false}; }

DeckSection::DeckSection(YAML::Node node, std::string path, std::shared_ptr<const DeckSource> source,
                         YAML::Node resolved)
    : node_(std::move(node)), path_(std::move(path)), source_(std::move(source)), resolved_(std::move(resolved)) {
  folder_ = std::filesystem::path(source_->file).parent_path().string();
}

YAML::Node DeckSection::child(const std::string& key) const {
  read_.insert(key);
  const YAML::Node& map = node_;
  if (!map.IsDefined() || !map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return map[key];
}

bool DeckSection::has(const std::string& key) const {
  const YAML::Node& map = node_;
  return map.IsDefined() && map.IsMap() && map[key].IsDefined() && !map[key].IsNull();
}

std::string DeckSection::where(const std::string& key) const {
  if (const std::string* item = override_of(dotted(key))) return "--set " + excerpt(*item);
  const YAML::Node& map = node_;
  if (map.IsDefined() && map.IsMap() && map[key].IsDefined()) return mark_text(source_->file, map[key].Mark());
  if (map.IsDefined() && !map.IsNull()) return mark_text(source_->file, map.Mark());
  return source_->file;
}

void DeckSection::fail(const std::string& key, const std::string& expected, const std::string& got) const {
  std::string message = where(key) + ": " + dotted(key) + ": expected " + expected;
  if (!got.empty()) message += ", got " + got;
  throw DeckError(message);
}

double DeckSection::number(const std::string& key, std::optional<double> fallback, const NumberRange& range) {
  const YAML::Node value = child(key);
  double result = 0.0;
  if (!value.IsDefined() || value.IsNull()) {
    if (!fallback) fail(key, range.describe() + " (this key is required)");
    result = *fallback;
  } else if (!parse_number(value, range, result)) {
    fail(key, range.describe(), got_number(value));
  }
  resolved_[key] = format_number(result);
  return result;
}

std::string DeckSection::existing_file(const std::string& key) {
  const std::string file = path(key, std::nullopt);
  std::error_code error;
  const auto status = std::filesystem::status(file, error);
  if (!std::filesystem::exists(status)) fail(key, "an existing file", "'" + excerpt(file) + "'");
  // Only a regular file: a FIFO would block the run in open() for ever.
  if (!std::filesystem::is_regular_file(status))
    fail(key, "a regular file", "'" + excerpt(file) + "', " + file_kind_name(status.type()));
  return file;
}

std::int64_t DeckSection::integer(const std::string& key, std::optional<std::int64_t> fallback, std::int64_t min,
                                  std::int64_t max) {
  YAML::Node value = child(key);
  const std::string expected = max == std::numeric_limits<std::int64_t>::max()
                                   ? "an integer >= " + std::to_string(min)
                                   : "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  std::int64_t result;
  if (!value.IsDefined() || value.IsNull()) {
    if (!fallback) fail(key, expected + " (this key is required)");
    result = *fallback;
  } else {
    if (!value.IsScalar()) fail(key, expected, scalar_text(value));
    const std::optional<std::int64_t> number = parse_whole_integer(value.Scalar());
    if (!number) fail(key, expected, scalar_text(value) + integer_size_problem(value));
    result = *number;
  }
  if (result < min || result > max) fail(key, expected, std::to_string(result));
  resolved_[key] = result;
  return result;
}

bool DeckSection::boolean(const std::string& key, std::optional<bool> fallback) {
  YAML::Node value = child(key);
  bool result;
  if (!value.IsDefined() || value.IsNull()) {
    if (!fallback) fail(key, "true or false (this key is required)");
    result = *fallback;
  } else {
    const std::string text = value.IsScalar() ? value.Scalar() : "";
    if (text == "true") result = true;
    else if (text == "false") result = false;
    else fail(key, "true or false", scalar_text(value));
  }
  resolved_[key] = result;
  return result;
}

std::string DeckSection::text(const std::string& key, std::optional<std::string> fallback,
                              const std::vector<std::string>& choices) {
  YAML::Node value = child(key);
  std::string expected = "a string";
  if (!choices.empty()) {
    expected = "one of ";
    for (std::size_t k = 0; k < choices.size(); ++k) expected += (k ? ", " : "") + choices[k];
  }
  std::string result;
  if (!value.IsDefined() || value.IsNull()) {
    if (!fallback) fail(key, expected + " (this key is required)");
    result = *fallback;
  } else {
    if (!value.IsScalar()) fail(key, expected, scalar_text(value));
    result = value.Scalar();
  }
  if (!choices.empty() && std::find(choices.begin(), choices.end(), result) == choices.end())
    fail(key, expected, "'" + excerpt(result) + "'");
  resolved_[key] = result;
  return result;
}

std::string DeckSection::path(const std::string& key, std::optional<std::string> fallback) {
  std::string value = text(key, fallback);
  if (value.empty()) return value;
  std::filesystem::path p(value);
  // Overrides are relative to where the command runs; deck entries to the deck's folder. The
  // resolved deck records the absolute path, so that it repeats the run from anywhere.
  const bool from_command_line = override_of(dotted(key)) != nullptr;
  if (p.is_relative() && !from_command_line && !folder_.empty()) p = std::filesystem::path(folder_) / p;
  p = std::filesystem::absolute(p).lexically_normal();
  resolved_[key] = p.string();
  return p.string();
}

std::vector<double> DeckSection::number_list(const std::string& key, const NumberRange& range) {
  YAML::Node value = child(key);
  const std::string expected = "a non-empty list of " + range.describe() + "s";
  if (!value.IsDefined() || value.IsNull()) fail(key, expected + " (this key is required)");
  if (!value.IsSequence() || value.size() == 0) fail(key, expected, scalar_text(value));
  std::vector<double> result;
  YAML::Node resolved(YAML::NodeType::Sequence);
  for (std::size_t k = 0; k < value.size(); ++k) {
    const YAML::Node item = value[k];
    double parsed = 0.0;
    if (!parse_number(item, range, parsed)) {
      throw DeckError(place(dotted(key), item) + ": " + dotted(key) + "[" + std::to_string(k) + "]: expected " +
                      range.describe() + ", got " + got_number(item));
    }
    result.push_back(parsed);
    resolved.push_back(format_number(parsed));
  }
  resolved_[key] = resolved;
  return result;
}

std::vector<std::string> DeckSection::text_list(const std::string& key) {
  YAML::Node value = child(key);
  if (!value.IsDefined() || value.IsNull()) fail(key, "a non-empty list of names (this key is required)");
  if (!value.IsSequence() || value.size() == 0) fail(key, "a non-empty list of names", scalar_text(value));
  std::vector<std::string> result;
  for (std::size_t k = 0; k < value.size(); ++k) {
    if (!value[k].IsScalar())
      throw DeckError(place(dotted(key), value[k]) + ": " + dotted(key) + "[" + std::to_string(k) +
                      "]: expected a name, got " + scalar_text(value[k]));
    result.push_back(value[k].Scalar());
  }
  resolved_[key] = result;
  return result;
}

std::vector<DeckSection::NamedNumber> DeckSection::named_numbers(const std::string& key, const NumberRange& range) {
  YAML::Node value = child(key);
  if (!value.IsDefined() || value.IsNull()) fail(key, "a map of names to numbers (this key is required)");
  if (!value.IsMap() || value.size() == 0) fail(key, "a non-empty map of names to numbers", scalar_text(value));
  std::vector<NamedNumber> result;
  // Built with force_insert: operator[] searches the map, O(N^2) over a 40k-entry map (names are
  // unique, check_deck_tree saw to that).
  YAML::Node resolved_map(YAML::NodeType::Map);
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string name = excerpt(it->first.Scalar());
    const std::string location = place(dotted(key), it->second);
    double parsed = 0.0;
    if (!parse_number(it->second, range, parsed)) {
      throw DeckError(location + ": " + dotted(key) + "." + name + ": expected " + range.describe() + ", got " +
                      got_number(it->second));
    }
    result.push_back({it->first.Scalar(), parsed, location + ": " + dotted(key) + "." + name});
    resolved_map.force_insert(it->first.Scalar(), format_number(parsed));
  }
  resolved_[key] = resolved_map;
  return result;
}

DeckSection DeckSection::section(const std::string& key, bool required) {
  const YAML::Node value = child(key);
  YAML::Node resolved_child = resolved_[key];
  if (!value.IsDefined() || value.IsNull()) {
    if (required) fail(key, "a section (this key is required)");
    // An absent section still resolves its defaults.
    return DeckSection(YAML::Node(YAML::NodeType::Undefined), dotted(key), source_, resolved_child);
  }
  if (!value.IsMap()) fail(key, "a section (a map of keys)", scalar_text(value));
  return DeckSection(value, dotted(key), source_, resolved_child);
}

void DeckSection::finish() const {
  const YAML::Node& map = node_;
  if (!map.IsDefined() || !map.IsMap()) return;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (read_.count(key)) continue;
    std::string known;
    for (const auto& k : read_) known += (known.empty() ? "" : ", ") + k;
    // A look-alike letter (a Cyrillic 'о' in "cоmposition") is named, as in species names (issue 40).
    throw DeckError(place(dotted(key), it->first) + ": unknown key '" + excerpt(dotted(key)) + "'" +
                    non_ascii_note(dotted(key)) + ", expected one of: " + known);
  }
}

LoadedDeck load_deck_yaml(const std::string& file, const std::vector<std::string>& overrides) {
  // Only a regular file: a FIFO or device would block or never end.
  std::error_code error;
  if (std::filesystem::exists(file, error) && !std::filesystem::is_regular_file(file, error))
    throw DeckError("deck '" + file + "' is not a regular file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DeckError("cannot open deck '" + file + "'");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return load_deck_yaml_text(text, file, overrides);
}

LoadedDeck load_deck_yaml_text(const std::string& text, const std::string& file,
                               const std::vector<std::string>& overrides) {
  LoadedDeck deck;
  deck.source = std::make_shared<DeckSource>();
  deck.source->file = file;
  // yaml-cpp drops a NUL byte from a scalar without a word.
  if (const auto nul = text.find('\0'); nul != std::string::npos) {
    const auto line_start = text.rfind('\n', nul);
    const std::size_t column = nul - (line_start == std::string::npos ? 0 : line_start + 1);
    YAML::Mark mark;
    mark.line = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n'));
    mark.column = static_cast<int>(column);
    throw DeckError(mark_text(file, mark) + ": a NUL byte; a deck is text");
  }
  deck.root = load_yaml_text(text, file);
  if (!deck.root.IsDefined() || deck.root.IsNull()) deck.root = YAML::Node(YAML::NodeType::Map);
  if (!deck.root.IsMap()) throw DeckError(mark_text(file, deck.root.Mark()) + ": expected a map of sections at the top level");
  check_deck_tree(deck.root, file, "");
  for (const std::string& item : overrides) {
    const auto equals = item.find('=');
    if (equals == std::string::npos || equals == 0)
      throw DeckError("--set " + excerpt(item) + ": expected section.key=value");
    const std::string key = item.substr(0, equals);
    const std::string value = item.substr(equals + 1);
    std::vector<std::string> parts;
    // Every part, a trailing empty one included ("zones.=5" is no "zones=5").
    for (std::size_t start = 0;;) {
      const std::size_t dot = key.find('.', start);
      parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (parts.back().empty())
        throw DeckError("--set " + excerpt(item) + ": expected section.key=value, got an empty key part");
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    YAML::Node node = deck.root;
    for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
      YAML::Node next = node[parts[k]];
      if (!next.IsDefined() || next.IsNull()) {
        next = YAML::Node(YAML::NodeType::Map);
        node[parts[k]] = next;
      } else if (!next.IsMap()) {
        throw DeckError("--set " + excerpt(item) + ": '" + parts[k] + "' is not a section");
      }
      node.reset(next);
    }
    YAML::Node parsed = load_yaml_text(value, "--set " + excerpt(item) + ": the value");
    if (!parsed.IsDefined() || parsed.IsNull()) parsed = YAML::Node(value);  // "--set a.b=" is an empty string
    check_deck_tree(parsed, "--set " + excerpt(item), key);
    node[parts.back()] = parsed;
    deck.source->overrides[key] = item;
  }
  return deck;
}

std::string emit_yaml(const YAML::Node& node) {
  YAML::Emitter out;
  out << node;
  return std::string(out.c_str()) + "\n";
}

std::string yaml_string_literal(const std::string& value) {
  const bool plain_characters =
      !value.empty() && value.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-") ==
                            std::string::npos;
  if (plain_characters) {
    try {
      const YAML::Node read = YAML::Load(value);  // "null" and "~" read as nothing
      if (read.IsScalar() && read.Scalar() == value) return value;
    } catch (const YAML::Exception&) {
    }
  }
  YAML::Emitter out;
  out << YAML::DoubleQuoted << value;
  return out.c_str();
}

}  // namespace zoneode
