// zoneode-step-phases: where one CPU core spends an asymptotic zone-step, phase by phase, and which
// update each species takes (inputs/bench/README.md, "Why s150 cost less than the study's network").
//
//   zoneode-step-phases DECK T9 RHO NAME=X [NAME=X ...] [--set KEY=VALUE ...]
//
// One zone at T9 [GK] and rho [g/cm^3] from the mass fractions given (the names must be the
// network's), on the deck's network and integrator settings (method asymptotic, geometric schedule).
// It runs the serial reference's steps (src/integrators/asymptotic.hpp: the same pieces in the same
// order, so the same steps and the same final state as `zoneode --backend cpu`) with a clock around
// each phase: fluxes (every reaction's flux), energy (sum flux x Q), update (every species' F+/F-
// sums and asymptotic update), checks (finite, mass sum, StepControl). Every 16th step it also
// counts, outside the clocks, the species that take the stiff (asymptotic) branch F- dt > Y and
// those at the abundance floor. Prints ns per step by phase and the branch mix by decade of time,
// and what GPU `final` would lay out for the network at its default 128 threads (sm_90): its term
// chunks, their modelled bank conflicts and the shared memory a block of zone arrays takes
// (kernels/asymptotic/kernel_common.hpp place_arrays, term_chunks.cpp; host code, no GPU needed).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "deck/deck.hpp"
#include "integrators/asymptotic.hpp"
#include "network/compact.hpp"
#include "network/load.hpp"
#include "runtime/kernel_launch.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

int usage(const char* what) {
  std::fprintf(stderr, "zoneode-step-phases: %s\nusage: zoneode-step-phases DECK T9 RHO NAME=X [NAME=X ...] [--set KEY=VALUE ...]\n",
               what);
  return 2;
}

struct DecadeCounts {
  long long samples = 0, species = 0, stiff = 0, floored = 0;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace zoneode;
  if (argc < 5) return usage("expected a deck, T9, rho and at least one NAME=X");
  std::vector<std::string> overrides;
  std::vector<std::pair<std::string, double>> fractions;
  for (int k = 4; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--set") {
      if (k + 1 >= argc) return usage("--set needs KEY=VALUE");
      overrides.push_back(argv[++k]);
    } else if (const auto eq = a.find('='); eq != std::string::npos) {
      fractions.emplace_back(a.substr(0, eq), std::atof(a.c_str() + eq + 1));
    } else {
      return usage(("unexpected argument '" + a + "'").c_str());
    }
  }
  try {
    const Deck deck = load_deck(argv[1], overrides);
    const double T9 = std::atof(argv[2]), rho = std::atof(argv[3]);
    if (deck.integrator.method != IntegrationMethod::asymptotic || deck.integrator.schedule != StepSchedule::geometric)
      return usage("the deck's integrator must be the asymptotic method on the geometric schedule");
    const Network network = load_network(deck.network);
    const CompactNetwork compact(network, deck.physics);
    const RateView rates = compact.rate_view();
    const StepView net = compact.step_view();
    if (net.screening != 0 || net.self_heating != 0) return usage("physics options (screening, self-heating) are not profiled");
    const int S = net.species_count, R = net.reaction_count;
    std::vector<double> Y(S, 0.0), rate_factor(R), flux(R), proposed(S);
    for (const auto& [name, x] : fractions) {
      const int i = network.find_species(name);
      if (i < 0) return usage(("no species '" + name + "' in the network").c_str());
      Y[i] = x / network.species[i].A;
    }
    const IntegratorSettings& settings = deck.integrator;
    const double floor = settings.abundance_floor;
    StepControl control(settings, mass_fraction_sum(net, Y.data()), true);
    zone_rate_factors(rates, T9, rho, rate_factor.data());
    Clock::duration t_flux{}, t_energy{}, t_update{}, t_checks{};
    std::map<int, DecadeCounts> decades;
    long long steps = 0;
    double t = settings.start_time;
    const Clock::time_point wall0 = Clock::now();
    const std::clock_t cpu0 = std::clock();
    while (control.begin_attempt()) {
      const double step = control.step();
      AttemptReductions reductions;
      const auto c0 = Clock::now();
      zone_fluxes(net, rate_factor.data(), Y.data(), flux.data());
      const auto c1 = Clock::now();
      reductions.release_rate_start = energy_release_rate(net, flux.data());
      const auto c2 = Clock::now();
      apply_update(net, flux.data(), Y.data(), proposed.data(), step, floor);
      const auto c3 = Clock::now();
      reductions.finite = all_finite(S, proposed.data());
      reductions.mass = mass_fraction_sum(net, proposed.data());
      if (control.end_attempt(reductions) == StepVerdict::accepted) {
        const double scale = control.scale();
        if (steps % 16 == 0) {  // outside the clocks: the branch each species took on this step
          DecadeCounts& d = decades[static_cast<int>(std::floor(std::log10(t)))];
          ++d.samples;
          for (int i = 0; i < S; ++i) {
            ++d.species;
            if (destruction_sum(net, i, flux.data()) * step > Y[i]) ++d.stiff;
            if (Y[i] <= floor) ++d.floored;
          }
        }
        for (int i = 0; i < S; ++i) Y[i] = proposed[i] * scale;
        t += step;
        ++steps;
      }
      const auto c4 = Clock::now();
      t_flux += c1 - c0, t_energy += c2 - c1, t_update += c3 - c2, t_checks += c4 - c3;
    }
    const double wall = seconds(Clock::now() - wall0);
    // On a shared machine the phases' clocks also count time the process was not running; they are
    // scaled by the process's CPU time over its wall time (preemption assumed spread over the phases).
    const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
    const double to_cpu = wall > 0.0 ? cpu / wall : 1.0;
    const ZoneResult result = control.finish(mass_fraction_sum(net, Y.data()));
    const double per = 1e9 / static_cast<double>(steps > 0 ? steps : 1) * to_cpu;
    const double timed = seconds(t_flux + t_energy + t_update + t_checks);
    std::printf("network %s: %d species, %d reactions, %lld flux terms; T9 %g, rho %g\n", network.name.c_str(), S, R,
                static_cast<long long>(compact.flux_terms()), T9, rho);
    std::printf("steps %lld to t = %.3e s, status %s; %.3f s wall, %.3f s CPU (%.0f CPU ns per step, %.0f in the clocked phases)\n",
                steps, result.time_reached, zone_status_name(static_cast<int>(result.status)), wall, cpu, wall * per, timed * per);
    std::printf("CPU ns per step: fluxes %.0f (%.2f per reaction), energy %.0f, update %.0f (%.2f per term), checks %.0f\n",
                seconds(t_flux) * per, seconds(t_flux) * per / R, seconds(t_energy) * per, seconds(t_update) * per,
                seconds(t_update) * per / static_cast<double>(compact.flux_terms()), seconds(t_checks) * per);
    std::printf("branch mix (every 16th step): decade of t, species-steps sampled, stiff F- dt > Y, at the floor\n");
    DecadeCounts all;
    for (const auto& [decade, d] : decades) {
      std::printf("  1e%-4d %9lld  %6.1f%%  %6.1f%%\n", decade, d.species, 100.0 * d.stiff / d.species,
                  100.0 * d.floored / d.species);
      all.species += d.species, all.stiff += d.stiff, all.floored += d.floored;
    }
    std::printf("  all    %9lld  %6.1f%%  %6.1f%%  (stiff species per step: %.1f of %d)\n", all.species,
                100.0 * all.stiff / all.species, 100.0 * all.floored / all.species,
                static_cast<double>(all.stiff) / all.species * S, S);
    // final's layout at 128 threads: chunks of ceil(terms / 256) unit terms, zone arrays in LDS
    // (3 padded state arrays, rate factors, fluxes, chunk sums), plus the team's static scratch
    // (2 x 6 slots x 4 waves) and the zone slot; sm_90 reserves 1 KiB of shared memory per block.
    const int chunk_terms = static_cast<int>((compact.flux_terms() + 255) / 256);
    const gpu::TermChunks chunks = gpu::make_term_chunks(net, chunk_terms, true);
    const std::int64_t zone_bytes = 8 * gpu::zone_array_doubles(S, R, chunks.chunks(), 1);
    const std::int64_t block_bytes = zone_bytes + 2 * 6 * 4 * 8 + 8 + 1024;
    std::printf("final at 128 threads: %d chunks of <= %d terms (longest species %d chunks), %lld modelled bank conflicts; "
                "zone arrays %lld B, %lld B a block with scratch and the 1 KiB reserve: 6 blocks %.1f KiB of shared memory "
                "(sm_90 carve-outs 164, 196, 228 KiB; the rest of 256 KiB is L1, against a %.1f KiB step block)\n",
                chunks.chunks(), chunk_terms, [&] {
                  int most = 0;
                  for (int i = 0; i < S; ++i)
                    most = std::max(most, chunks.creation_chunks[i + 1] - chunks.creation_chunks[i] +
                                              chunks.destruction_chunks[i + 1] - chunks.destruction_chunks[i]);
                  return most;
                }(),
                static_cast<long long>(gpu::term_bank_conflicts(chunks)), static_cast<long long>(zone_bytes),
                static_cast<long long>(block_bytes), 6.0 * block_bytes / 1024.0, compact.step_block_bytes() / 1024.0);
    double y_sum = 0.0;
    for (int i = 0; i < S; ++i) y_sum += Y[i];
    std::printf("final sum Y %.17g\n", y_sum);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zoneode-step-phases: %s\n", e.what());
    return 2;
  }
}
