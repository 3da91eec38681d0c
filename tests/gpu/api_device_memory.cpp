// The C API's device arrays on a GPU (issue 41): zoneode_burn with ZONEODE_DEVICE_MEMORY gives
// bitwise what the same burner gives with host arrays (abundances, T9, every result field), on the
// asymptotic method over several batches (run.batch_zones) and on the implicit method with
// self-heating (T9 out); a host pointer passed as device memory and a CPU burner are refused with
// their codes. Given the program too, the same zones burned by `zoneode --backend gpu` and through the
// API's device arrays give the same result hash (the program's summary's result_hash, computed here
// from the API's output). Exit 0 passed, 1 failed, 77 no GPU (skipped).
// Usage: zoneode-api-device-check SOURCE_DIR [ZONEODE_PROGRAM]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#if defined(ZONEODE_CHECK_CUDA)
#include <cuda_runtime_api.h>
#define deviceMalloc cudaMalloc
#define deviceFree cudaFree
#define deviceMemcpy cudaMemcpy
#define deviceToHost cudaMemcpyDeviceToHost
#define hostToDevice cudaMemcpyHostToDevice
#define deviceCount cudaGetDeviceCount
#define deviceSuccess cudaSuccess
#else
#include <hip/hip_runtime_api.h>
#define deviceMalloc hipMalloc
#define deviceFree hipFree
#define deviceMemcpy hipMemcpy
#define deviceToHost hipMemcpyDeviceToHost
#define hostToDevice hipMemcpyHostToDevice
#define deviceCount hipGetDeviceCount
#define deviceSuccess hipSuccess
#endif

#include "zoneode/zoneode.h"

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

void release(double* device) {
  if (device != nullptr && deviceFree(device) != deviceSuccess) check(false, "device free");
}

struct Zones {
  std::vector<double> T9, rho, Y;
};

// zone_count zones: T9 spread over [T9_low, T9_high], rho over 1e5-1e7, Y the deck's composition.
Zones make_zones(zoneode_burner* burner, int zone_count, int species, double T9_low, double T9_high) {
  Zones z;
  std::vector<double> Y0(static_cast<std::size_t>(species));
  zoneode_burner_deck_abundances(burner, species, Y0.data());
  for (int i = 0; i < zone_count; ++i) {
    const double u = (i + 0.5) / zone_count;
    z.T9.push_back(T9_low + (T9_high - T9_low) * u);
    z.rho.push_back(std::pow(10.0, 5.0 + 2.0 * std::fmod(7.0 * u, 1.0)));  // [g/cm^3]
    z.Y.insert(z.Y.end(), Y0.begin(), Y0.end());
  }
  return z;
}

double* to_device(const std::vector<double>& host) {
  double* device = nullptr;
  if (deviceMalloc(reinterpret_cast<void**>(&device), host.size() * sizeof(double)) != deviceSuccess ||
      deviceMemcpy(device, host.data(), host.size() * sizeof(double), hostToDevice) != deviceSuccess) {
    check(false, "device allocation and copy");
    return nullptr;
  }
  return device;
}

std::vector<double> to_host(const double* device, std::size_t count) {
  std::vector<double> host(count);
  if (deviceMemcpy(host.data(), device, count * sizeof(double), deviceToHost) != deviceSuccess)
    check(false, "copy to the host");
  return host;
}

// One burner, the same zones burned from host arrays and from device arrays: bitwise equal.
// A burner's new dt (the GPU backend's set_time_span: no new uploads) gives bitwise what a fresh
// burner gives for that dt from the same zones.
void check_new_dt(const std::string& label, const std::string& deck, std::vector<const char*> overrides, int zone_count) {
  zoneode_burner *reused = nullptr, *fresh = nullptr;
  if (zoneode_burner_create_from_file(deck.c_str(), overrides.data(), static_cast<int>(overrides.size()), &reused) != ZONEODE_OK ||
      zoneode_burner_create_from_file(deck.c_str(), overrides.data(), static_cast<int>(overrides.size()), &fresh) != ZONEODE_OK) {
    check(false, label + ": burners: " + zoneode_last_error());
    zoneode_burner_destroy(reused);
    return;
  }
  int species = 0;
  zoneode_burner_species_count(reused, &species);
  const Zones start = make_zones(reused, zone_count, species, 2.0, 3.0);
  Zones first = start, again = start, once = start;
  std::vector<zoneode_zone_result> r1(zone_count), r2(zone_count), r3(zone_count);
  const int c1 = zoneode_burn(reused, zone_count, species, 1e-5, first.T9.data(), first.rho.data(), first.Y.data(), r1.data(),
                              ZONEODE_HOST_MEMORY);
  const int c2 = zoneode_burn(reused, zone_count, species, 3e-4, again.T9.data(), again.rho.data(), again.Y.data(), r2.data(),
                              ZONEODE_HOST_MEMORY);
  const int c3 = zoneode_burn(fresh, zone_count, species, 3e-4, once.T9.data(), once.rho.data(), once.Y.data(), r3.data(),
                              ZONEODE_HOST_MEMORY);
  check(c1 == ZONEODE_OK && c2 == ZONEODE_OK && c3 == ZONEODE_OK, label + ": burns, codes " + std::to_string(c1) + " " +
                                                                      std::to_string(c2) + " " + std::to_string(c3));
  check(std::memcmp(again.Y.data(), once.Y.data(), once.Y.size() * sizeof(double)) == 0 && again.Y != first.Y,
        label + ": dt 1e-5 then 3e-4 on one burner: bitwise a fresh burner's 3e-4 (and not the 1e-5 burn's)");
  check(std::memcmp(r2.data(), r3.data(), r3.size() * sizeof(zoneode_zone_result)) == 0, label + ": every result field too");
  zoneode_burner_destroy(reused);
  zoneode_burner_destroy(fresh);
}

void compare_host_and_device(const std::string& label, const std::string& deck, std::vector<const char*> overrides,
                             int zone_count, double dt, double T9_low, double T9_high, bool heated) {
  zoneode_burner* burner = nullptr;
  if (zoneode_burner_create_from_file(deck.c_str(), overrides.data(), static_cast<int>(overrides.size()), &burner) !=
      ZONEODE_OK) {
    check(false, label + ": burner: " + zoneode_last_error());
    return;
  }
  const char* backend = "";
  zoneode_burner_backend(burner, &backend);
  std::printf("     %s: %s\n", label.c_str(), backend);
  int species = 0;
  zoneode_burner_species_count(burner, &species);
  const Zones start = make_zones(burner, zone_count, species, T9_low, T9_high);

  Zones host = start;
  std::vector<zoneode_zone_result> host_results(static_cast<std::size_t>(zone_count));
  const int host_code = zoneode_burn(burner, zone_count, species, dt, host.T9.data(), host.rho.data(), host.Y.data(),
                                     host_results.data(), ZONEODE_HOST_MEMORY);
  check(host_code == ZONEODE_OK, label + ": host arrays burn, code " + std::to_string(host_code));

  double* T9 = to_device(start.T9);
  double* rho = to_device(start.rho);
  double* Y = to_device(start.Y);
  std::vector<zoneode_zone_result> device_results(static_cast<std::size_t>(zone_count));
  const int device_code =
      zoneode_burn(burner, zone_count, species, dt, T9, rho, Y, device_results.data(), ZONEODE_DEVICE_MEMORY);
  check(device_code == ZONEODE_OK, label + ": device arrays burn, code " + std::to_string(device_code) + " " +
                                       (device_code ? zoneode_last_error() : ""));
  const std::vector<double> Y_back = to_host(Y, start.Y.size());
  const std::vector<double> T9_back = to_host(T9, start.T9.size());
  const std::vector<double> rho_back = to_host(rho, start.rho.size());
  check(std::memcmp(Y_back.data(), host.Y.data(), Y_back.size() * sizeof(double)) == 0,
        label + ": abundances bitwise equal to the host arrays' burn");
  check(std::memcmp(T9_back.data(), host.T9.data(), T9_back.size() * sizeof(double)) == 0,
        label + ": T9 bitwise equal to the host arrays' burn");
  check(rho_back == start.rho, label + ": rho unchanged");
  check(std::memcmp(device_results.data(), host_results.data(), device_results.size() * sizeof(zoneode_zone_result)) == 0,
        label + ": every result field bitwise equal");
  bool changed = false, burned = false;
  for (std::size_t i = 0; i < start.Y.size(); ++i) changed = changed || Y_back[i] != start.Y[i];
  for (const zoneode_zone_result& r : device_results) burned = burned || r.steps > 0;
  check(changed && burned, label + ": the burn changed the abundances (steps taken)");
  if (heated) {
    bool moved = false;
    for (std::size_t i = 0; i < start.T9.size(); ++i) moved = moved || T9_back[i] != start.T9[i];
    check(moved, label + ": self-heating's final T9 written back into the device T9 array");
  }

  // Refused: a host T9 passed as device memory; the device arrays are left as they were.
  Zones wrong = start;
  const int wrong_code =
      zoneode_burn(burner, zone_count, species, dt, wrong.T9.data(), rho, Y, nullptr, ZONEODE_DEVICE_MEMORY);
  const std::string message = zoneode_last_error();
  check(wrong_code == ZONEODE_ERROR_INVALID_ARGUMENT && message.find("T9 is not device memory") != std::string::npos,
        label + ": a host T9 as device memory refused (" + std::to_string(wrong_code) + ": " + message + ")");
  check(to_host(Y, start.Y.size()) == Y_back, label + ": the refused call left Y unchanged");
  release(T9);
  release(rho);
  release(Y);
  zoneode_burner_destroy(burner);
}

// The program's result hash (src/cli/run.cpp zone_hash): per zone FNV-1a over its abundances,
// status (int32), steps (int64), energy rate and index (int64), added over the zones.
std::uint64_t result_hash(const std::vector<double>& Y, int species, const std::vector<zoneode_zone_result>& results) {
  std::uint64_t total = 0;
  for (std::size_t zone = 0; zone < results.size(); ++zone) {
    std::uint64_t value = 1469598103934665603ull;
    auto bytes = [&](const void* data, std::size_t size) {
      const unsigned char* p = static_cast<const unsigned char*>(data);
      for (std::size_t i = 0; i < size; ++i) value = (value ^ p[i]) * 1099511628211ull;
    };
    bytes(Y.data() + zone * species, static_cast<std::size_t>(species) * sizeof(double));
    const std::int32_t status = static_cast<std::int32_t>(results[zone].status);
    const std::int64_t steps = static_cast<std::int64_t>(results[zone].steps), index = static_cast<std::int64_t>(zone);
    const double energy_rate = results[zone].energy_rate;
    bytes(&status, sizeof status);
    bytes(&steps, sizeof steps);
    bytes(&energy_rate, sizeof energy_rate);
    bytes(&index, sizeof index);
    total += value;
  }
  return total;
}

// A number of the resolved deck (`key: value` as zoneode_burner_deck writes it), e.g. the burn's span.
double deck_number(zoneode_burner* burner, const std::string& key) {
  const char* yaml = nullptr;
  if (zoneode_burner_deck(burner, &yaml) != ZONEODE_OK || yaml == nullptr) return NAN;
  const std::string text = yaml, pattern = key + ": ";
  const std::size_t at = text.find(pattern);
  return at == std::string::npos ? NAN : std::strtod(text.c_str() + at + pattern.size(), nullptr);
}

// The program on the GPU and the API's device arrays on the same zones (constant T9 and rho, the
// deck's composition): the same result hash. The program's hash is read from its summary.
void compare_with_program(const std::string& label, const std::string& program, const std::string& deck,
                          std::vector<std::string> settings, int zone_count, double T9_value, double rho_value) {
  char T9_text[64], rho_text[64];
  std::snprintf(T9_text, sizeof T9_text, "%.17g", T9_value);
  std::snprintf(rho_text, sizeof rho_text, "%.17g", rho_value);
  settings.push_back("zones.count=" + std::to_string(zone_count));
  settings.push_back(std::string("zones.temperature={profile: constant, value: ") + T9_text + "}");
  settings.push_back(std::string("zones.density={profile: constant, value: ") + rho_text + "}");
  settings.push_back("run.backend=gpu");
  const std::string summary = "zoneode-api-device-check-summary.json", prefix = "zoneode-api-device-check-run";
  std::string command = program + " " + deck + " --quiet --force --summary " + summary + " --set output.prefix=" + prefix;
  for (const std::string& item : settings) command += " --set '" + item + "'";
  command += " > /dev/null 2>&1";
  std::remove(summary.c_str());
  if (std::system(command.c_str()) != 0) {
    check(false, label + ": the program failed: " + command);
    return;
  }
  std::ifstream in(summary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str(), key = "\"result_hash\": \"";
  const std::size_t at = json.find(key);
  const std::string program_hash = at == std::string::npos ? "none" : json.substr(at + key.size(), 16);

  std::vector<const char*> overrides;
  for (const std::string& item : settings) overrides.push_back(item.c_str());
  zoneode_burner* burner = nullptr;
  if (zoneode_burner_create_from_file(deck.c_str(), overrides.data(), static_cast<int>(overrides.size()), &burner) !=
      ZONEODE_OK) {
    check(false, label + ": burner: " + zoneode_last_error());
    return;
  }
  int species = 0;
  zoneode_burner_species_count(burner, &species);
  const double dt = deck_number(burner, "end_time") - deck_number(burner, "start_time");
  Zones z = make_zones(burner, zone_count, species, T9_value, T9_value);
  for (double& r : z.rho) r = rho_value;
  double* T9 = to_device(z.T9);
  double* rho = to_device(z.rho);
  double* Y = to_device(z.Y);
  std::vector<zoneode_zone_result> results(static_cast<std::size_t>(zone_count));
  const int code = zoneode_burn(burner, zone_count, species, dt, T9, rho, Y, results.data(), ZONEODE_DEVICE_MEMORY);
  check(code == ZONEODE_OK, label + ": device arrays burn, code " + std::to_string(code));
  const std::vector<double> Y_back = to_host(Y, z.Y.size());
  char api_hash[17];
  std::snprintf(api_hash, sizeof api_hash, "%016llx",
                static_cast<unsigned long long>(result_hash(Y_back, species, results)));
  check(program_hash == api_hash,
        label + ": result hash through the API's device arrays " + api_hash + ", the program's " + program_hash);
  release(T9);
  release(rho);
  release(Y);
  zoneode_burner_destroy(burner);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: zoneode-api-device-check SOURCE_DIR [ZONEODE_PROGRAM]\n");
    return 2;
  }
  int devices = 0;
  if (deviceCount(&devices) != deviceSuccess || devices < 1) {
    std::printf("skipped: no GPU\n");
    return 77;
  }
  const std::string source = argv[1];
  compare_host_and_device("asymptotic, 3 batches", source + "/inputs/quick.yaml",
                          {"run.backend=gpu", "run.batch_zones=100"}, 256, 1e-4, 1.0, 3.0, false);
  compare_host_and_device("implicit, self-heating", source + "/inputs/quick.yaml",
                          {"run.backend=gpu", "integrator.method=implicit", "integrator.schedule=adaptive",
                           "physics.self_heating=true"},
                          64, 1e-4, 2.0, 3.0, true);
  check_new_dt("new dt, asymptotic", source + "/inputs/quick.yaml", {"run.backend=gpu"}, 128);
  check_new_dt("new dt, implicit", source + "/inputs/quick.yaml",
               {"run.backend=gpu", "integrator.method=implicit", "integrator.schedule=adaptive"}, 64);
  // A CPU burner takes no device arrays.
  zoneode_burner* cpu = nullptr;
  const char* on_cpu[] = {"run.backend=cpu"};
  if (zoneode_burner_create_from_file((source + "/inputs/quick.yaml").c_str(), on_cpu, 1, &cpu) == ZONEODE_OK) {
    int species = 0;
    zoneode_burner_species_count(cpu, &species);
    Zones z = make_zones(cpu, 4, species, 1.0, 3.0);
    double* T9 = to_device(z.T9);
    const int code = zoneode_burn(cpu, 4, species, 1e-4, T9, z.rho.data(), z.Y.data(), nullptr, ZONEODE_DEVICE_MEMORY);
    check(code == ZONEODE_ERROR_UNSUPPORTED,
          "cpu burner: ZONEODE_DEVICE_MEMORY unsupported (" + std::to_string(code) + ": " + zoneode_last_error() + ")");
    release(T9);
    zoneode_burner_destroy(cpu);
  } else {
    check(false, std::string("cpu burner: ") + zoneode_last_error());
  }
  if (argc == 3) {
    compare_with_program("program vs API, asymptotic", argv[2], source + "/inputs/quick.yaml", {}, 64, 2.5, 3.0e6);
    compare_with_program("program vs API, implicit self-heated", argv[2], source + "/inputs/quick.yaml",
                         {"integrator.method=implicit", "integrator.schedule=adaptive", "physics.self_heating=true"}, 16,
                         2.0, 1.0e6);
    compare_with_program("program vs API, implicit on rp-z24", argv[2], source + "/inputs/bench/c2-rpz24-rp.yaml",
                         {"integrator.method=implicit", "integrator.schedule=adaptive", "integrator.end_time=1e-3"}, 64,
                         1.2, 1.0e6);
  }
  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "passed", failures);
  return failures ? 1 : 0;
}
