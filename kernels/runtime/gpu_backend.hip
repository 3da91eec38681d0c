// The GPU backend: implements Backend with one of the kernel variants of this folder.
//
// Device: the rank's index within its node, modulo the devices visible, so that
// ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES set by Slurm or a wrapper are
// honoured and several ranks may share one GPU. Every runtime call is checked and fails with file,
// line and the runtime's message (the driver adds the rank). ZONEODE_GPU_DEBUG=1 synchronises and
// checks after every launch and poisons the results before it, so an unwritten zone shows.
#include "gpu_backend.hpp"  // kernels/

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <stdexcept>
#include <string>

#include "common/code_cache.hpp"
#include "common/errors.hpp"
#include "common/fnv1a.hpp"
#include "network/rate_table.hpp"
#include "physics/eos.hpp"
#include "gpu_runtime.hpp"
#include "bdf/bdf_kernels.hpp"
#include "implicit/implicit_kernels.hpp"
#include "kernel_launch.hpp"

namespace zoneode {

namespace {

void check(gpuError_t status, const char* call, const char* file, int line) {
  if (status != gpuSuccess) {
    throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                             gpuGetErrorString(status));
  }
}
#define ZONEODE_GPU_CHECK(call) check((call), #call, __FILE__, __LINE__)

template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  ~DeviceArray() {
    if (data_) (void)gpuFree(data_);
  }
  void resize(std::size_t count) {
    if (count <= count_) return;
    if (data_) ZONEODE_GPU_CHECK(gpuFree(data_));
    data_ = nullptr;
    ZONEODE_GPU_CHECK(gpuMalloc(reinterpret_cast<void**>(&data_), std::max<std::size_t>(count, 1) * sizeof(T)));
    count_ = count;
  }
  T* data() const { return data_; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace

namespace gpu {
// The variants built into this binary (kernel_variants_built.def, generated from the one list
// src/common/kernel_variants.def): kernels/asymptotic/NAME.hip defines NAME_variant().
#define ZONEODE_CHOICE(name, ...) const VariantOps* name##_variant();
#include "kernel_variants_built.def"
#undef ZONEODE_CHOICE
}  // namespace gpu

namespace {

// The launch table: per method, the kernel run.kernel names. The asymptotic method: every variant
// built; qss2: the variant's plan, its own kernels in that shape (qss2_kernels.hip); the implicit
// method: its own kernels (implicit_gpu.hip); bdf: its own (kernels/bdf/bdf_gpu.hip).
const gpu::VariantOps* variant_ops(IntegrationMethod method, KernelVariant variant) {
  switch (method) {
    case IntegrationMethod::asymptotic:
    case IntegrationMethod::qss2: break;
    case IntegrationMethod::implicit: return gpu::implicit_variant(variant);
    case IntegrationMethod::bdf: return gpu::bdf_variant(variant);
  }
  switch (variant) {
#define ZONEODE_CHOICE(name, ...) \
  case KernelVariant::name: return gpu::name##_variant();
#include "kernel_variants_built.def"
#undef ZONEODE_CHOICE
    default: return nullptr;  // in the list, not built into this binary
  }
}

// The device whose memory `pointer` is (a device or managed allocation), or -1 (host memory,
// registered or not; unknown pointers).
int device_of(const void* pointer) {
#if defined(__CUDACC__)
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  const bool on_device = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
#else
  hipPointerAttribute_t attributes{};
  if (hipPointerGetAttributes(&attributes, pointer) != hipSuccess) {  // unregistered host memory fails
    (void)hipGetLastError();
    return -1;
  }
#if HIP_VERSION_MAJOR >= 6
  const bool on_device = attributes.type == hipMemoryTypeDevice || attributes.type == hipMemoryTypeManaged;
#else
  const bool on_device = attributes.memoryType == hipMemoryTypeDevice || attributes.isManaged != 0;
#endif
#endif
  return on_device ? attributes.device : -1;
}

// The backend's GPU made current for a call and the caller's restored after it: a library caller
// may have another device current (its own work, CuPy's Device(1)) between burns.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (gpuGetDevice(&previous_) != gpuSuccess) previous_ = -1;
    if (previous_ != device) ZONEODE_GPU_CHECK(gpuSetDevice(device));
    else previous_ = -1;  // nothing to restore
  }
  ~DeviceScope() {
    if (previous_ >= 0) (void)gpuSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = -1;
};

// A variant's own arrays on the device, kept for the run.
class Uploads final : public gpu::DeviceUploads {
 public:
  const void* upload(const void* data, std::size_t bytes) override {
    buffers_.emplace_back();
    DeviceArray<std::byte>& buffer = buffers_.back();
    buffer.resize(std::max<std::size_t>(bytes, 1));
    if (bytes > 0) ZONEODE_GPU_CHECK(gpuMemcpy(buffer.data(), data, bytes, gpuMemcpyHostToDevice));
    return buffer.data();
  }

 private:
  std::deque<DeviceArray<std::byte>> buffers_;  // stable addresses
};

// A copy of `host` in device memory (its arrays and the view over them), kept as long as `uploads`.
const ElectronGasTableView* upload_electron_gas_table(Uploads& uploads, const ElectronGasTableView& host) {
  const std::size_t rows = static_cast<std::size_t>(host.rows);
  const std::size_t nodes = static_cast<std::size_t>(host.row_offset[host.rows]);
  ElectronGasTableView device = host;
  device.log_c = static_cast<const double*>(uploads.upload(host.log_c, nodes * sizeof(double)));
  device.ye_energy = static_cast<const double*>(uploads.upload(host.ye_energy, nodes * sizeof(double)));
  device.row_first = static_cast<const int*>(uploads.upload(host.row_first, rows * sizeof(int)));
  device.row_end = static_cast<const int*>(uploads.upload(host.row_end, rows * sizeof(int)));
  device.row_offset = static_cast<const int*>(uploads.upload(host.row_offset, (rows + 1) * sizeof(int)));
  return static_cast<const ElectronGasTableView*>(uploads.upload(&device, sizeof(device)));
}

// A copy of `host`'s table in device memory (its arrays and the view over them), kept as long as `uploads`.
const RateTableView* upload_rate_table(Uploads& uploads, const RateTable& host) {
  RateTableView device = host.view();
  device.nodes = static_cast<const double*>(uploads.upload(host.nodes().data(), host.nodes().size() * sizeof(double)));
  device.direct_offsets = static_cast<const std::int32_t*>(
      uploads.upload(host.direct_offsets().data(), host.direct_offsets().size() * sizeof(std::int32_t)));
  device.direct = static_cast<const std::int32_t*>(
      uploads.upload(host.direct().data(), host.direct().size() * sizeof(std::int32_t)));
  device.direct_flags = static_cast<const std::uint8_t*>(
      uploads.upload(host.direct_flags().data(), host.direct_flags().size()));
  return static_cast<const RateTableView*>(uploads.upload(&device, sizeof(device)));
}

class GpuBackend final : public Backend {
 public:
  GpuBackend(const BackendSelection& selection, const BackendOptions& options)
      : ops_(variant_ops(selection.method, selection.kernel)), kernel_(selection.kernel),
        batch_zones_(options.batch_zones), expected_zones_(options.zones) {
    context_.tuning = options.tuning;
    if (!ops_ && selection.method == IntegrationMethod::implicit)
      throw std::invalid_argument("run.kernel: '" + std::string(kernel_variant_name(selection.kernel)) +
                                  "' does not exist for integrator.method: implicit on the GPU; it has " +
                                  gpu::implicit_variant_names());
    if (!ops_ && selection.method == IntegrationMethod::bdf)
      throw std::invalid_argument("run.kernel: '" + std::string(kernel_variant_name(selection.kernel)) +
                                  "' does not exist for integrator.method: bdf on the GPU; it has " +
                                  gpu::bdf_variant_names());
    if (!ops_ && selection.kernel == KernelVariant::generated)
      throw std::invalid_argument("run.kernel: 'generated' exists for integrator.method: implicit only (the explicit "
                                  "methods have no generated kernel yet); use final");
    if (!ops_)
      throw std::invalid_argument("run.kernel: '" + std::string(kernel_variant_name(selection.kernel)) +
                                  "' is not built in this binary (configure with -DZONEODE_KERNEL=" +
                                  std::string(kernel_variant_name(selection.kernel)) + " or all)");
    int devices = 0;
    ZONEODE_GPU_CHECK(gpuGetDeviceCount(&devices));
    if (devices < 1) throw std::runtime_error("no GPU visible to this rank");
    device_ = options.local_rank % devices;
    ZONEODE_GPU_CHECK(gpuSetDevice(device_));
    gpuDeviceProp properties;
    ZONEODE_GPU_CHECK(gpuGetDeviceProperties(&properties, device_));
    char bus[32] = {};
    ZONEODE_GPU_CHECK(gpuDeviceGetPCIBusId(bus, sizeof bus, device_));
    int optin = 0;
    ZONEODE_GPU_CHECK(gpuDeviceGetAttribute(&optin, gpuDevAttrMaxSharedMemoryPerBlockOptin, device_));
    device_model_ = properties.name;
    name_ = std::string(properties.name) + " (device " + std::to_string(device_) + " of " + std::to_string(devices) +
            ", PCI " + bus + ")";
    context_.multiprocessors = properties.multiProcessorCount;
    context_.max_shared_bytes = static_cast<std::size_t>(std::max(optin, 0));
#if defined(__CUDACC__)
    // The unified L1/shared array and its carve-out steps (CUDA programming guide, compute
    // capabilities 8.0 and 9.0); size_grid keeps the step block of a kernel that reads the network
    // through L1 in it (kernel_common.hpp).
    int reserved = 0, per_multiprocessor = 0;
    ZONEODE_GPU_CHECK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device_));
    ZONEODE_GPU_CHECK(cudaDeviceGetAttribute(&per_multiprocessor, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device_));
    context_.reserved_shared_bytes = static_cast<std::size_t>(std::max(reserved, 0));
    context_.max_shared_per_multiprocessor = static_cast<std::size_t>(std::max(per_multiprocessor, 0));
    if (properties.major == 9 && properties.minor == 0) {
      context_.unified_l1_bytes = 256 * 1024;
      context_.carveout_kib = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    } else if (properties.major == 8 && properties.minor == 0) {
      context_.unified_l1_bytes = 192 * 1024;
      context_.carveout_kib = {0, 8, 16, 32, 64, 100, 132, 164};
    }
#endif
    const char* debug = std::getenv("ZONEODE_GPU_DEBUG");
    debug_ = debug && std::string(debug) == "1";
  }

  BackendDescription describe() const override {
    return {"gpu", std::string(kernel_variant_name(kernel_)), name_, std::string(ZONEODE_GPU_PLATFORM) + ", " + plan_.describe(), 1};
  }

  void prepare(const CompactNetwork& network, const IntegratorSettings& settings) override {
    const DeviceScope scope(device_);
    // Whole doubles: kernels stage the step block 8 bytes at a time (the host blocks are padded so).
    const std::size_t rate_bytes = (network.rate_block_bytes() + 7) / 8 * 8;
    const std::size_t step_bytes = (network.step_block_bytes() + 7) / 8 * 8;
    rate_block_.resize(rate_bytes);
    step_block_.resize(step_bytes);
    ZONEODE_GPU_CHECK(gpuMemcpy(rate_block_.data(), network.rate_block(), rate_bytes, gpuMemcpyHostToDevice));
    ZONEODE_GPU_CHECK(gpuMemcpy(step_block_.data(), network.step_block(), step_bytes, gpuMemcpyHostToDevice));
    args_.rates = network.rate_view_at(rate_block_.data());
    args_.step = network.step_view_at(step_block_.data());
    args_.step_block = step_block_.data();
    args_.step_block_bytes = network.step_block_bytes();
    args_.settings = settings;
    self_heating_ = network.physics().self_heating;
    // Self-heating's e-/e+ gas from the host's table (physics/eos_table.hpp, ~2 MB) on the device too,
    // read by the same lookup (the device's log, atan and exp round as its own); physics.eos: exact
    // leaves it out and device code evaluates the exact gas (the cost measured below).
    if (self_heating_ && network.physics().eos == EosEvaluation::table) {
      if (device_eos_table_ == nullptr) device_eos_table_ = upload_electron_gas_table(uploads_, host_electron_gas_table());
      args_.step.eos_table = device_eos_table_;
      // The fits tabulated in T9 too, the table the CPU backend reads in the same runs
      // (network/rate_table.hpp, MethodData): the implicit and bdf kernels read it a reaction at a
      // time (tabulated_rate_factor), one lookup and table_exp instead of each set's exp and
      // divisions, and the two backends' rate factors differ by the device log's rounding only.
      // Built once per network (prepare() runs again on a burner's new dt).
      Fnv1a rates_hash;
      rates_hash.bytes(network.rate_block(), network.rate_block_bytes());
      if (device_fit_table_ == nullptr || fit_table_rates_hash_ != rates_hash.value) {
        device_fit_table_ = upload_rate_table(uploads_, RateTable(network.rate_view()));
        fit_table_rates_hash_ = rates_hash.value;
      }
      args_.rates.fit_table = device_fit_table_;
    }
    // Self-heating makes T9 a variable of the integrated state (integrators/implicit.hpp, qss2.hpp,
    // asymptotic.hpp). The implicit method's kernels carry it: baseline runs the serial
    // integrate_zone, the team kernels (lds, wave) their heated instantiation (implicit_team.hpp:
    // the same border, solves and stage T9s; tests/test_implicit_team.cpp against the serial method
    // in the CPU emulation; on an H100 by scripts/gpu-heat-team.sh, within the implicit rule).
    // Measured there (2026-12-07, rpz24-short to 1e-3 s, 2,048 zones): heated lds 12,779 ns per
    // zone-step, heated baseline over 16,700 (not done in 100 s), so final takes its static choice
    // for heated runs too (lds where the team's arrays fit in LDS, else baseline), without the
    // calibration. generated (the serial method over generated linear algebra) has not been run
    // with T's extra solve: baseline. bdf's kernels carry T9 too (baseline the serial code, lds its
    // heated team instantiation, bdf_team.hpp; tests/test_bdf_team.cpp against the serial bdf in
    // the CPU emulation). The explicit methods' team kernels (zone_team*.hpp) do not carry T9, so
    // those methods refuse self-heating on the GPU.
    if (self_heating_ && settings.method == IntegrationMethod::implicit && kernel_ == KernelVariant::generated) {
      ops_ = gpu::implicit_variant(KernelVariant::baseline);
      kernel_ = KernelVariant::baseline;
    }
    if (self_heating_ && settings.method == IntegrationMethod::implicit && kernel_ == KernelVariant::final)
      ops_ = gpu::implicit_static_final();
    if (self_heating_ && settings.method != IntegrationMethod::implicit && settings.method != IntegrationMethod::bdf)
      throw std::invalid_argument(std::string("physics.self_heating: integrator.method ") +
                                  std::string(integration_method_name(settings.method)) +
                                  " has no GPU kernel with T9 in its state (the explicit team kernels do not carry "
                                  "T9); run it with run.backend: cpu, or use integrator.method: implicit or bdf on "
                                  "the GPU");
    // Screening, partition functions and self-heating run in each kernel's physics instantiation
    // (zone_team_physics.hpp, implicit_team.hpp; the one-zone-per-thread implicit kernel runs the
    // serial method, which reads the options); neutrino losses only change Q and run in the plain one.
    const PhysicsOptions& physics = network.physics();
    context_.physics = physics.screening != ScreeningKind::none || physics.partition_functions || physics.self_heating;
    context_.self_heating = physics.self_heating;
    context_.species_count = network.species_count();
    context_.reaction_count = network.reaction_count();
    context_.step_block_bytes = network.step_block_bytes();
    context_.method = settings.method;
    if (next_zone_ == nullptr)  // prepare() runs again on a burner's new dt: one counter for the backend's life
      ZONEODE_GPU_CHECK(gpuMalloc(reinterpret_cast<void**>(&next_zone_), sizeof(unsigned long long)));
    if (ops_->prepare) ops_->prepare(network, uploads_, args_, context_);
    // final with the implicit method and run.kernel_choice calibrated: times its candidates on the
    // first batch (calibrate()). Not with self-heating: generated is a candidate (see above), so
    // final keeps its static choice (lds where the LU values and vectors fit in LDS, else baseline).
    calibrate_pending_ = settings.method == IntegrationMethod::implicit && kernel_ == KernelVariant::final &&
                         !self_heating_ && context_.tuning.calibrated;
    // The explicit team kernels' occupancy, measured on the first batch where the carve-out question
    // arises (plan().occupancy_limit > 0: NVIDIA sm_80/sm_90, network read through L1, launch not
    // pinned by run.kernel_config); qss2 plans its own shape from the variant's and is left out.
    occupancy_pending_ = settings.method == IntegrationMethod::asymptotic;
    context_.resident_blocks_wanted = 0;
    occupancy_note_.clear();
    if (calibrate_pending_) {
      Fnv1a hash;
      hash.bytes(network.rate_block(), network.rate_block_bytes());
      hash.bytes(network.step_block(), network.step_block_bytes());
      network_hash_ = hash.value;
    }
    // The plan for this rank's zones (at most a batch), for the run header; each batch plans again.
    context_.zones = expected_zones_ > 0 ? std::min(expected_zones_, max_batch_zones()) : max_batch_zones();
    plan_ = plan();
  }

  // A burner's new dt (the library API): the kernels read the settings from args_ at every launch,
  // and nothing prepare() uploads or plans depends on the times, so only these change (no new
  // uploads; the occupancy and kernel choices measured on the first burn stand).
  bool set_time_span(double start_time, double end_time) override {
    args_.settings.start_time = start_time;
    args_.settings.end_time = end_time;
    return true;
  }

  std::int64_t max_batch_zones() const override {
    if (batch_zones_ > 0) return batch_zones_;
    const DeviceScope scope(device_);
    // Per zone: T9, rho, Y and the result; the per-block workspace is small beside it. Leave a
    // quarter of the free memory to the runtime and other ranks sharing the device.
    std::size_t free = 0, total = 0;
    ZONEODE_GPU_CHECK(gpuMemGetInfo(&free, &total));
    const std::size_t per_zone = 8 * (2 + static_cast<std::size_t>(context_.species_count)) + sizeof(ZoneResult);
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(free / 4 * 3 / per_zone / 2));
  }

  void upload(const ZoneSpan& zones) override {
    const DeviceScope scope(device_);
    const std::size_t n = zones.count, S = zones.species_count;
    results_.resize(n);
    zones_ = static_cast<std::int64_t>(n);
    if (zones.device_arrays) {  // the caller's device arrays: the kernels read and write them in place
      temperature_at_ = zones.temperature;
      density_at_ = zones.density;
      abundances_at_ = zones.abundances;
      return;
    }
    temperature_.resize(n);
    density_.resize(n);
    abundances_.resize(n * S);
    ZONEODE_GPU_CHECK(gpuMemcpy(temperature_.data(), zones.temperature, n * sizeof(double), gpuMemcpyHostToDevice));
    ZONEODE_GPU_CHECK(gpuMemcpy(density_.data(), zones.density, n * sizeof(double), gpuMemcpyHostToDevice));
    ZONEODE_GPU_CHECK(gpuMemcpy(abundances_.data(), zones.abundances, n * S * sizeof(double), gpuMemcpyHostToDevice));
    temperature_at_ = temperature_.data();
    density_at_ = density_.data();
    abundances_at_ = abundances_.data();
  }

  // Device arrays (the library's ZONEODE_DEVICE_MEMORY) must be memory of this backend's GPU:
  // device or managed allocations made on it.
  bool takes_device_arrays() const override { return true; }
  std::string device_arrays_refusal(const ZoneSpan& zones) const override {
    const std::pair<const char*, const double*> arrays[] = {
        {"T9", zones.temperature}, {"rho", zones.density}, {"Y", zones.abundances}};
    for (const auto& [name, pointer] : arrays) {
      const int owner = device_of(pointer);
      if (owner == device_) continue;
      return std::string(name) + " is " +
             (owner < 0 ? std::string("not device memory (a host pointer?)")
                        : "memory of device " + std::to_string(owner) + ", not of this burner's device " +
                              std::to_string(device_));
    }
    return {};
  }

  std::vector<double> read_device_doubles(const double* device, std::int64_t count) const override {
    const DeviceScope scope(device_);
    std::vector<double> values(static_cast<std::size_t>(std::max<std::int64_t>(count, 0)));
    if (!values.empty())
      ZONEODE_GPU_CHECK(gpuMemcpy(values.data(), device, values.size() * sizeof(double), gpuMemcpyDeviceToHost));
    return values;
  }

  void integrate() override {
    const DeviceScope scope(device_);
    if (calibrate_pending_) calibrate();
    context_.zones = zones_;
    plan_ = plan();
    if (occupancy_pending_ && plan_.occupancy_limit > 1) {
      measure_occupancy();
      plan_ = plan();
    }
    workspace_.resize(static_cast<std::size_t>(plan_.grid) * std::max<std::int64_t>(plan_.workspace_doubles, 1));
    gpu::KernelArgs args = batch_args();
    ZONEODE_GPU_CHECK(gpuMemset(next_zone_, 0, sizeof(unsigned long long)));
    if (debug_) ZONEODE_GPU_CHECK(gpuMemset(results_.data(), 0xff, zones_ * sizeof(ZoneResult)));
    if (context_.method == IntegrationMethod::qss2) {
      gpu::launch_qss2(plan_, args);
    } else {
      ops_->launch(plan_, args);
    }
    ZONEODE_GPU_CHECK(gpuGetLastError());
    ZONEODE_GPU_CHECK(gpuDeviceSynchronize());  // integrate() is blocking
  }

  void download(const ZoneSpan& zones) override {
    const DeviceScope scope(device_);
    const std::size_t n = zones.count, S = zones.species_count;
    if (!zones.device_arrays)  // device arrays: the abundances are in place already
      ZONEODE_GPU_CHECK(gpuMemcpy(zones.abundances, abundances_.data(), n * S * sizeof(double), gpuMemcpyDeviceToHost));
    ZONEODE_GPU_CHECK(gpuMemcpy(zones.results, results_.data(), n * sizeof(ZoneResult), gpuMemcpyDeviceToHost));
    if (debug_) {
      for (std::size_t z = 0; z < n; ++z) {
        const int status = zones.results[z].status;
        if (status < 0 || status >= zone_status_count)
          throw std::runtime_error("ZONEODE_GPU_DEBUG: zone " + std::to_string(z) + " of the batch was not written");
      }
    }
    // physics.self_heating: each zone's T9 where its burn ended (ZoneResult::final_T9, set by the
    // kernels), as the CPU backend keeps it; the next outer step starts there.
    if (self_heating_ && zones.device_arrays) {
      std::vector<double> final_T9(n);
      for (std::size_t z = 0; z < n; ++z) final_T9[z] = zones.results[z].final_T9;
      ZONEODE_GPU_CHECK(gpuMemcpy(zones.temperature, final_T9.data(), n * sizeof(double), gpuMemcpyHostToDevice));
    } else if (self_heating_) {
      for (std::size_t z = 0; z < n; ++z) zones.temperature[z] = zones.results[z].final_T9;
    }
  }

  ~GpuBackend() override {
    if (next_zone_) (void)gpuFree(next_zone_);
  }

  std::string notes() const override {
    return choice_note_ + (choice_note_.empty() || occupancy_note_.empty() ? "" : "; ") + occupancy_note_;
  }

 private:
  // final with the implicit method and run.kernel_choice calibrated (issue 36; opt-in because the
  // choice, made by timing on this rank's first batch, can differ with the zones per rank, and the
  // kernels round differently: results are then not bitwise independent of ranks and batches,
  // which the static choice keeps). Which implicit kernel is fastest depends on the
  // network and the zone count (H100, 2026-12-06: s150 lds 1,254 ns per zone-step against generated
  // 3,587 at 65,536 zones; the default network generated 266 against lds 412 at 65,536 but 1,056
  // against 431 at 8,192), so final times each candidate (implicit_final_candidates) on this batch:
  // every zone from its start, at most calibration_steps accepted steps, then the start restored;
  // the fastest per zone-step (accepted and rejected) runs the batch and every later one. The
  // choice is cached (the code cache, keyed by device, network, zones and candidates) so that a
  // second run, and ranks sharing the cache folder, time nothing and take the same kernel.
  static constexpr std::int64_t calibration_steps = 2;  // accepted steps per zone per candidate: its cost is in the run's time

  void calibrate() {
    calibrate_pending_ = false;
    const std::vector<gpu::ImplicitCandidate> candidates = gpu::implicit_final_candidates(context_);
    if (candidates.size() < 2 || zones_ < 1) return;
    std::string names;
    for (const gpu::ImplicitCandidate& c : candidates) names += std::string(names.empty() ? "" : ",") + c.name;
    const std::string key = "implicit final calibration 1; " + device_model_ + "; network " +
                            std::to_string(network_hash_) + "; zones " + std::to_string(zones_) + "; steps " +
                            std::to_string(calibration_steps) + "; candidates " + names;
    const CachedCode choice = cached_compile(code_cache_directory(), key, [&] { return time_candidates(candidates); });
    // payload: the winner's name, a space, what each candidate took
    const std::string& payload = choice.payload;
    const std::string winner = payload.substr(0, payload.find(' '));
    for (const gpu::ImplicitCandidate& c : candidates) {
      if (winner != c.name) continue;
      ops_ = c.ops;
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.2f s", choice.seconds);
      choice_note_ = "final (implicit) runs " + winner + ", the fastest on the first batch of " + std::to_string(zones_) +
                     " zones over " + std::to_string(calibration_steps) + " steps (ns per zone-step: " +
                     payload.substr(payload.find(' ') + 1) + "); " +
                     (choice.compiled ? "timed in " + std::string(seconds) : "the cached choice") +
                     (choice.note.empty() ? "" : " (" + choice.note + ")") +
                     (gpu::implicit_generated_ready() ? "" : "; generated not a candidate: " + gpu::implicit_generated_why_not());
      return;
    }
    throw std::runtime_error("final's calibration chose '" + winner + "', not a candidate (cache entry for another build?)");
  }

  // The explicit methods' team kernels on NVIDIA: how many blocks per multiprocessor run best is a
  // trade of occupancy against the L1 that the shared-memory carve-out leaves for the network
  // (size_grid, kernel_common.hpp), and it depends on the network: the study's network ran 2x
  // faster at 4 blocks than at 6, the generated s150 9% slower at 5 than at 6 (H100, 2026-12-06).
  // So on the first batch the occupancy limit and the two below it each run the first zones (16 per
  // resident block of the limit, at most the batch) twice, for occupancy_steps and for
  // occupancy_steps + occupancy_extra_steps steps, timed with events, the zones' start restored
  // after each; the fastest marginal time per zone-step (the second run's time less the first's,
  // over the steps it added) is kept for the run. Marginal, because a short run's time is mostly a
  // zone's start (loads, rate factors) and its first steps: over 4 steps from the start the study's
  // network at 6,656 zones timed 27.5 ns per zone-step at 6 blocks against 29.2 at 4 and chose 6,
  // where its full burn runs 17.06 at 6 and 12.74 at 4 (H100, 2026-12-06). A zone's arithmetic does
  // not depend on the occupancy, so the choice never changes a result (bitwise).
  static constexpr std::int64_t occupancy_steps = 4;
  static constexpr std::int64_t occupancy_extra_steps = 16;

  void measure_occupancy() {
    occupancy_pending_ = false;
    const int limit = plan_.occupancy_limit;
    const std::int64_t zones = std::min<std::int64_t>(zones_, 16LL * limit * context_.multiprocessors);
    const std::size_t values = static_cast<std::size_t>(zones) * static_cast<std::size_t>(context_.species_count);
    DeviceArray<double> start;
    start.resize(values);
    ZONEODE_GPU_CHECK(gpuMemcpy(start.data(), abundances_at_, values * sizeof(double), gpuMemcpyDeviceToDevice));
    std::vector<ZoneResult> results(static_cast<std::size_t>(zones));
    gpuEvent_t begin, end;
    ZONEODE_GPU_CHECK(gpuEventCreate(&begin));
    ZONEODE_GPU_CHECK(gpuEventCreate(&end));
    const std::int64_t batch_zones = context_.zones;
    context_.zones = zones;
    // One timed run of `steps` steps per zone: milliseconds and zone-steps (accepted and rejected).
    auto timed = [&](std::int64_t steps, double& ms, std::int64_t& zone_steps) {
      gpu::KernelArgs args = batch_args();
      args.zones = zones;
      args.settings.max_steps = steps;
      ZONEODE_GPU_CHECK(gpuMemset(next_zone_, 0, sizeof(unsigned long long)));
      ZONEODE_GPU_CHECK(gpuEventRecord(begin));
      ops_->launch(plan_, args);
      ZONEODE_GPU_CHECK(gpuGetLastError());
      ZONEODE_GPU_CHECK(gpuEventRecord(end));
      ZONEODE_GPU_CHECK(gpuEventSynchronize(end));
      float elapsed = 0.0f;
      ZONEODE_GPU_CHECK(gpuEventElapsedTime(&elapsed, begin, end));
      ms = elapsed;
      ZONEODE_GPU_CHECK(gpuMemcpy(results.data(), results_.data(), results.size() * sizeof(ZoneResult), gpuMemcpyDeviceToHost));
      ZONEODE_GPU_CHECK(gpuMemcpy(abundances_at_, start.data(), values * sizeof(double), gpuMemcpyDeviceToDevice));
      zone_steps = 0;
      for (const ZoneResult& r : results) zone_steps += r.steps + r.rejected_steps;
    };
    int best_blocks = limit;
    double best = 0.0;
    std::string timings;
    for (int blocks = limit; blocks >= std::max(1, limit - 2); --blocks) {
      context_.resident_blocks_wanted = blocks;
      plan_ = plan();
      workspace_.resize(static_cast<std::size_t>(plan_.grid) * std::max<std::int64_t>(plan_.workspace_doubles, 1));
      double short_ms = 0.0, long_ms = 0.0;
      std::int64_t short_steps = 0, long_steps = 0;
      timed(occupancy_steps, short_ms, short_steps);
      timed(occupancy_steps + occupancy_extra_steps, long_ms, long_steps);
      // Zones that stopped before the longer run's steps leave it no more steps: then its whole time.
      const double ns = long_steps > short_steps ? 1e6 * (long_ms - short_ms) / static_cast<double>(long_steps - short_steps)
                        : long_steps > 0         ? 1e6 * long_ms / static_cast<double>(long_steps)
                                                 : 1e300;
      char text[48];
      std::snprintf(text, sizeof text, "%s%d %.1f", timings.empty() ? "" : ", ", blocks, ns);
      timings += text;
      if (blocks == limit || ns < best) best = ns, best_blocks = blocks;
    }
    (void)gpuEventDestroy(begin);
    (void)gpuEventDestroy(end);
    context_.zones = batch_zones;
    context_.resident_blocks_wanted = best_blocks;
    occupancy_note_ = std::to_string(best_blocks) + " blocks/SM, the fastest of " + std::to_string(limit) + "-" +
                      std::to_string(std::max(1, limit - 2)) + " on the first " + std::to_string(zones) + " zones, steps " +
                      std::to_string(occupancy_steps + 1) + "-" + std::to_string(occupancy_steps + occupancy_extra_steps) +
                      " (ns per zone-step by blocks/SM: " + timings + ")";
  }

  std::string time_candidates(const std::vector<gpu::ImplicitCandidate>& candidates) {
    const std::size_t values = static_cast<std::size_t>(zones_) * static_cast<std::size_t>(context_.species_count);
    DeviceArray<double> start;
    start.resize(values);
    ZONEODE_GPU_CHECK(gpuMemcpy(start.data(), abundances_at_, values * sizeof(double), gpuMemcpyDeviceToDevice));
    std::vector<ZoneResult> results(static_cast<std::size_t>(zones_));
    gpuEvent_t begin, end;
    ZONEODE_GPU_CHECK(gpuEventCreate(&begin));
    ZONEODE_GPU_CHECK(gpuEventCreate(&end));
    const gpu::VariantOps* chosen = ops_;
    std::string best_name, timings;
    double best = 0.0;
    context_.zones = zones_;
    for (const gpu::ImplicitCandidate& c : candidates) {
      ops_ = c.ops;
      plan_ = plan();
      workspace_.resize(static_cast<std::size_t>(plan_.grid) * std::max<std::int64_t>(plan_.workspace_doubles, 1));
      gpu::KernelArgs args = batch_args();
      args.settings.max_steps = calibration_steps;
      ZONEODE_GPU_CHECK(gpuMemcpy(abundances_at_, start.data(), values * sizeof(double), gpuMemcpyDeviceToDevice));
      ZONEODE_GPU_CHECK(gpuMemset(next_zone_, 0, sizeof(unsigned long long)));
      ZONEODE_GPU_CHECK(gpuEventRecord(begin));
      ops_->launch(plan_, args);
      ZONEODE_GPU_CHECK(gpuGetLastError());
      ZONEODE_GPU_CHECK(gpuEventRecord(end));
      ZONEODE_GPU_CHECK(gpuEventSynchronize(end));
      float ms = 0.0f;
      ZONEODE_GPU_CHECK(gpuEventElapsedTime(&ms, begin, end));
      ZONEODE_GPU_CHECK(gpuMemcpy(results.data(), results_.data(), results.size() * sizeof(ZoneResult), gpuMemcpyDeviceToHost));
      std::int64_t steps = 0;
      for (const ZoneResult& r : results) steps += r.steps + r.rejected_steps;
      const double ns = steps > 0 ? 1e6 * ms / static_cast<double>(steps) : 1e300;
      char text[64];
      std::snprintf(text, sizeof text, "%s%s %.1f", timings.empty() ? "" : ", ", c.name, ns);
      timings += text;
      if (best_name.empty() || ns < best) best = ns, best_name = c.name;
    }
    (void)gpuEventDestroy(begin);
    (void)gpuEventDestroy(end);
    ZONEODE_GPU_CHECK(gpuMemcpy(abundances_at_, start.data(), values * sizeof(double), gpuMemcpyDeviceToDevice));
    ops_ = chosen;
    return best_name + " " + timings;
  }

  gpu::KernelArgs batch_args() const {
    gpu::KernelArgs args = args_;
    args.zones = zones_;
    args.temperature = temperature_at_;
    args.density = density_at_;
    args.abundances = abundances_at_;
    args.results = results_.data();
    args.workspace = workspace_.data();
    args.workspace_doubles = plan_.workspace_doubles;
    args.next_zone = next_zone_;
    return args;
  }

  // The variant's plan; for qss2 its kernel in the variant's shape (kernels/qss2/qss2_kernels.hip).
  gpu::LaunchPlan plan() const {
    const gpu::LaunchPlan variant = ops_->plan(context_);
    return context_.method == IntegrationMethod::qss2 ? gpu::plan_qss2(variant, context_) : variant;
  }

  const gpu::VariantOps* ops_;
  KernelVariant kernel_;
  std::int64_t batch_zones_;
  std::int64_t expected_zones_;  // the run's zones on this rank (the header's plan), 0 if unknown
  int device_ = 0;
  bool debug_ = false;
  bool self_heating_ = false;  // physics.self_heating: download() writes each zone's final T9
  std::string name_;
  std::string device_model_;     // the GPU's name (final's calibration key)
  bool calibrate_pending_ = false;
  bool occupancy_pending_ = false;
  std::string occupancy_note_;   // measure_occupancy: what it chose (notes())
  std::uint64_t network_hash_ = 0;
  std::string choice_note_;      // final's calibration: what it chose and why (notes())
  gpu::LaunchContext context_;
  gpu::LaunchPlan plan_;
  gpu::KernelArgs args_;
  DeviceArray<std::byte> rate_block_, step_block_;
  DeviceArray<double> temperature_, density_, abundances_, workspace_;
  // The batch's zone arrays: this backend's copies above, or the caller's device arrays.
  double* temperature_at_ = nullptr;
  double* density_at_ = nullptr;
  double* abundances_at_ = nullptr;
  DeviceArray<ZoneResult> results_;
  Uploads uploads_;
  const ElectronGasTableView* device_eos_table_ = nullptr;  // upload_electron_gas_table's, once
  const RateTableView* device_fit_table_ = nullptr;  // upload_rate_table's, per network
  std::uint64_t fit_table_rates_hash_ = 0;            // the rate block it was built from (Fnv1a)
  unsigned long long* next_zone_ = nullptr;
  std::int64_t zones_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(const BackendSelection& selection, const BackendOptions& options) {
  return std::make_unique<GpuBackend>(selection, options);
}

bool gpu_kernel_built(KernelVariant variant) { return variant_ops(IntegrationMethod::asymptotic, variant) != nullptr; }

namespace gpu {

std::string config_name(const KernelConfig& config) {
  return std::to_string(config.block) + "x" + std::to_string(config.group) + "x" + std::to_string(config.min_blocks);
}

std::string LaunchPlan::describe() const {
  if (!summary.empty()) return summary;
  const char* placement = stage_network ? "network and zone arrays in LDS"
                          : stage_zone  ? "zone arrays in LDS, network in global memory"
                                        : "everything in global memory";
  const std::string sums = group == 0 ? (resident ? "balanced term chunks, each thread's chunk and reactions in registers"
                                                  : "balanced term chunks")
                                      : std::to_string(group) + " lane(s) per species";
  const std::string bound = min_blocks > 0 ? ", launch bound " + std::to_string(min_blocks) + " blocks/SM" : "";
  return std::to_string(grid) + " blocks x " + std::to_string(block) + " threads" + bound +
         (physics ? ", physics instantiation" : "") + ", " + sums + ", " +
         std::to_string(shared_bytes) + " B dynamic LDS, placement: " + placement + (l1_note.empty() ? "" : "; " + l1_note);
}

}  // namespace gpu

}  // namespace zoneode
