// The GPU backend: implements Backend with one of the kernel variants of kernels/.
//
// Device: the rank's index within its node, modulo the devices visible, so that
// ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES set by Slurm or a wrapper are
// honoured and several ranks may share one GPU. Every runtime call is checked and fails with file,
// line and the runtime's message (the driver adds the rank). ZONEODE_GPU_DEBUG=1 synchronises and
// checks after every launch and poisons the results before it, so an unwritten zone shows.
#include "backends/gpu/gpu_backend.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "gpu_runtime.hpp"
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

const gpu::VariantOps* variant_ops(KernelVariant variant) {
  switch (variant) {
    case KernelVariant::baseline: return gpu::baseline_variant();
    case KernelVariant::lds: return gpu::lds_variant();
    case KernelVariant::wave: return gpu::wave_variant();
    case KernelVariant::tuned: return gpu::tuned_variant();
    case KernelVariant::final: return gpu::final_variant();
  }
  return nullptr;
}

class GpuBackend final : public Backend {
 public:
  GpuBackend(const BackendSelection& selection, const BackendOptions& options)
      : ops_(variant_ops(selection.kernel)), batch_zones_(options.batch_zones) {
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
    name_ = std::string(properties.name) + " (device " + std::to_string(device_) + " of " + std::to_string(devices) +
            ", PCI " + bus + ")";
    context_.multiprocessors = properties.multiProcessorCount;
    context_.max_shared_bytes = static_cast<std::size_t>(std::max(optin, 0));
    const char* debug = std::getenv("ZONEODE_GPU_DEBUG");
    debug_ = debug && std::string(debug) == "1";
  }

  BackendDescription describe() const override {
    return {"gpu", ops_->name, name_, std::string(ZONEODE_GPU_PLATFORM) + ", " + plan_.describe(), 1};
  }

  void prepare(const CompactNetwork& network, const IntegratorSettings& settings) override {
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
    context_.species_count = network.species_count();
    context_.reaction_count = network.reaction_count();
    context_.step_block_bytes = network.step_block_bytes();
    ZONEODE_GPU_CHECK(gpuMalloc(reinterpret_cast<void**>(&next_zone_), sizeof(unsigned long long)));
    if (ops_->chunk_threads) {
      const std::int64_t terms = network.flux_terms();
      const int threads = ops_->chunk_threads();
      int chunk_terms = static_cast<int>(std::max<std::int64_t>(1, (terms + threads - 1) / threads));
      // For the ladder's sweeps: the longest chunk, in terms, instead of one chunk per thread.
      if (const char* text = std::getenv("ZONEODE_CHUNK_TERMS"); text && *text) {
        chunk_terms = std::atoi(text);
        if (chunk_terms < 1) throw std::invalid_argument(std::string("ZONEODE_CHUNK_TERMS='") + text + "': expected an integer >= 1");
      }
      const gpu::TermChunks chunks = gpu::make_term_chunks(network.step_view(), chunk_terms);
      chunk_terms_.resize(chunks.terms.size());
      ZONEODE_GPU_CHECK(gpuMemcpy(chunk_terms_.data(), chunks.terms.data(), chunks.terms.size() * sizeof(std::uint32_t),
                                  gpuMemcpyHostToDevice));
      upload_ints(chunk_column_start_, chunks.column_start);
      upload_ints(chunk_length_, chunks.length);
      upload_ints(chunk_position_, chunks.position);
      upload_ints(creation_chunks_, chunks.creation_chunks);
      upload_ints(destruction_chunks_, chunks.destruction_chunks);
      args_.chunk_terms = chunk_terms_.data();
      args_.chunk_column_start = chunk_column_start_.data();
      args_.chunk_length = chunk_length_.data();
      args_.chunk_position = chunk_position_.data();
      args_.creation_chunks = creation_chunks_.data();
      args_.destruction_chunks = destruction_chunks_.data();
      args_.chunks = chunks.chunks();
      const std::vector<std::uint64_t> words = gpu::make_reaction_words(network.step_view());
      reaction_words_.resize(words.size());
      ZONEODE_GPU_CHECK(gpuMemcpy(reaction_words_.data(), words.data(), words.size() * sizeof(std::uint64_t),
                                  gpuMemcpyHostToDevice));
      args_.reaction_words = reaction_words_.data();
      context_.chunks = chunks.chunks();
    }
    // The plan for a full batch, for the run header; each batch plans again for its size.
    context_.zones = max_batch_zones();
    plan_ = ops_->plan(context_);
  }

  std::int64_t max_batch_zones() const override {
    if (batch_zones_ > 0) return batch_zones_;
    // Per zone: T9, rho, Y and the result; the per-block workspace is small beside it. Leave a
    // quarter of the free memory to the runtime and other ranks sharing the device.
    std::size_t free = 0, total = 0;
    ZONEODE_GPU_CHECK(gpuMemGetInfo(&free, &total));
    const std::size_t per_zone = 8 * (2 + static_cast<std::size_t>(context_.species_count)) + sizeof(ZoneResult);
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(free / 4 * 3 / per_zone / 2));
  }

  void upload(const ZoneSpan& zones) override {
    const std::size_t n = zones.count, S = zones.species_count;
    temperature_.resize(n);
    density_.resize(n);
    abundances_.resize(n * S);
    results_.resize(n);
    ZONEODE_GPU_CHECK(gpuMemcpy(temperature_.data(), zones.temperature, n * sizeof(double), gpuMemcpyHostToDevice));
    ZONEODE_GPU_CHECK(gpuMemcpy(density_.data(), zones.density, n * sizeof(double), gpuMemcpyHostToDevice));
    ZONEODE_GPU_CHECK(gpuMemcpy(abundances_.data(), zones.abundances, n * S * sizeof(double), gpuMemcpyHostToDevice));
    zones_ = static_cast<std::int64_t>(n);
  }

  void integrate() override {
    context_.zones = zones_;
    plan_ = ops_->plan(context_);
    workspace_.resize(static_cast<std::size_t>(plan_.grid) * std::max<std::int64_t>(plan_.workspace_doubles, 1));
    gpu::KernelArgs args = args_;
    args.zones = zones_;
    args.temperature = temperature_.data();
    args.density = density_.data();
    args.abundances = abundances_.data();
    args.results = results_.data();
    args.workspace = workspace_.data();
    args.workspace_doubles = plan_.workspace_doubles;
    args.next_zone = next_zone_;
    ZONEODE_GPU_CHECK(gpuMemset(next_zone_, 0, sizeof(unsigned long long)));
    if (debug_) ZONEODE_GPU_CHECK(gpuMemset(results_.data(), 0xff, zones_ * sizeof(ZoneResult)));
    ops_->launch(plan_, args);
    ZONEODE_GPU_CHECK(gpuGetLastError());
    ZONEODE_GPU_CHECK(gpuDeviceSynchronize());  // integrate() is blocking
  }

  void download(const ZoneSpan& zones) override {
    const std::size_t n = zones.count, S = zones.species_count;
    ZONEODE_GPU_CHECK(gpuMemcpy(zones.abundances, abundances_.data(), n * S * sizeof(double), gpuMemcpyDeviceToHost));
    ZONEODE_GPU_CHECK(gpuMemcpy(zones.results, results_.data(), n * sizeof(ZoneResult), gpuMemcpyDeviceToHost));
    if (debug_) {
      for (std::size_t z = 0; z < n; ++z) {
        const int status = zones.results[z].status;
        if (status < 0 || status >= zone_status_count)
          throw std::runtime_error("ZONEODE_GPU_DEBUG: zone " + std::to_string(z) + " of the batch was not written");
      }
    }
  }

  static void upload_ints(DeviceArray<std::int32_t>& to, const std::vector<std::int32_t>& from) {
    to.resize(from.size());
    ZONEODE_GPU_CHECK(gpuMemcpy(to.data(), from.data(), from.size() * sizeof(std::int32_t), gpuMemcpyHostToDevice));
  }

  ~GpuBackend() override {
    if (next_zone_) (void)gpuFree(next_zone_);
  }

 private:
  const gpu::VariantOps* ops_;
  std::int64_t batch_zones_;
  int device_ = 0;
  bool debug_ = false;
  std::string name_;
  gpu::LaunchContext context_;
  gpu::LaunchPlan plan_;
  gpu::KernelArgs args_;
  DeviceArray<std::byte> rate_block_, step_block_;
  DeviceArray<double> temperature_, density_, abundances_, workspace_;
  DeviceArray<ZoneResult> results_;
  DeviceArray<std::uint32_t> chunk_terms_;
  DeviceArray<std::uint64_t> reaction_words_;
  DeviceArray<std::int32_t> chunk_column_start_, chunk_length_, chunk_position_, creation_chunks_, destruction_chunks_;
  unsigned long long* next_zone_ = nullptr;
  std::int64_t zones_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_gpu_backend(const BackendSelection& selection, const BackendOptions& options) {
  return std::make_unique<GpuBackend>(selection, options);
}

namespace gpu {

TermChunks make_term_chunks(const StepView& network, int chunk_terms) {
  // The chunks in list order: [first term, end) in one of the two lists.
  struct Chunk {
    const reaction_index_t* reaction;
    const stoich_factor_t* factor;
    std::int32_t begin, end;
  };
  std::vector<Chunk> list;
  TermChunks chunks;
  auto cut = [&](const std::int32_t* offsets, const reaction_index_t* reaction, const stoich_factor_t* factor,
                 std::vector<std::int32_t>& per_species) {
    for (int i = 0; i < network.species_count; ++i) {
      per_species.push_back(static_cast<std::int32_t>(list.size()));
      for (std::int32_t k = offsets[i]; k < offsets[i + 1]; k += chunk_terms)
        list.push_back({reaction, factor, k, std::min<std::int32_t>(k + chunk_terms, offsets[i + 1])});
    }
    per_species.push_back(static_cast<std::int32_t>(list.size()));
  };
  cut(network.creation_offsets, network.creation_reaction, network.creation_factor, chunks.creation_chunks);
  cut(network.destruction_offsets, network.destruction_reaction, network.destruction_factor,
      chunks.destruction_chunks);
  // Longest first; a stable sort keeps list order among equals.
  std::vector<std::int32_t> order(list.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::int32_t>(k);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return list[a].end - list[a].begin > list[b].end - list[b].begin;
  });
  chunks.position.resize(list.size());
  for (std::size_t c = 0; c < order.size(); ++c) {
    chunks.position[order[c]] = static_cast<std::int32_t>(c);
    chunks.length.push_back(list[order[c]].end - list[order[c]].begin);
  }
  const std::int32_t longest = chunks.length.empty() ? 0 : chunks.length.front();
  chunks.column_start.push_back(0);
  for (std::int32_t j = 0; j < longest; ++j) {
    for (std::size_t c = 0; c < order.size() && chunks.length[c] > j; ++c) {
      const Chunk& chunk = list[order[c]];
      const std::int32_t k = chunk.begin + j;
      chunks.terms.push_back(static_cast<std::uint32_t>(chunk.reaction[k]) |
                             static_cast<std::uint32_t>(chunk.factor[k]) << chunk_term_factor_shift);
    }
    chunks.column_start.push_back(static_cast<std::int32_t>(chunks.terms.size()));
  }
  return chunks;
}

std::vector<std::uint64_t> make_reaction_words(const StepView& network) {
  static_assert(max_reactants_per_reaction * ReactionWords::species_bits <= ReactionWords::count_shift);
  if (network.species_count > ReactionWords::max_species)
    throw std::invalid_argument("kernel final: at most " + std::to_string(ReactionWords::max_species) +
                                " species (this network has " + std::to_string(network.species_count) + ")");
  std::vector<std::uint64_t> words(network.reaction_count);
  for (int r = 0; r < network.reaction_count; ++r) {
    std::uint64_t word = static_cast<std::uint64_t>(network.reactant_count[r]) << ReactionWords::count_shift;
    if (network.reaction_flags[r] & reaction_flag_electron_capture) word |= std::uint64_t{1} << ReactionWords::capture_shift;
    for (int k = 0; k < network.reactant_count[r]; ++k)
      word |= static_cast<std::uint64_t>(network.reactant_species[max_reactants_per_reaction * r + k])
              << (ReactionWords::species_bits * k);
    words[r] = word;
  }
  return words;
}

KernelConfig kernel_config(KernelConfig defaults) {
  const char* text = std::getenv("ZONEODE_KERNEL_CONFIG");
  if (!text || !*text) return defaults;
  KernelConfig config{0, 0, 0};
  char x = 0, y = 0, rest = 0;
  const int read = std::sscanf(text, "%d%c%d%c%d%c", &config.block, &x, &config.group, &y, &config.min_blocks, &rest);
  if (!((read == 3 && x == 'x') || (read == 5 && x == 'x' && y == 'x')))
    throw std::invalid_argument(std::string("ZONEODE_KERNEL_CONFIG='") + text +
                                "': expected BLOCKxGROUP or BLOCKxGROUPxMIN_BLOCKS, e.g. 256x8 or 128x0x4");
  return config;
}

std::string LaunchPlan::describe() const {
  const char* placement = stage_network ? "network and zone arrays in LDS"
                          : stage_zone  ? "zone arrays in LDS, network in global memory"
                                        : "everything in global memory";
  const std::string sums = group == 0 ? "balanced term chunks" : std::to_string(group) + " lane(s) per species";
  const std::string bound = min_blocks > 0 ? ", launch bound " + std::to_string(min_blocks) + " blocks/SM" : "";
  return std::to_string(grid) + " blocks x " + std::to_string(block) + " threads" + bound + ", " + sums + ", " +
         std::to_string(shared_bytes) + " B dynamic LDS, placement: " + placement;
}

// Variants not compiled into this binary (ZONEODE_KERNEL) answer null.
#if !ZONEODE_KERNEL_BASELINE
const VariantOps* baseline_variant() { return nullptr; }
#endif
#if !ZONEODE_KERNEL_LDS
const VariantOps* lds_variant() { return nullptr; }
#endif
#if !ZONEODE_KERNEL_WAVE
const VariantOps* wave_variant() { return nullptr; }
#endif
#if !ZONEODE_KERNEL_TUNED
const VariantOps* tuned_variant() { return nullptr; }
#endif
#if !ZONEODE_KERNEL_FINAL
const VariantOps* final_variant() { return nullptr; }
#endif

}  // namespace gpu

}  // namespace zoneode
