// zoneode-validate: accuracy and cost of every method against a tight CVODE reference on sampled
// zones of a deck (validation/README.md). One thread, zones one after another, so the wall times
// compare methods on one core.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/numbers.hpp"
#include "cvode_zone.hpp"
#include "deck/deck.hpp"
#include "integrators/asymptotic.hpp"
#include "integrators/bdf.hpp"
#include "integrators/implicit.hpp"
#include "integrators/implicit_structure.hpp"
#include "integrators/qss2.hpp"
#include "network/compact.hpp"
#include "network/load.hpp"
#include "zones/zones.hpp"

namespace zoneode::validation {
namespace {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string deck;
  std::vector<std::string> overrides;
  int zones = 4;
  double reference_rtol = 1e-12, reference_atol = 1e-25;
  double atol = 1e-16;         // [mol/g] of every error-controlled run
  double significant = 1e-8;   // mass fraction above which a species' error counts
  std::vector<double> geometric_fractions = {1e-2, 1e-3, 1e-4};
  std::vector<double> asymptotic_rtols = {1e-3, 1e-4, 1e-5};
  std::vector<double> implicit_rtols = {1e-4, 1e-6, 1e-8};
  std::vector<double> bdf_rtols = {1e-4, 1e-6, 1e-8};
  std::vector<double> qss2_fractions = {};
  std::vector<double> qss2_rtols = {1e-4, 1e-6};
  std::vector<std::pair<double, double>> checks;       // implicit at rtol: max relative error <= bound
  std::vector<std::pair<double, double>> qss2_checks;  // qss2 at rtol, likewise
  std::string label;
};

const char* usage =
    "usage: zoneode-validate DECK [--set section.key=value]... [--zones N] [--atol A] [--significant X]\n"
    "                        [--reference-rtol R] [--reference-atol A] [--geometric F,F,..] [--asymptotic R,R,..]\n"
    "                        [--implicit R,R,..] [--check-implicit RTOL=BOUND]... [--qss2 R,R,..]\n"
    "                        [--qss2-geometric F,F,..] [--check-qss2 RTOL=BOUND]... [--bdf R,R,..] [--label TEXT]\n"
    "Integrates N zones spread over the deck's zones (first outer step) with CVODE (BDF) at the\n"
    "reference tolerance, then with each method and setting, and prints a markdown table: zones ok,\n"
    "max relative error over species with mass fraction >= X, energy rate error, work per zone.\n"
    "CVODE runs at the implicit rtols as well. --check-implicit exits 1 unless the implicit method\n"
    "at RTOL is within BOUND for every zone; --check-qss2 the same for the qss2 method. Exit status:\n"
    "0 ok, 1 a check failed, 2 bad input.\n";

double number(const std::string& text, const std::string& what) {
  const std::optional<double> value = parse_whole_number(text);
  if (!value || !(*value > 0.0)) throw UsageError(what + ": '" + text + "' is not a number > 0");
  return *value;
}

std::vector<double> number_list(const std::string& text, const std::string& what) {
  std::vector<double> values;
  if (text == "none") return values;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) values.push_back(number(item, what));
  return values;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--set") o.overrides.push_back(value());
    else if (a == "--zones") {
      const auto n = parse_whole_integer(value());
      if (!n || *n < 1 || *n > 100000) throw UsageError("--zones: expected an integer in 1..100000");
      o.zones = static_cast<int>(*n);
    } else if (a == "--atol") o.atol = number(value(), a);
    else if (a == "--significant") o.significant = number(value(), a);
    else if (a == "--reference-rtol") o.reference_rtol = number(value(), a);
    else if (a == "--reference-atol") o.reference_atol = number(value(), a);
    else if (a == "--geometric") o.geometric_fractions = number_list(value(), a);
    else if (a == "--asymptotic") o.asymptotic_rtols = number_list(value(), a);
    else if (a == "--implicit") o.implicit_rtols = number_list(value(), a);
    else if (a == "--qss2") o.qss2_rtols = number_list(value(), a);
    else if (a == "--bdf") o.bdf_rtols = number_list(value(), a);
    else if (a == "--qss2-geometric") o.qss2_fractions = number_list(value(), a);
    else if (a == "--label") o.label = value();
    else if (a == "--check-implicit" || a == "--check-qss2") {
      const std::string v = value();
      const auto equals = v.find('=');
      if (equals == std::string::npos) throw UsageError(a + ": expected RTOL=BOUND, got '" + v + "'");
      (a == "--check-qss2" ? o.qss2_checks : o.checks)
          .push_back({number(v.substr(0, equals), a), number(v.substr(equals + 1), a)});
    } else if (a == "--help" || a == "-h") {
      std::cout << usage;
      std::exit(0);
    } else if (!a.empty() && a[0] == '-') throw UsageError("unknown option " + a);
    else if (o.deck.empty()) o.deck = a;
    else throw UsageError("more than one deck: '" + o.deck + "' and '" + a + "'");
  }
  if (o.deck.empty()) throw UsageError("no deck given");
  return o;
}

struct Zone {
  double T9, rho;
  std::vector<double> Y0, reference;
  double reference_energy = 0.0;
};

struct Row {
  std::string name;
  IntegrationMethod method = IntegrationMethod::asymptotic;
  double rtol = 0.0;  // error-controlled runs of the implicit and qss2 methods: for the checks
  int ok = 0, zones = 0;
  double max_error = 0.0, energy_error = 0.0, seconds = 0.0;
  double steps = 0, rejected = 0, rhs = 0, jacobians = 0, factorizations = 0;
  std::string worst;  // species of the max error
};

// One zone's outcome of a method, for the accounting of a row.
struct Outcome {
  bool ok = false;
  std::vector<double> Y;
  double energy = 0.0;
  double steps = 0, rejected = 0, rhs = 0, jacobians = 0, factorizations = 0;
};

std::string format_short(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g", v);
  return text;
}

int run(const Options& o) {
  const Deck deck = load_deck(o.deck, o.overrides);
  if (!deck.zones.from_file.empty()) throw UsageError(o.deck + ": zones.from_file is not supported here");
  const Network network = load_network(deck.network);
  // The deck's physics options, for every method and CVODE alike (this tool ignored them before
  // 2026-12-06: its tables were of the bare network whatever the deck said). Self-heating is not:
  // CVODE's state here has no T.
  if (deck.physics.self_heating)
    throw UsageError(o.deck + ": physics.self_heating is not supported here (the CVODE reference integrates at fixed "
                              "T9); tests/test_self_heating_energy.cpp checks self-heated burns");
  const CompactNetwork compact(network, deck.physics);
  const ImplicitStructure structure(compact);
  const ZoneBuilder builder(deck.zones, network);
  const int n = network.species_count();
  const IntegratorSettings base = deck.integrator;
  const double t0 = base.start_time, t1 = base.end_time;

  std::vector<Zone> zones;
  const std::int64_t count = builder.count();
  // Zones spread over the temperature (then density) range, as the run's self-check picks them.
  std::vector<double> temperature(count), density(count);
  for (std::int64_t i = 0; i < count; ++i) {
    temperature[i] = builder.temperature(i);
    density[i] = builder.density(i);
  }
  for (const std::int64_t index : spread_zones(temperature, density, o.zones)) {
    Zone z{builder.temperature(index), builder.density(index), builder.abundances(), {}, 0.0};
    z.reference = z.Y0;
    const CvodeResult r =
        cvode_integrate_zone(compact, structure, z.T9, z.rho, t0, t1, o.reference_rtol, o.reference_atol, z.reference);
    if (!r.ok) throw std::runtime_error("the CVODE reference failed for zone " + std::to_string(index));
    z.reference_energy = r.energy_generation_rate;
    zones.push_back(std::move(z));
  }
  // The reference's own uncertainty: CVODE at 10x the reference rtol against it.
  double reference_spread = 0.0;

  // Max relative error over significant species; worst names the species (for the table).
  auto error_of = [&](const Zone& z, const std::vector<double>& Y, int* worst_species = nullptr) {
    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
      if (network.species[i].A * z.reference[i] < o.significant) continue;
      const double error = std::fabs(Y[i] - z.reference[i]) / z.reference[i];
      if (!(error <= worst)) {
        worst = std::isfinite(error) ? error : INFINITY;
        if (worst_species) *worst_species = i;
      }
    }
    return worst;
  };
  std::vector<Row> rows;
  auto measure = [&](const std::string& name, double rtol, const std::function<Outcome(const Zone&)>& method,
                     IntegrationMethod kind = IntegrationMethod::asymptotic) {
    Row row;
    row.name = name;
    row.method = kind;
    row.rtol = rtol;
    row.zones = static_cast<int>(zones.size());
    for (const Zone& z : zones) {
      // Wall time: the fastest of up to 3 runs (the machine may be shared), repeated while cheap.
      double fastest = INFINITY, spent = 0.0;
      Outcome out;
      for (int repeat = 0; repeat < 3 && spent < 0.5; ++repeat) {
        const auto start = std::chrono::steady_clock::now();
        out = method(z);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        fastest = std::fmin(fastest, seconds);
        spent += seconds;
      }
      row.seconds += fastest;
      row.steps += out.steps;
      row.rejected += out.rejected;
      row.rhs += out.rhs;
      row.jacobians += out.jacobians;
      row.factorizations += out.factorizations;
      if (!out.ok) continue;
      ++row.ok;
      int species = -1;
      const double error = error_of(z, out.Y, &species);
      if (!(error <= row.max_error) || row.worst.empty()) {
        row.max_error = error;
        if (species >= 0) row.worst = network.species[species].name;
      }
      const double e = std::fabs(out.energy - z.reference_energy) / std::fabs(z.reference_energy);
      row.energy_error = std::fmax(row.energy_error, std::isfinite(e) ? e : INFINITY);
    }
    rows.push_back(row);
    std::cerr << "  " << name << " done\n";
  };

  const MethodNetwork method_network{compact.rate_view(), compact.step_view(), structure.view()};
  std::vector<double> asymptotic_workspace(asymptotic::workspace_doubles(method_network));
  auto asymptotic = [&](IntegratorSettings s) {
    return [&, s](const Zone& z) {
      std::vector<double> Y = z.Y0;
      ZoneResult r;
      asymptotic::integrate_zone(method_network, s, z.T9, z.rho, Y.data(), asymptotic_workspace.data(), r);
      const double attempts = static_cast<double>(r.steps + r.rejected_steps);
      return Outcome{r.status == zone_ok, Y, r.energy_generation_rate, double(r.steps), double(r.rejected_steps),
                     s.schedule == StepSchedule::geometric ? attempts : 2 * attempts, 0, 0};
    };
  };
  std::vector<double> implicit_workspace(implicit::workspace_doubles(method_network));
  auto implicit = [&](IntegratorSettings s) {
    return [&, s](const Zone& z) {
      std::vector<double> Y = z.Y0;
      ZoneResult r;
      implicit::integrate_zone(method_network, s, z.T9, z.rho, Y.data(), implicit_workspace.data(), r);
      return Outcome{r.status == zone_ok, Y, r.energy_generation_rate, double(r.steps), double(r.rejected_steps),
                     double(r.rhs_evaluations), double(r.jacobian_evaluations), double(r.factorizations)};
    };
  };
  std::vector<double> bdf_workspace(bdf::workspace_doubles(method_network));
  auto bdf = [&](IntegratorSettings s) {
    return [&, s](const Zone& z) {
      std::vector<double> Y = z.Y0;
      ZoneResult r;
      bdf::integrate_zone(method_network, s, z.T9, z.rho, Y.data(), bdf_workspace.data(), r);
      return Outcome{r.status == zone_ok, Y, r.energy_generation_rate, double(r.steps), double(r.rejected_steps),
                     double(r.rhs_evaluations), double(r.jacobian_evaluations), double(r.factorizations)};
    };
  };
  std::vector<double> qss2_workspace(qss2::workspace_doubles(method_network));
  auto qss2 = [&](IntegratorSettings s) {
    return [&, s](const Zone& z) {
      std::vector<double> Y = z.Y0;
      ZoneResult r;
      qss2::integrate_zone(method_network, s, z.T9, z.rho, Y.data(), qss2_workspace.data(), r);
      return Outcome{r.status == zone_ok, Y, r.energy_generation_rate, double(r.steps), double(r.rejected_steps),
                     double(r.rhs_evaluations), 0, 0};
    };
  };
  auto cvode = [&](double rtol, double atol) {
    return [&, rtol, atol](const Zone& z) {
      std::vector<double> Y = z.Y0;
      const CvodeResult r = cvode_integrate_zone(compact, structure, z.T9, z.rho, t0, t1, rtol, atol, Y);
      return Outcome{r.ok, Y, r.energy_generation_rate, double(r.steps), double(r.error_test_failures),
                     double(r.rhs_evaluations), double(r.jacobian_evaluations), double(r.factorizations)};
    };
  };

  {
    const auto check = cvode(10 * o.reference_rtol, o.reference_atol);
    for (const Zone& z : zones) {
      const Outcome out = check(z);
      reference_spread = std::fmax(reference_spread, out.ok ? error_of(z, out.Y) : INFINITY);
    }
  }
  for (double f : o.geometric_fractions) {
    IntegratorSettings s = base;
    s.method = IntegrationMethod::asymptotic;
    s.schedule = StepSchedule::geometric;
    s.dt_fraction = f;
    measure("asymptotic geometric dt " + format_short(f) + " t", 0.0, asymptotic(s));
  }
  for (double rtol : o.asymptotic_rtols) {
    IntegratorSettings s = base;
    s.method = IntegrationMethod::asymptotic;
    s.schedule = StepSchedule::adaptive;
    s.rtol = rtol;
    s.atol = o.atol;
    measure("asymptotic adaptive rtol " + format_short(rtol), 0.0, asymptotic(s));
  }
  for (double rtol : o.implicit_rtols) {
    IntegratorSettings s = base;
    s.method = IntegrationMethod::implicit;
    s.schedule = StepSchedule::adaptive;
    s.rtol = rtol;
    s.atol = o.atol;
    measure("implicit rtol " + format_short(rtol), rtol, implicit(s), IntegrationMethod::implicit);
  }
  for (double rtol : o.bdf_rtols) {
    IntegratorSettings s = base;
    s.method = IntegrationMethod::bdf;
    s.schedule = StepSchedule::adaptive;
    s.rtol = rtol;
    s.atol = o.atol;
    measure("bdf rtol " + format_short(rtol), rtol, bdf(s), IntegrationMethod::bdf);
  }
  for (double f : o.qss2_fractions) {
    IntegratorSettings s = base;
    s.method = IntegrationMethod::qss2;
    s.schedule = StepSchedule::geometric;
    s.dt_fraction = f;
    measure("qss2 geometric dt " + format_short(f) + " t", 0.0, qss2(s));
  }
  for (double rtol : o.qss2_rtols) {
    IntegratorSettings s = base;
    s.method = IntegrationMethod::qss2;
    s.schedule = StepSchedule::adaptive;
    s.rtol = rtol;
    s.atol = o.atol;
    measure("qss2 adaptive rtol " + format_short(rtol), rtol, qss2(s), IntegrationMethod::qss2);
  }
  for (double rtol : o.implicit_rtols) measure("cvode rtol " + format_short(rtol), 0.0, cvode(rtol, o.atol));

  std::cout << "### " << (o.label.empty() ? o.deck : o.label) << "\n\n"
            << network.species_count() << " species, " << network.reaction_count() << " reactions; " << zones.size()
            << " zones, T9 " << format_short(zones.front().T9) << ".." << format_short(zones.back().T9) << ", rho "
            << format_short(zones.front().rho) << ".." << format_short(zones.back().rho) << ", " << format_short(t0)
            << " to " << format_short(t1) << " s; atol " << format_short(o.atol) << " mol/g; errors over X >= "
            << format_short(o.significant) << " against CVODE rtol " << format_short(o.reference_rtol)
            << " (CVODE at " << format_short(10 * o.reference_rtol) << " differs from it by "
            << format_short(reference_spread) << "). Implicit: " << structure.matrix_entries()
            << " matrix entries, " << structure.filled_entries() << " after fill-in, "
            << structure.factor_updates() << " updates per LU, " << structure.workspace_doubles()
            << " workspace doubles per zone. Physics: screening " << screening_kind_name(deck.physics.screening)
            << ", partition functions " << (deck.physics.partition_functions ? "on" : "off") << ", neutrino losses "
            << (deck.physics.neutrino_losses ? "on" : "off") << ".\n\n"
            << "| method | zones ok | max rel. error (species) | energy rate error | steps | rejected | RHS | Jacobians | LU | ms |\n"
            << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    const double per = 1.0 / r.zones;
    auto cell = [](double v) {
      char text[32];
      std::snprintf(text, sizeof text, v >= 1e5 ? "%.3g" : "%.0f", v);
      return std::string(text);
    };
    std::cout << "| " << r.name << " | " << r.ok << "/" << r.zones << " | "
              << (r.ok ? format_short(r.max_error) + " (" + r.worst + ")" : "-") << " | " << (r.ok ? format_short(r.energy_error) : "-")
              << " | " << cell(r.steps * per) << " | " << cell(r.rejected * per) << " | " << cell(r.rhs * per) << " | "
              << cell(r.jacobians * per) << " | " << cell(r.factorizations * per) << " | "
              << format_short(1e3 * r.seconds * per) << " |\n";
  }
  std::cout << "\n(work columns and ms are per zone, one thread; ms: the fastest of up to 3 runs)\n\n";
  int status = 0;
  auto check = [&](IntegrationMethod method, const std::vector<std::pair<double, double>>& checks) {
    const std::string name(integration_method_name(method));
    for (const auto& [rtol, bound] : checks) {
      bool found = false;
      for (const Row& r : rows) {
        if (r.method != method || r.rtol != rtol) continue;
        found = true;
        const bool pass = r.ok == r.zones && r.max_error <= bound;
        std::cout << "check: " << name << " rtol " << format_short(rtol) << ": " << r.ok << "/" << r.zones
                  << " zones ok, max relative error " << format_short(r.max_error) << " (bound "
                  << format_short(bound) << "): " << (pass ? "pass" : "FAIL") << "\n";
        if (!pass) status = 1;
      }
      if (!found)
        throw UsageError("--check-" + name + ": rtol " + format_short(rtol) + " is not among --" + name);
    }
  };
  check(IntegrationMethod::implicit, o.checks);
  check(IntegrationMethod::qss2, o.qss2_checks);
  return status;
}

}  // namespace
}  // namespace zoneode::validation

int main(int argc, char** argv) {
  using namespace zoneode::validation;
  try {
    return run(parse(argc, argv));
  } catch (const UsageError& error) {
    std::cerr << "zoneode-validate: " << error.what() << "\n" << usage;
    return 2;
  } catch (const zoneode::InputError& error) {
    std::cerr << "zoneode-validate: " << error.what() << "\n";
    return 2;
  } catch (const std::exception& error) {
    std::cerr << "zoneode-validate: " << error.what() << "\n";
    return 1;
  }
}
