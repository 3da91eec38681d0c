// The integration interface every backend implements, and the one factory that makes them.
//
// A run makes one backend (method x backend x kernel variant, from the deck), prepares it once
// with the network and settings, then for every batch of zones: upload, integrate, download.
// The figure of merit times integrate() alone; upload and download are reported beside it.
// Adding a backend: a folder under src/backends/, a class implementing Backend, and one case in
// make_backend() (backends/factory.cpp); kernels/README.md walks through it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/choices.hpp"
#include "integrators/settings.hpp"
#include "network/compact.hpp"
#include "zones/zone_batch.hpp"

namespace zoneode {

// Which method, backend and kernel variant a run uses (deck `integrator.method`, `run.backend`,
// `run.kernel`).
struct BackendSelection {
  IntegrationMethod method = IntegrationMethod::asymptotic;
  BackendKind backend = BackendKind::cpu;
  KernelVariant kernel = KernelVariant::final;  // GPU only
};

struct BackendOptions {
  int threads = 0;                 // CPU: OpenMP threads (0: OpenMP's default)
  int local_rank = 0;              // GPU: this rank's index among the ranks of its node
  std::int64_t batch_zones = 0;    // GPU: zones per batch (0: as many as device memory allows)
  KernelTuning tuning;             // GPU: the variant's launch choices from the deck
  std::int64_t zones = 0;          // GPU: zones this rank will integrate, for the launch the run header shows
};

// What ran, for the run header, the summary and the state files' provenance.
struct BackendDescription {
  std::string backend;         // "cpu", "gpu"
  std::string kernel_variant;  // "none" on the CPU
  std::string device;          // "host", or the GPU's name and PCI bus id
  std::string launch;          // threads, or the launch geometry
  int threads = 1;             // host threads integrating (CPU backend)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendDescription describe() const = 0;
  // Once per run, before any batch.
  virtual void prepare(const CompactNetwork& network, const IntegratorSettings& settings) = 0;
  // The most zones one batch may hold; the driver splits larger sets.
  virtual std::int64_t max_batch_zones() const = 0;
  virtual void upload(const ZoneSpan& zones) = 0;
  // Integrates every zone of the uploaded batch; blocking (returns when all are done).
  virtual void integrate() = 0;
  // Abundances and results back into `zones` (the span given to upload).
  virtual void download(const ZoneSpan& zones) = 0;
  // The burn's time span changed (the library's burners: each burn its own dt) while the rest of
  // the settings given to prepare() stay: true where the backend took it without a new prepare(),
  // false where the caller must prepare() again with the new settings.
  virtual bool set_time_span(double /*start_time*/, double /*end_time*/) { return false; }
  // Whether upload()/download() take spans whose T9, rho and Y are device pointers
  // (ZoneSpan::device_arrays; the library's ZONEODE_DEVICE_MEMORY): the GPU backend does.
  virtual bool takes_device_arrays() const { return false; }
  // For such a span: "" when its arrays are memory the backend can integrate in place, else why
  // not (a host pointer, another GPU's memory).
  virtual std::string device_arrays_refusal(const ZoneSpan& /*zones*/) const { return "host arrays only"; }
  // count doubles from a device array of the backend's GPU, for checks made on the host.
  virtual std::vector<double> read_device_doubles(const double* /*device*/, std::int64_t /*count*/) const {
    return {};
  }
  // What the backend decided while integrating that the run should report (the GPU's implicit
  // final: the kernel its calibration chose, and the timings); "" where nothing.
  virtual std::string notes() const { return {}; }
};

// Time spent in integrate() and in upload() + download(), added up over batches [s].
struct BatchSeconds {
  double integrate = 0.0;
  double transfer = 0.0;
};

// Integrates every zone of `zones`, at most max_batch_zones() at a time (upload, integrate,
// download each batch), adding the time taken to `seconds`. Makes no MPI call. The program's run
// loop and the library's burns both integrate through it (one integration path).
void integrate_in_batches(Backend& backend, const ZoneSpan& zones, BatchSeconds& seconds);

// Throws std::invalid_argument when the combination is not built or does not exist.
std::unique_ptr<Backend> make_backend(const BackendSelection& selection, const BackendOptions& options);

// The GPU kernel variants built into this binary, in list order (none without a GPU backend).
std::vector<KernelVariant> built_kernel_variants();

}  // namespace zoneode
