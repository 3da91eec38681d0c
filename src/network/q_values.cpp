#include "network/q_values.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "common/errors.hpp"
#include "common/numbers.hpp"
#include "physics/partition_table.hpp"

namespace zoneode {

namespace {
constexpr double keV_per_MeV = 1000.0;

[[noreturn]] void fail(const std::string& path, int line, const std::string& what) {
  throw InputError(path + ":" + std::to_string(line) + ": " + what);
}
}  // namespace

std::string_view q_value_source_name(QValueSource source) {
  switch (source) {  // no default: the compiler names a source left out
    case QValueSource::masses: return "masses";
    case QValueSource::header: return "header";
  }
  throw std::invalid_argument("q_value_source_name: " + std::to_string(static_cast<int>(source)) + " is no QValueSource");
}

const double* MassTable::find(int Z, int A) const {
  const auto it = excess_MeV.find({Z, A});
  return it == excess_MeV.end() ? nullptr : &it->second;
}

// Found as the partition table is ($ZONEODE_DATA_DIR, beside the program, the source tree, the
// install prefix): an installed zoneode read it from the source tree only (issue 40's class).
std::string default_mass_table_path() { return shipped_data_file("/masses/nubase2020_masses.txt"); }

MassTable read_mass_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot open '" + path + "', expected a readable mass table (Z A mass_excess_keV estimated)");
  skip_byte_order_mark(in);
  MassTable table;
  table.source = path;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (const auto hash = text.find('#'); hash != std::string::npos) text.resize(hash);
    std::istringstream stream(text);
    std::vector<std::string> fields;
    for (std::string field; stream >> field;) fields.push_back(field);
    if (fields.empty()) continue;
    if (fields.size() != 4)
      fail(path, line, std::to_string(fields.size()) + " fields, expected 4 (Z A mass_excess_keV estimated)");
    const std::optional<std::int64_t> Z = parse_whole_integer(fields[0]);
    const std::optional<std::int64_t> A = parse_whole_integer(fields[1]);
    if (!Z || !A || *Z < 0 || *A < 1 || *Z > *A)
      fail(path, line, "Z A '" + excerpt(fields[0] + " " + fields[1]) + "' is no nuclide, expected integers Z >= 0 and A >= max(Z, 1)");
    const std::optional<double> keV = parse_whole_number(fields[2]);
    if (!keV) fail(path, line, "mass excess '" + excerpt(fields[2]) + "' is not a number, expected a finite number of keV");
    if (fields[3] != "0" && fields[3] != "1") fail(path, line, "estimated flag '" + excerpt(fields[3]) + "', expected 0 or 1");
    const std::pair<int, int> key{static_cast<int>(*Z), static_cast<int>(*A)};
    if (!table.excess_MeV.emplace(key, *keV / keV_per_MeV).second)
      fail(path, line, "Z " + fields[0] + " A " + fields[1] + " listed twice, expected each nuclide once");
    table.estimated[key] = fields[3] == "1";
  }
  if (in.bad()) throw InputError(path + ": read error");
  if (table.excess_MeV.empty()) throw InputError(path + ": no nuclides, expected lines 'Z A mass_excess_keV estimated'");
  return table;
}

double mass_q_value(const Network& network, const Reaction& reaction) {
  double in = 0.0, out = 0.0;
  for (int i : reaction.reactants) in += network.species[i].mass_excess_MeV;
  for (int i : reaction.products) out += network.species[i].mass_excess_MeV;
  return in - out;
}

void fill_missing_masses(Network& network, const MassTable& table, const std::string& where) {
  std::vector<std::string> missing;
  for (Species& species : network.species) {
    if (std::isfinite(species.mass_excess_MeV)) continue;
    if (const double* excess = table.find(species.Z, species.A)) species.mass_excess_MeV = *excess;
    else missing.push_back(species.name);
  }
  if (!missing.empty())
    throw InputError(where + ": network.q_values: masses needs every nuclide's mass; the mass table '" + table.source +
                     "' has none for " + std::to_string(missing.size()) + " nuclide(s): " + comma_list(missing) +
                     "; expected them there (or give their mass excesses in a network file, or set network.q_values: "
                     "header to take the library's Q values)");
}

void apply_q_values(Network& network, QValueSource source, const std::string& where) {
  if (source == QValueSource::header) return;
  bool complete = true;
  for (const Species& species : network.species) complete = complete && std::isfinite(species.mass_excess_MeV);
  if (!complete) fill_missing_masses(network, read_mass_table(default_mass_table_path()), where);
  for (Reaction& reaction : network.reactions) reaction.Q_MeV = mass_q_value(network, reaction);
}

std::vector<QValueDisagreement> q_value_disagreements(const Network& header_network) {
  std::vector<QValueDisagreement> rows;
  for (int r = 0; r < header_network.reaction_count(); ++r) {
    const Reaction& reaction = header_network.reactions[r];
    rows.push_back({r, reaction.Q_MeV, mass_q_value(header_network, reaction)});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const QValueDisagreement& a, const QValueDisagreement& b) {
    return std::fabs(a.difference_MeV()) > std::fabs(b.difference_MeV());
  });
  return rows;
}

}  // namespace zoneode
