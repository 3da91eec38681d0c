#include "network/load.hpp"

#include <stdexcept>
#include <string>

#include "network/analytic.hpp"
#include "network/network_file.hpp"
#include "network/reaclib.hpp"

namespace zoneode {

std::string_view network_source_name(NetworkSource source) {
  switch (source) {  // no default: the compiler names a source left out
    case NetworkSource::generator: return "generator";
    case NetworkSource::reaclib: return "reaclib";
    case NetworkSource::file: return "file";
    case NetworkSource::decay_chain: return "decay_chain";
    case NetworkSource::reversible_pair: return "reversible_pair";
  }
  throw std::invalid_argument("network_source_name: " + std::to_string(static_cast<int>(source)) +
                              " is no NetworkSource");
}

Network load_network(const NetworkSpec& spec) {
  switch (spec.source) {  // no default: the compiler names a source left out
    case NetworkSource::generator:
      return generate_network(spec.generator);
    case NetworkSource::reaclib: {
      const auto keep = spec.nuclides.empty() ? read_nuclide_list(spec.nuclides_file) : spec.nuclides;
      Network network = read_reaclib(spec.file, keep);
      apply_q_values(network, spec.q_values, spec.file);
      return network;
    }
    case NetworkSource::file: {
      Network network = read_network_file(spec.file);
      apply_q_values(network, spec.q_values, spec.file);
      return network;
    }
    case NetworkSource::decay_chain:
      return decay_chain_network(spec.rates);
    case NetworkSource::reversible_pair:
      if (spec.rates.size() != 2) throw std::invalid_argument("reversible_pair network: expected two rates [forward, reverse]");
      return reversible_pair_network(spec.rates[0], spec.rates[1]);
  }
  throw std::invalid_argument("load_network: " + std::to_string(static_cast<int>(spec.source)) + " is no NetworkSource");
}

}  // namespace zoneode
