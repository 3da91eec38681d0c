// implicit, network-specialised (`run.kernel: generated` with `integrator.method: implicit`; issue 36).
//
// What it changes against baseline (one zone per thread, implicit_thread.hip) and why: the linear
// algebra - M's assembly, the sparse LU and the solves, two thirds of a step's flops on s150 - is
// straight-line code generated for the run's network (src/integrators/implicit_codegen.*), every
// index a literal, the LU values in the thread's local memory. baseline reads an index array for
// every update (a dependent load before each multiply-add: latency-bound at 0.1 of the device
// memory's bandwidth); here no index is read and the compiler keeps each LU row in registers while
// it is eliminated. One zone per thread because literal indices need every lane of a wave to run
// the same instructions: a team of threads on one zone would give each lane other literals
// (divergence), so the team kernels (lds, wave) keep their schedule tables.
//
// Prepare, once per run: emit the network's code, compile it with NVRTC for this device, link it
// with the kernel's fixed part (implicit_generated_device.hip, compiled when building as
// relocatable code and embedded) by nvJitLink, load it (cudaLibraryLoadData). The linked code is
// cached on disk (src/common/code_cache.*: $ZONEODE_KERNEL_CACHE, else ~/.cache/zoneode), keyed by
// the generated text, the generator's, NVRTC's and nvJitLink's versions, the architecture and the
// options; ranks sharing the folder compile once. Where anything of that fails or is missing (a
// HIP build: hipRTC without a device linker in HIP 5.2, not done yet; a CUDA build without NVRTC),
// the run takes `final`'s choice among the static implicit kernels and says why in one line.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runtime/gpu_runtime.hpp"
#include "common/code_cache.hpp"
#include "common/fnv1a.hpp"
#include "implicit_generated_args.hpp"
#include "implicit_kernels.hpp"
#include "implicit_thread.hpp"
#include "integrators/implicit_codegen.hpp"
#include "integrators/implicit_structure.hpp"

#if defined(__CUDACC__) && defined(ZONEODE_HAVE_NVRTC)
#include <nvJitLink.h>
#include <nvrtc.h>
#define ZONEODE_GENERATED_RTC 1
// The kernel's fixed part, relocatable, for the built architectures (kernels/CMakeLists.txt).
extern const unsigned char zoneode_implicit_generated_fatbin[];
extern const unsigned long long zoneode_implicit_generated_fatbin_size;
#endif

namespace zoneode::gpu {

namespace {

constexpr int generated_block = 64;       // a multiple of either wave size
constexpr int generated_min_blocks = 8;   // as baseline: caps the registers at 128 on NVIDIA

// The run's generated kernel (one network per run), or why there is none.
struct GeneratedKernel {
  bool ready = false;
  std::string why_not;   // the fallback's reason
  std::string note;      // compiled or loaded, from where, how long
#if ZONEODE_GENERATED_RTC
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
#endif
  GeneratedKernelArgs* device_arguments = nullptr;
  int fallback_kernel = implicit_thread_kernel_id;
};
GeneratedKernel& generated_kernel() {
  static GeneratedKernel state;
  return state;
}

#if ZONEODE_GENERATED_RTC
std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
}
std::string nvjitlink_version() {
  unsigned major = 0, minor = 0;
  nvJitLinkVersion(&major, &minor);
  return "nvjitlink " + std::to_string(major) + "." + std::to_string(minor);
}

// The whole run-time program: the generated linear algebra, its two entry points over strided
// vectors (the workspace's interleaved arrays), and the kernel entry that owns the LU array.
std::string generated_program(const std::string& linear_algebra) {
  return "#define ZONEODE_GEN_HD __device__\n#define ZONEODE_GEN_NOINLINE __noinline__\n" + linear_algebra +
         "namespace zoneode_generated {\n"
         "struct StridedIn { const double* data; long long stride;\n"
         "  __device__ double operator[](long long i) const { return data[i * stride]; } };\n"
         "struct StridedOut { double* data; long long stride;\n"
         "  __device__ double& operator[](long long i) const { return data[i * stride]; } };\n"
         "}  // namespace zoneode_generated\n"
         "extern \"C\" __device__ void zoneode_generated_factor(double* lu, const double* jacobian, long long stride,\n"
         "                                                    double diagonal) {\n"
         "  zoneode_generated::assemble_matrix(lu, zoneode_generated::StridedIn{jacobian, stride}, diagonal);\n"
         "  zoneode_generated::factor_values(lu);\n}\n"
         "extern \"C\" __device__ void zoneode_generated_solve(const double* lu, const double* b, long long b_stride,\n"
         "                                                   double* x, long long x_stride) {\n"
         "  zoneode_generated::solve_values(lu, zoneode_generated::StridedIn{b, b_stride},\n"
         "                                  zoneode_generated::StridedOut{x, x_stride});\n}\n"
         "extern \"C\" __device__ void zoneode_generated_zones(const void* arguments, double* lu);\n"
         "extern \"C\" __global__ void __launch_bounds__(" +
         std::to_string(generated_block) + ", " + std::to_string(generated_min_blocks) +
         ") zoneode_implicit_generated(const void* arguments) {\n"
         "  double lu[zoneode_generated::filled_count];\n  zoneode_generated_zones(arguments, lu);\n}\n";
}

// One NVRTC program: a relocatable cubin for the options' architecture.
std::string nvrtc_compile(const std::string& source, const std::string& name, const std::vector<std::string>& options) {
  nvrtcProgram handle = nullptr;
  if (nvrtcCreateProgram(&handle, source.c_str(), name.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS)
    throw std::runtime_error("nvrtcCreateProgram failed");
  std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> owned(&handle, [](nvrtcProgram* p) { nvrtcDestroyProgram(p); });
  std::vector<const char*> raw;
  for (const std::string& option : options) raw.push_back(option.c_str());
  const nvrtcResult compiled = nvrtcCompileProgram(handle, static_cast<int>(raw.size()), raw.data());
  if (compiled != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(handle, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(handle, log.data());
    throw std::runtime_error(std::string("NVRTC: ") + nvrtcGetErrorString(compiled) + ": " + log.substr(0, 400));
  }
  std::size_t cubin_size = 0;
  nvrtcGetCUBINSize(handle, &cubin_size);
  std::string cubin(cubin_size, '\0');
  nvrtcGetCUBIN(handle, cubin.data());
  return cubin;
}

// The programs compiled on as many threads as the host has cores (NVRTC programs are independent;
// each is one thread's work), then nvJitLink with the embedded fixed part: the linked cubin.
std::string compile_and_link(const std::vector<std::string>& programs, const std::string& arch,
                             const std::vector<std::string>& options) {
  std::vector<std::string> cubins(programs.size());
  std::vector<std::string> errors(programs.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t k; (k = next++) < programs.size();) {
      try {
        cubins[k] = nvrtc_compile(programs[k], "zoneode_generated_" + std::to_string(k) + ".cu", options);
      } catch (const std::exception& error) {
        errors[k] = error.what();
      }
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), programs.size()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  for (const std::string& error : errors)
    if (!error.empty()) throw std::runtime_error(error);

  const std::string arch_option = "-arch=" + arch;
  const char* link_options[] = {arch_option.c_str()};
  nvJitLinkHandle link = nullptr;
  if (nvJitLinkCreate(&link, 1, link_options) != NVJITLINK_SUCCESS) throw std::runtime_error("nvJitLinkCreate failed");
  std::unique_ptr<nvJitLinkHandle, void (*)(nvJitLinkHandle*)> owned_link(&link, [](nvJitLinkHandle* l) { nvJitLinkDestroy(l); });
  auto check = [&](nvJitLinkResult result, const char* what) {
    if (result == NVJITLINK_SUCCESS) return;
    std::size_t size = 0;
    nvJitLinkGetErrorLogSize(link, &size);
    std::string log(size, '\0');
    if (size) nvJitLinkGetErrorLog(link, log.data());
    throw std::runtime_error(std::string("nvJitLink ") + what + " failed (" + std::to_string(result) + "): " + log.substr(0, 400));
  };
  check(nvJitLinkAddData(link, NVJITLINK_INPUT_FATBIN, zoneode_implicit_generated_fatbin,
                         static_cast<std::size_t>(zoneode_implicit_generated_fatbin_size), "implicit_generated_device"),
        "adding the kernel's fixed part");
  for (std::size_t k = 0; k < cubins.size(); ++k)
    check(nvJitLinkAddData(link, NVJITLINK_INPUT_CUBIN, cubins[k].data(), cubins[k].size(),
                           ("zoneode_generated_" + std::to_string(k)).c_str()),
          "adding the generated code");
  check(nvJitLinkComplete(link), "linking");
  std::size_t linked_size = 0;
  nvJitLinkGetLinkedCubinSize(link, &linked_size);
  std::string linked(linked_size, '\0');
  nvJitLinkGetLinkedCubin(link, linked.data());
  return linked;
}

void build_generated_kernel(const CompactNetwork& network, GeneratedKernel& state) {
  if (std::getenv("ZONEODE_GPU_DEBUG_NO_RTC"))  // a debugging switch, and the fallback's test
    throw std::runtime_error("run-time compilation switched off (ZONEODE_GPU_DEBUG_NO_RTC)");
  const ImplicitStructure structure(network);
  CodegenSummary summary;
  std::vector<std::string> parts;
  CodegenOptions codegen;
  codegen.separate_parts = &parts;
  std::vector<std::string> programs = {generated_program(emit_implicit_linear_algebra(structure, codegen, &summary))};
  for (const std::string& part : parts)
    programs.push_back("#define ZONEODE_GEN_HD __device__\n#define ZONEODE_GEN_NOINLINE __noinline__\n" + part);
  int device = 0;
  cudaDeviceProp properties{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&properties, device) != cudaSuccess)
    throw std::runtime_error("cannot read the device's properties");
  const std::string arch = "sm_" + std::to_string(properties.major) + std::to_string(properties.minor);
  // -maxrregcount: a relocatable function's registers are fixed when it is compiled, and the entry's
  // launch bound (64 x 8 per SM) allows 128.
  const std::vector<std::string> options = {"-arch=" + arch, "-rdc=true", "-fmad=false", "-std=c++17", "-maxrregcount=128"};
  Fnv1a source_hash;
  for (const std::string& program : programs) source_hash.bytes(program.data(), program.size());
  std::string key = "implicit generated; generator " + std::to_string(implicit_codegen_version) + "; " + nvrtc_version() +
                    "; " + nvjitlink_version() + "; " + arch + "; fixed part " +
                    std::to_string(zoneode_implicit_generated_fatbin_size) + " B";
  Fnv1a fixed_hash;
  fixed_hash.bytes(zoneode_implicit_generated_fatbin, static_cast<std::size_t>(zoneode_implicit_generated_fatbin_size));
  key += " " + std::to_string(fixed_hash.value) + "; source " + std::to_string(source_hash.value) + ";";
  for (const std::string& option : options) key += " " + option;
  const CachedCode code = cached_compile(code_cache_directory(), key, [&] { return compile_and_link(programs, arch, options); });
  if (cudaLibraryLoadData(&state.library, code.payload.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) != cudaSuccess)
    throw std::runtime_error(std::string("loading the linked code: ") + cudaGetErrorString(cudaGetLastError()));
  if (cudaLibraryGetKernel(&state.kernel, state.library, "zoneode_implicit_generated") != cudaSuccess)
    throw std::runtime_error("the linked code has no kernel zoneode_implicit_generated");
  if (cudaMalloc(&state.device_arguments, sizeof(GeneratedKernelArgs)) != cudaSuccess)
    throw std::runtime_error("cudaMalloc of the kernel's arguments failed");
  char counts[200];
  std::snprintf(counts, sizeof counts, "%d species, %lld LU values, %lld updates, %lld statements in %d parts",
                summary.species, static_cast<long long>(summary.filled), static_cast<long long>(summary.updates),
                static_cast<long long>(summary.statements), summary.factor_parts);
  char time[64];
  std::snprintf(time, sizeof time, "%.1f s", code.seconds);
  state.note = std::string("generated code (") + counts + "): " +
               (code.compiled ? std::string("compiled in ") + time + " (" + nvrtc_version() + ", " + arch + ", " +
                                    std::to_string(programs.size()) + " programs on up to " +
                                    std::to_string(std::thread::hardware_concurrency()) + " threads), "
                              : std::string()) +
               code.note;
}
#endif

}  // namespace

bool implicit_generated_ready() { return generated_kernel().ready; }
std::string implicit_generated_why_not() { return generated_kernel().why_not; }

void prepare_implicit_generated(const CompactNetwork& network, DeviceUploads& uploads, KernelArgs& args,
                                LaunchContext& context) {
  prepare_implicit_generated_quietly(network, uploads, args, context);
  const GeneratedKernel& state = generated_kernel();
  if (!state.ready)
    std::fprintf(stderr, "zoneode: run.kernel generated: no generated kernel (%s); running the static implicit kernels' "
                 "automatic choice (final) instead\n", state.why_not.c_str());
}

void prepare_implicit_generated_quietly(const CompactNetwork& network, DeviceUploads& uploads, KernelArgs& args,
                                        LaunchContext& context) {
  prepare_implicit(network, uploads, args, context);
  GeneratedKernel& state = generated_kernel();
  // A backend prepared again (the library's burners: a new time span, a new burner) releases the
  // previous network's code and arguments first; the last ones go with the process.
#if ZONEODE_GENERATED_RTC
  if (state.device_arguments) (void)cudaFree(state.device_arguments);
  if (state.library) (void)cudaLibraryUnload(state.library);
#endif
  state = GeneratedKernel{};
  state.fallback_kernel = implicit_team_fits_on_chip(context) ? implicit_team_kernel_id : implicit_thread_kernel_id;
#if ZONEODE_GENERATED_RTC
  try {
    build_generated_kernel(network, state);
    state.ready = true;
  } catch (const std::exception& error) {
    state.why_not = error.what();
  }
#elif defined(__CUDACC__)
  state.why_not = "this CUDA build has no NVRTC or nvJitLink (configure found none)";
#else
  state.why_not = "run-time compilation is not implemented for HIP builds yet (HIP 5.2's hipRTC has no device linker)";
#endif
}

LaunchPlan plan_implicit_generated(const LaunchContext& c) {
  const GeneratedKernel& state = generated_kernel();
  if (!state.ready) {
    LaunchPlan plan = state.fallback_kernel == implicit_team_kernel_id ? plan_implicit_team(c) : plan_implicit_thread(c);
    plan.summary = "generated kernel unavailable (" + state.why_not + "): " + plan.describe();
    return plan;
  }
  LaunchPlan plan;
#if ZONEODE_GENERATED_RTC
  int per_multiprocessor = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, reinterpret_cast<const void*>(state.kernel),
                                                    generated_block, 0) != cudaSuccess ||
      per_multiprocessor < 1)
    per_multiprocessor = 1;
  const std::int64_t resident = static_cast<std::int64_t>(per_multiprocessor) * c.multiprocessors * generated_block;
  const std::int64_t slot_doubles = implicit_slot_doubles(c.implicit_layout, c.species_count);
  const std::uint64_t slot_bytes = 8 * static_cast<std::uint64_t>(slot_doubles);
  const ImplicitSlots slots = plan_implicit_slots(c.zones, generated_block, resident, c.multiprocessors,
                                                  c.workspace_budget_bytes, slot_bytes, c.free_bytes, c.species_count);
  plan.block = generated_block;
  plan.grid = static_cast<int>(slots.slots / generated_block);
  plan.workspace_doubles = generated_block * slot_doubles;
  plan.kernel = implicit_generated_kernel_id;
  plan.summary = std::to_string(slots.slots) + " thread slots (" + std::to_string(plan.grid) + " blocks x " +
                 std::to_string(plan.block) + ", " + std::to_string(resident) +
                 " resident), one zone per thread, network-specialised linear algebra; " + state.note;
#endif
  return plan;
}

void launch_implicit_generated(const LaunchPlan& plan, const KernelArgs& args) {
  const GeneratedKernel& state = generated_kernel();
  if (plan.kernel == implicit_team_kernel_id) return launch_implicit_team(plan, args);
  if (plan.kernel == implicit_thread_kernel_id) return launch_implicit_thread(plan, args);
#if ZONEODE_GENERATED_RTC
  GeneratedKernelArgs a;
  a.rates = args.rates;
  a.step = args.step;
  a.implicit = args.implicit;
  a.settings = args.settings;
  a.zones = args.zones;
  a.temperature = args.temperature;
  a.density = args.density;
  a.abundances = args.abundances;
  a.results = args.results;
  a.workspace = args.workspace;
  a.next_zone = args.next_zone;
  cudaMemcpy(state.device_arguments, &a, sizeof a, cudaMemcpyHostToDevice);
  const void* pointer = state.device_arguments;
  void* parameters[] = {&pointer};
  cudaLaunchKernel(reinterpret_cast<const void*>(state.kernel), dim3(plan.grid), dim3(plan.block), parameters, 0, 0);
#else
  (void)state;
#endif
}

}  // namespace zoneode::gpu
