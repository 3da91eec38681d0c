// Builds a network from whichever source a NetworkSpec names. The deck fills the spec; the network
// layer knows nothing of decks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "network/generator.hpp"
#include "network/network.hpp"
#include "network/q_values.hpp"

namespace zoneode {

enum class NetworkSource { generator, reaclib, file, decay_chain, reversible_pair };
inline constexpr NetworkSource network_sources[] = {NetworkSource::generator, NetworkSource::reaclib,
                                                    NetworkSource::file, NetworkSource::decay_chain,
                                                    NetworkSource::reversible_pair};
std::string_view network_source_name(NetworkSource source);  // its deck spelling: "decay_chain"

struct NetworkSpec {
  NetworkSource source = NetworkSource::generator;
  std::string preset;                   // generator
  GeneratorSettings generator;          // generator
  std::string file;                     // reaclib library or zoneode network file
  std::vector<std::string> nuclides;    // reaclib: names to keep (or from nuclides_file)
  std::string nuclides_file;            // reaclib
  QValueSource q_values = QValueSource::masses;  // reaclib, file: Q from masses or as the source gives it
  std::vector<double> rates;            // decay_chain: decay rates [1/s]; reversible_pair: {forward, reverse}
};

Network load_network(const NetworkSpec& spec);

}  // namespace zoneode
