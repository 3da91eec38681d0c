// Reader for the JINA REACLIB 2 text format (chapter line, header line, two coefficient lines).
#pragma once

#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "network/network.hpp"
#include "network/nuclides.hpp"  // parse_nuclide_name

namespace zoneode {

// A list of nuclide names, one per line (blank lines and '#' comments ignored); errors name the
// file and line.
std::vector<std::string> read_nuclide_list(const std::string& path);

struct ReaclibSummary {
  int sets_read = 0;        // sets in the file
  int sets_kept = 0;        // sets whose nuclides are all kept
  int reactions_kept = 0;   // reactions (sets grouped) in the network
  int electron_captures = 0;              // kept reactions flagged electron_capture
  // Kept sets where the two markers of a capture disagree (reaclib_is_electron_capture()):
  int captures_without_weak_flag = 0;     // label ec/bec, no 'w' flag: still a capture
  int weak_sets_not_captures = 0;         // 'w' flag, another label (beta decays): not a capture
};

// Whether a set is an electron capture, as pynucastro decides it: by its label alone, "ec" or
// "bec" once trimmed (labels that merely contain "ec" are not). REACLIB tabulates these per unit
// rho*Ye. The weak flag ('w' in column 48) also marks beta decays, so it cannot decide.
bool reaclib_is_electron_capture(std::string_view label);

// Reads the REACLIB library and keeps the reactions whose nuclides are all in `keep`, in that
// order as the network's species (an empty list keeps every nuclide the file names, in order of
// appearance). Sets with the same chapter, nuclides, label and reverse flag are summed into one
// reaction. Malformed input throws std::runtime_error naming source and line.
Network parse_reaclib(std::istream& in, const std::string& source, const std::vector<std::string>& keep,
                      ReaclibSummary* summary = nullptr);
Network read_reaclib(const std::string& path, const std::vector<std::string>& keep,
                     ReaclibSummary* summary = nullptr);

}  // namespace zoneode
