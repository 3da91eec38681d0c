// The zoneode network file: a documented text format that reads back bit-exact.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "network/network.hpp"

namespace zoneode {

void write_network_file(const Network& network, std::ostream& out);
void write_network_file(const Network& network, const std::string& path);
// Malformed input throws std::runtime_error naming source and line.
Network parse_network_file(std::istream& in, const std::string& source);
Network read_network_file(const std::string& path);

}  // namespace zoneode
