// The asymptotic and qss2 team kernels' bodies (kernels/asymptotic/kernel_common.hpp's
// run_zones with zone_team.hpp's BlockTeam, LaneGroupSums, ChunkSums and integrators, and
// kernels/qss2/zone_team_qss2.hpp), run on the CPU: a block's threads are fibers, each running the
// kernel body, that meet at the block's barriers and at their wave's shuffles, with waves of 64
// lanes (gfx90a, which no machine here runs) or 32 (NVIDIA). The shuffles are HIP's
// (__shfl_down, __shfl_xor, __shfl with a width), lane by lane. Checks, for the configurations
// that wave, tuned, final and qss2 launch (their block sizes, reductions, sums and placements):
// - every zone matches the CPU backend's serial method within 1e-12, with the same steps;
// - the result is the same bits whether a phase runs its threads forward or in reverse (no thread
//   reads what another writes between two barriers);
// - every lane of a wave meets at the same shuffle, every thread of the block at the same barrier
//   (the emulation stops with a message otherwise);
// - a planted wave-64 fault (the shuffle width fixed at 32, as a port of CUDA code might have it)
//   is caught at 64 lanes and not at 32: what a wave of 64 lanes adds is checked.
#include <gtest/gtest.h>
#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "asymptotic/kernel_common.hpp"
#include "integrators/method_data.hpp"
#include "integrators/methods.hpp"
#include "network/analytic.hpp"
#include "network/compact.hpp"
#include "network/generator.hpp"
#include "network/reaclib.hpp"
#include "network_testing.hpp"
#include "team_testing.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define ZONEODE_EMULATION_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ZONEODE_EMULATION_ASAN 1
#endif
#endif
#if defined(ZONEODE_EMULATION_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

// A fiber switch without a system call: glibc's swapcontext saves and restores the signal mask
// (a system call each way: 12.8 us per round trip on the shared VM, minutes for this test), so on
// x86-64 the switch is these few instructions (callee-saved registers, MXCSR and the x87 control
// word, on the stack being left); elsewhere swapcontext.
#if defined(__x86_64__)
extern "C" void zoneode_fiber_switch(void** save_sp, void* load_sp);
asm(R"(
.text
.globl zoneode_fiber_switch
.type zoneode_fiber_switch,@function
zoneode_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size zoneode_fiber_switch,.-zoneode_fiber_switch
)");
#endif

namespace zoneode {
namespace {

// ---- the emulated block ---------------------------------------------------------------------

enum class Order { forward, reverse };  // the order a phase runs its runnable threads in
enum class Collective { none, barrier, shuffle_down, shuffle_xor, shuffle_from, done };

// A block of `threads` fibers in waves of `wave` lanes, one OS thread. A fiber runs until it
// reaches a collective (a barrier, a shuffle) or its end; when every thread of the block waits at
// a barrier, or every lane of a wave at a shuffle, the collective completes and they run on.
class EmulatedBlock {
 public:
  EmulatedBlock(int threads, int wave, Order order)
      : threads_(threads), wave_(wave), order_(order), lanes_(threads), before_(wave) {
    static std::vector<std::unique_ptr<char[]>> stacks;  // one per lane, kept for every later block
    while (stacks.size() < lanes_.size()) stacks.emplace_back(new char[stack_bytes]);  // not zeroed: not touched
    for (std::size_t t = 0; t < lanes_.size(); ++t) lanes_[t].stack = stacks[t].get();
  }

  // Every thread runs body(); returns when all have finished.
  void run(const std::function<void()>& body) {
    body_ = &body;
    EmulatedBlock* outer = active;
    active = this;
    for (int t = 0; t < threads_; ++t) {
      Lane& lane = lanes_[t];
      lane.op = Collective::none;
      lane.runnable = true;
#if defined(__x86_64__)
      // The frame zoneode_fiber_switch pops: MXCSR and control word (the defaults), six registers,
      // then lane_main as the return address, at a 16-byte boundary (lane_main's entry sees the
      // stack as after a call).
      auto top = reinterpret_cast<std::uintptr_t>(lane.stack + stack_bytes) & ~std::uintptr_t{15};
      auto* frame = reinterpret_cast<std::uint64_t*>(top) - 2;
      frame[0] = reinterpret_cast<std::uint64_t>(&EmulatedBlock::lane_main);
      frame -= 6;
      std::fill(frame, frame + 6, 0);
      frame -= 1;
      frame[0] = 0x1F80u | (std::uint64_t{0x037Fu} << 32);
      lane.sp = frame;
#else
      getcontext(&lane.context);
      lane.context.uc_stack.ss_sp = lane.stack;
      lane.context.uc_stack.ss_size = stack_bytes;
      lane.context.uc_link = &scheduler_;
      makecontext(&lane.context, &EmulatedBlock::lane_main, 0);
#endif
    }
    for (;;) {
      bool ran = false;
      for (int k = 0; k < threads_; ++k) {
        const int t = order_ == Order::forward ? k : threads_ - 1 - k;
        if (!lanes_[t].runnable) continue;
        lanes_[t].runnable = false;
        ran = true;
        current_ = t;
        switch_to_lane(lanes_[t]);
      }
      if (complete_collectives()) continue;
      if (!ran) break;
    }
    active = outer;
    for (const Lane& lane : lanes_)
      if (lane.op != Collective::done) throw std::logic_error("emulated block: threads left waiting (" + failure_ + ")");
  }

  int rank() const { return current_; }

  // A block barrier; returns whether `predicate` was true on any thread (__syncthreads_or).
  bool barrier(bool predicate) {
    Lane& lane = lanes_[current_];
    lane.op = Collective::barrier;
    lane.predicate = predicate;
    wait();
    return lane.predicate;
  }

  // HIP's shuffles (hip/amd_detail/amd_warp_functions.h), evaluated when the whole wave is there.
  double shuffle(Collective op, double value, int argument, int width) {
    Lane& lane = lanes_[current_];
    lane.op = op;
    lane.value = value;
    lane.argument = argument;
    lane.width = width;
    wait();
    return lane.value;
  }

  static EmulatedBlock* active;  // the block whose fibers run now

 private:
#if defined(ZONEODE_EMULATION_ASAN)
  static constexpr std::size_t stack_bytes = std::size_t{1} << 20;  // ASan's redzones
#else
  static constexpr std::size_t stack_bytes = std::size_t{1} << 17;
#endif
  struct Lane {
    ucontext_t context;  // without the x86-64 switch
    void* sp = nullptr;  // with it: the saved stack pointer
    char* stack = nullptr;  // stack_bytes
    Collective op = Collective::none;
    bool runnable = false, predicate = false;
    double value = 0.0;
    int argument = 0, width = 0;
    void* fake_stack = nullptr;  // ASan's, while the fiber is switched out
  };

  static void lane_main() {
    EmulatedBlock& block = *active;
#if defined(ZONEODE_EMULATION_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, &block.scheduler_stack_, &block.scheduler_stack_size_);
#endif
    (*block.body_)();
    Lane& lane = block.lanes_[block.current_];
    lane.op = Collective::done;
#if defined(ZONEODE_EMULATION_ASAN)
    __sanitizer_start_switch_fiber(nullptr, block.scheduler_stack_, block.scheduler_stack_size_);
#endif
#if defined(__x86_64__)
    zoneode_fiber_switch(&lane.sp, block.scheduler_sp_);  // never resumed
    std::abort();
#endif
  }  // ucontext: uc_link, back to the scheduler

  void switch_to_lane(Lane& lane) {
#if defined(ZONEODE_EMULATION_ASAN)
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, lane.stack, stack_bytes);
    raw_switch(&scheduler_, &scheduler_sp_, &lane.context, lane.sp);
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
    raw_switch(&scheduler_, &scheduler_sp_, &lane.context, lane.sp);
#endif
  }

  // From one context to another: the x86-64 switch (saving this stack pointer in *save_sp) or swapcontext.
  static void raw_switch(ucontext_t* save, void** save_sp, ucontext_t* load, void* load_sp) {
#if defined(__x86_64__)
    (void)save;
    (void)load;
    zoneode_fiber_switch(save_sp, load_sp);
#else
    (void)save_sp;
    (void)load_sp;
    swapcontext(save, load);
#endif
  }

  // The running fiber waits for its collective; the scheduler resumes it when it completes.
  void wait() {
    Lane& lane = lanes_[current_];
#if defined(ZONEODE_EMULATION_ASAN)
    __sanitizer_start_switch_fiber(&lane.fake_stack, scheduler_stack_, scheduler_stack_size_);
    raw_switch(&lane.context, &lane.sp, &scheduler_, scheduler_sp_);
    __sanitizer_finish_switch_fiber(lane.fake_stack, nullptr, nullptr);
#else
    raw_switch(&lane.context, &lane.sp, &scheduler_, scheduler_sp_);
#endif
  }

  // Completes every collective whose threads are all there; false if none. A wave whose lanes
  // wait at different collectives, or a barrier that some thread passed its end without, is a
  // kernel bug: the block stops (its threads are left waiting, and run() says why).
  bool complete_collectives() {
    bool completed = false;
    for (int first = 0; first < threads_; first += wave_) {
      Lane& lead = lanes_[first];
      if (lead.op != Collective::shuffle_down && lead.op != Collective::shuffle_xor && lead.op != Collective::shuffle_from)
        continue;
      bool all = true;
      for (int l = first; l < first + wave_; ++l) {
        const Lane& lane = lanes_[l];
        if (lane.runnable) all = false;
        else if (lane.op != lead.op || lane.width != lead.width) all = false;
      }
      if (!all) {
        bool others_running = false;
        for (int l = first; l < first + wave_; ++l) others_running = others_running || lanes_[l].runnable;
        if (!others_running) {
          failure_ = "the lanes of wave " + std::to_string(first / wave_) + " wait at different collectives";
          return false;
        }
        continue;
      }
      if (lead.width <= 0 || lead.width > wave_ || (lead.width & (lead.width - 1)) != 0) {
        failure_ = "shuffle width " + std::to_string(lead.width) + " in a wave of " + std::to_string(wave_);
        return false;
      }
      std::vector<double>& before = before_;
      for (int l = 0; l < wave_; ++l) before[l] = lanes_[first + l].value;
      for (int self = 0; self < wave_; ++self) {
        Lane& lane = lanes_[first + self];
        const int width = lane.width;
        int index = self;
        if (lane.op == Collective::shuffle_down) {
          index = (self & (width - 1)) + lane.argument >= width ? self : self + lane.argument;
        } else if (lane.op == Collective::shuffle_xor) {
          index = self ^ lane.argument;
          if (index >= ((self + width) & ~(width - 1))) index = self;
        } else {
          index = (lane.argument + (self & ~(width - 1))) & (wave_ - 1);
        }
        lane.value = before[index];
        lane.op = Collective::none;
        lane.runnable = true;
      }
      completed = true;
    }
    int at_barrier = 0;
    bool any = false;
    for (const Lane& lane : lanes_) {
      if (lane.op == Collective::barrier) ++at_barrier;
      any = any || (lane.op == Collective::barrier && lane.predicate);
    }
    if (at_barrier == threads_) {
      for (Lane& lane : lanes_) {
        lane.op = Collective::none;
        lane.predicate = any;
        lane.runnable = true;
      }
      completed = true;
    } else if (at_barrier > 0 && !completed) {
      bool running = false;
      for (const Lane& lane : lanes_) running = running || lane.runnable;
      if (!running) failure_ = std::to_string(at_barrier) + " of " + std::to_string(threads_) + " threads at a barrier";
    }
    return completed;
  }

  int threads_, wave_;
  Order order_;
  std::vector<Lane> lanes_;
  std::vector<double> before_;  // a wave's values before its shuffle
  ucontext_t scheduler_;
  void* scheduler_sp_ = nullptr;
  const std::function<void()>* body_ = nullptr;
  int current_ = 0;
  std::string failure_ = "a deadlock";
  const void* scheduler_stack_ = nullptr;
  std::size_t scheduler_stack_size_ = 0;
};
EmulatedBlock* EmulatedBlock::active = nullptr;

// A team's lanes on the emulated block (BlockTeam's LANES): the device's wave size, and whether
// the final reduction transposes its wave sums (gfx90a: no; NVIDIA: yes).
template <int WAVE, bool TRANSPOSED>
struct EmulatedLanes {
  static constexpr int wave_size = WAVE;
  static constexpr bool transposed_wave_sums = TRANSPOSED;
  static int rank() { return EmulatedBlock::active->rank(); }
  static unsigned block_index() { return 0; }  // one block runs every zone
  static unsigned long long take_next(unsigned long long* counter) { return (*counter)++; }  // one OS thread
  static void sync() { EmulatedBlock::active->barrier(false); }
  static bool sync_any(bool predicate) { return EmulatedBlock::active->barrier(predicate); }
  static double shuffle_down(double value, int offset, int width) {
    return EmulatedBlock::active->shuffle(Collective::shuffle_down, value, offset, width);
  }
  static double shuffle_xor(double value, int mask, int width) {
    return EmulatedBlock::active->shuffle(Collective::shuffle_xor, value, mask, width);
  }
  static double shuffle_from(double value, int source, int width) {
    return EmulatedBlock::active->shuffle(Collective::shuffle_from, value, source, width);
  }
};
using Gfx90aLanes = EmulatedLanes<64, false>;
using NvidiaLanes = EmulatedLanes<32, true>;

// The planted fault: shuffle_down with its width fixed at 32 (a wrapper ported from CUDA with
// warpSize written out). On 32-lane waves it is the right shuffle; on 64-lane waves a wave's
// reduction then adds lane 0's value to itself instead of lane 32's.
template <int WAVE, bool TRANSPOSED>
struct Width32ShuffleLanes : EmulatedLanes<WAVE, TRANSPOSED> {
  static double shuffle_down(double value, int offset, int) {
    return EmulatedBlock::active->shuffle(Collective::shuffle_down, value, offset, 32);
  }
};

// Build with -DZONEODE_PLANT_WAVE64_FAULT to run every kernel of the tests above with the planted
// fault: the 64-lane comparisons then fail (tests/README.md).
#if defined(ZONEODE_PLANT_WAVE64_FAULT)
template <int WAVE, bool TRANSPOSED>
using TestedLanes = Width32ShuffleLanes<WAVE, TRANSPOSED>;
#else
template <int WAVE, bool TRANSPOSED>
using TestedLanes = EmulatedLanes<WAVE, TRANSPOSED>;
#endif

// ---- a launch, emulated -----------------------------------------------------------------------

// Host memory in place of the device copies (DeviceUploads for final's prepare hook).
class HostUploads final : public gpu::DeviceUploads {
 public:
  const void* upload(const void* data, std::size_t bytes) override {
    buffers_.emplace_back((bytes + 7) / 8 + 1);
    std::memcpy(buffers_.back().data(), data, bytes);
    return buffers_.back().data();
  }

 private:
  std::vector<std::vector<double>> buffers_;
};

// A kernel body's configuration: what one of the variants' kernels instantiates.
struct Shape {
  std::string name;
  bool stage_network, stage_zone;
};

using Zone = TeamTestZone;

struct Outcome {
  std::vector<double> Y;  // [zone][species]
  std::vector<ZoneResult> results;
};

// The zones of `network` run by one emulated block with run_zones, as a variant's kernel
// instantiates it; the block takes every zone from the counter.
template <int BLOCK, gpu::Reduction REDUCTION, int GROUP, bool FUSED_YE, bool SWAP, IntegrationMethod METHOD,
          typename Lanes, int RESIDENT = 0>
Outcome run_emulated(const CompactNetwork& network, const IntegratorSettings& settings, const std::vector<Zone>& zones,
                     const Shape& shape, Order order) {
  const int S = network.species_count(), R = network.reaction_count();
  // The blocks as the backend copies them: whole doubles, aligned.
  std::vector<double> rate_block((network.rate_block_bytes() + 7) / 8), step_block((network.step_block_bytes() + 7) / 8);
  std::memcpy(rate_block.data(), network.rate_block(), network.rate_block_bytes());
  std::memcpy(step_block.data(), network.step_block(), network.step_block_bytes());
  gpu::KernelArgs args;
  args.rates = network.rate_view_at(reinterpret_cast<const std::byte*>(rate_block.data()));
  args.step = network.step_view_at(reinterpret_cast<const std::byte*>(step_block.data()));
  args.step_block = reinterpret_cast<const std::byte*>(step_block.data());
  args.step_block_bytes = network.step_block_bytes();
  args.settings = settings;
  gpu::LaunchContext context;
  HostUploads uploads;
  if constexpr (GROUP == 0) gpu::prepare_term_chunks(network, uploads, args, context, 256);
  if constexpr (RESIDENT > 0) {  // the latency path holds every chunk and reaction word in registers: it must fit
    using Sums = gpu::ResidentChunkSums<BLOCK, RESIDENT>;
    using Words = gpu::ResidentReactions<BLOCK, gpu::resident_reactions_per_thread>;
    EXPECT_TRUE(Sums::fits(context.chunks, context.longest_chunk, S) && Words::fits(R))
        << context.chunks << " chunks of at most " << context.longest_chunk << " terms, " << R << " reactions";
  }
  const std::int64_t zone_doubles =
      gpu::zone_array_doubles(S, R, context.chunks, context.state_padding, METHOD);
  // NaN: a read of an entry no thread wrote shows in the result.
  std::vector<double> shared((shape.stage_network ? step_block.size() : 0) + (shape.stage_zone ? zone_doubles : 0), NAN);
  std::vector<double> workspace(shape.stage_zone ? 1 : zone_doubles, NAN);
  std::vector<double> scratch(gpu::BlockTeam<BLOCK, REDUCTION, Lanes>::scratch_doubles, NAN);
  std::vector<double> temperature, density, abundances;
  for (const Zone& zone : zones) {
    temperature.push_back(zone.T9);
    density.push_back(zone.rho);
    abundances.insert(abundances.end(), zone.Y.begin(), zone.Y.end());
  }
  std::vector<ZoneResult> results(zones.size());
  args.zones = static_cast<std::int64_t>(zones.size());
  args.temperature = temperature.data();
  args.density = density.data();
  args.abundances = abundances.data();
  args.results = results.data();
  args.workspace = workspace.data();
  args.workspace_doubles = zone_doubles;
  unsigned long long next_zone = 0;  // the zone counter in global memory
  args.next_zone = &next_zone;
  EmulatedBlock block(BLOCK, Lanes::wave_size, order);
  block.run([&] {  // the kernel's body, each thread with its own team as on the device
    gpu::run_zones<BLOCK, REDUCTION, GROUP, FUSED_YE, SWAP, false, METHOD, Lanes, RESIDENT>(
        args, shape.stage_network, shape.stage_zone, shared.data(), scratch.data());
  });
  return {abundances, results};
}

Outcome run_serial(const CompactNetwork& network, const IntegratorSettings& settings, const std::vector<Zone>& zones) {
  const MethodData data(settings.method, network);
  std::vector<double> workspace(data.workspace_doubles());
  Outcome out;
  out.results.resize(zones.size());
  for (std::size_t z = 0; z < zones.size(); ++z) {
    std::vector<double> Y = zones[z].Y;
    integrate_zone(data.view(), settings, zones[z].T9, zones[z].rho, Y.data(), workspace.data(), out.results[z]);
    out.Y.insert(out.Y.end(), Y.begin(), Y.end());
  }
  return out;
}

// How far an emulated run is from the serial one: the largest relative difference of any
// abundance (below 1e-28 mol/g, absolute) or energy rate, and the zones whose status, steps or
// rejected steps differ.
struct Distance {
  double worst = 0.0;
  int differing_zones = 0;
  std::string first_difference;
};

Distance distance(const Outcome& serial, const Outcome& team, int species) {
  Distance d;
  auto relative = [](double a, double b) { return std::fabs(a - b) / std::fmax(1e-28, std::fmax(std::fabs(a), std::fabs(b))); };
  for (std::size_t k = 0; k < serial.Y.size(); ++k) {
    const double r = relative(serial.Y[k], team.Y[k]);
    if (!(r <= d.worst)) d.worst = std::isnan(r) ? INFINITY : r;
  }
  for (std::size_t z = 0; z < serial.results.size(); ++z) {
    const ZoneResult &a = serial.results[z], &b = team.results[z];
    d.worst = std::fmax(d.worst, relative(a.energy_generation_rate, b.energy_generation_rate));
    if (a.status != b.status || a.steps != b.steps || a.rejected_steps != b.rejected_steps) {
      if (d.differing_zones++ == 0)
        d.first_difference = "zone " + std::to_string(z) + ": status " + std::to_string(a.status) + " / " +
                             std::to_string(b.status) + ", steps " + std::to_string(a.steps) + " / " +
                             std::to_string(b.steps) + ", rejected " + std::to_string(a.rejected_steps) + " / " +
                             std::to_string(b.rejected_steps);
    }
  }
  (void)species;
  return d;
}

std::vector<Zone> zones_of(const Network& network, int count) { return team_test_zones(network, count, 0.7, 10.0); }

// The schedules a test covers: geometric (quick.yaml's), geometric with renormalisation (every
// accepted state rescaled: the kernels' scale != 1 branches), adaptive with rejected steps.
// The drift bound is wide: dt 0.5 t (the test's time is its steps) moves a decay chain's mass by
// more than 1e-2, and the test compares the team with the serial arithmetic, not with the truth.
std::vector<IntegratorSettings> schedules_for(IntegrationMethod method, double end_time) {
  IntegratorSettings geometric;
  geometric.method = method;
  geometric.schedule = StepSchedule::geometric;
  geometric.max_mass_drift = 0.5;
  geometric.start_time = end_time * 1e-7;
  geometric.end_time = end_time;
  geometric.dt_fraction = 0.5;  // about 45 steps to 1e-3 s: the test's time is its fiber switches
  IntegratorSettings renormalized = geometric;
  renormalized.renormalize = true;
  IntegratorSettings adaptive = geometric;
  adaptive.schedule = StepSchedule::adaptive;
  adaptive.rtol = 1e-2;  // s16: 23 steps per zone, 11 rejected of 2 zones; the decay chain 133, 6 rejected
  adaptive.atol = 1e-8;
  adaptive.dt_initial = end_time;  // the whole burn as the first step: rejected
  return {geometric, renormalized, adaptive};
}

using Runner = Outcome (*)(const CompactNetwork&, const IntegratorSettings&, const std::vector<Zone>&, const Shape&, Order);

// A variant's kernel body at its configuration, on 64- and 32-lane waves.
struct Kernel {
  std::string name;
  IntegrationMethod method;
  Shape shape;
  Runner gfx90a, nvidia;
};

template <int BLOCK, gpu::Reduction REDUCTION, int GROUP, bool FUSED_YE, bool SWAP, IntegrationMethod METHOD,
          template <int, bool> class Lanes = TestedLanes, int RESIDENT = 0>
Kernel kernel(const std::string& name, bool stage_network, bool stage_zone) {
  return {name, METHOD, {name, stage_network, stage_zone},
          &run_emulated<BLOCK, REDUCTION, GROUP, FUSED_YE, SWAP, METHOD, Lanes<64, false>, RESIDENT>,
          &run_emulated<BLOCK, REDUCTION, GROUP, FUSED_YE, SWAP, METHOD, Lanes<32, true>, RESIDENT>};
}

constexpr auto asymptotic = IntegrationMethod::asymptotic;
constexpr auto qss2 = IntegrationMethod::qss2;
using gpu::Reduction;

// The kernels' instantiations (kernels/asymptotic/*.hip, kernels/qss2/qss2_kernels.hip): their
// reductions, sums, Ye and swap choices, at block sizes of theirs (the smaller ones: 2 waves of 64
// are enough for every cross-wave path, and a wave of 64 runs 64 fibers per shuffle).
std::vector<Kernel> kernels() {
  return {
      kernel<128, Reduction::wave, 8, false, false, asymptotic>("wave (wave reduction, 8 lanes per species; network and zone in LDS)", true, true),
      kernel<128, Reduction::wave, 4, false, false, asymptotic>("tuned 128x4 (arrays in global memory)", false, false),
      kernel<256, Reduction::wave, 16, false, false, asymptotic>("tuned 256x16 (zone arrays in LDS)", false, true),
      kernel<128, Reduction::broadcast, 0, true, true, asymptotic>("final 128 (chunks, broadcast, fused Ye, swap; zone in LDS)", false, true),
      kernel<256, Reduction::broadcast, 0, true, true, asymptotic>("final 256 (network and zone in LDS)", true, true),
      kernel<512, Reduction::broadcast, 0, true, true, asymptotic, TestedLanes, 24>(
          "final's latency path (512, chunks and reaction words in registers; network and zone in LDS)", true, true),
      kernel<128, Reduction::tree, 1, false, false, asymptotic>("baseline/lds (tree reduction, a thread per species)", false, false),
      kernel<128, Reduction::broadcast, 0, false, false, qss2>("qss2 on final's shape (chunks, broadcast)", true, true),
      kernel<128, Reduction::wave, 8, false, false, qss2>("qss2 on wave's shape (8 lanes, wave reduction)", false, true),
      kernel<128, Reduction::tree, 1, false, false, qss2>("qss2 on baseline's shape (tree)", false, false),
  };
}

// Every kernel on `network`, at both wave sizes, forward and reversed, against the serial method.
void check_network(const Network& raw, double end_time, int zone_count = 2) {
  const CompactNetwork network(raw);
  const std::vector<Zone> zones = zones_of(raw, zone_count);
  for (const Kernel& k : kernels()) {
    for (const IntegratorSettings& settings : schedules_for(k.method, end_time)) {
      const Outcome serial = run_serial(network, settings, zones);
      for (const ZoneResult& r : serial.results) ASSERT_EQ(r.status, zone_ok) << "the serial run failed: nothing checked";
      const bool plain_geometric = settings.schedule == StepSchedule::geometric && !settings.renormalize;
      for (const auto& [wave, runner] : {std::pair{64, k.gfx90a}, std::pair{32, k.nvidia}}) {
        if (settings.renormalize && wave == 32) continue;  // the rescaling branches: wave-size blind (run time)
        SCOPED_TRACE(raw.name + ", " + k.name + ", " + std::to_string(wave) + "-lane waves, " +
                     (plain_geometric ? "geometric" : settings.renormalize ? "geometric, renormalized" : "adaptive"));
        const Outcome forward = runner(network, settings, zones, k.shape, Order::forward);
        if (plain_geometric && wave == 64) {  // the order check: once per kernel (a run is a fiber switch per collective)
          const Outcome reverse = runner(network, settings, zones, k.shape, Order::reverse);
          for (std::size_t i = 0; i < forward.Y.size(); ++i)
            ASSERT_TRUE(same_bits(forward.Y[i], reverse.Y[i])) << "entry " << i << ": the order within a phase matters";
        }
        const Distance d = distance(serial, forward, network.species_count());
        EXPECT_LE(d.worst, 1e-12);
        EXPECT_EQ(d.differing_zones, 0) << d.first_difference;
      }
    }
  }
}

TEST(AsymptoticTeam, QuickDeckNetworkMatchesTheCpuBackendOn64And32LaneWaves) {
  check_network(generate_network(generator_preset("s16")), 1e-3);  // inputs/quick.yaml's network
}

TEST(AsymptoticTeam, DecayChainMatchesTheCpuBackendOn64And32LaneWaves) {
  check_network(decay_chain_network({3.0, 0.7, 0.05}), 20.0, 1);  // inputs/decay_chain.yaml's network
}

// rp-z12 from the test data (../shared/reaclib), else the rp-z24 slice the project ships kept to
// rp-z12's nuclides, so that a plain clone runs it too (issue 40: it skipped there, a second skip
// beside the REACLIB reader's own).
TEST(AsymptoticTeam, ReaclibSliceMatchesTheCpuBackendOn64And32LaneWaves) {
  const std::string dir = ZONEODE_REACLIB_DATA;
  std::string path = dir + "/rp-z12.reaclib", list = dir + "/rp-z12.nuclides";
  std::size_t kept = 0;  // all
  if (!std::ifstream(path) || !std::ifstream(list)) {
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") ADD_FAILURE() << "no " << path << " with CI=true";
    path = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.reaclib";
    list = std::string(ZONEODE_SOURCE_DIR) + "/inputs/networks/rp-z24.nuclides";
    kept = 42;  // its lightest: rp-z12's nuclides (Z <= 12), the same sets
  }
  std::vector<std::string> nuclides = read_nuclide_list(list);
  if (kept > 0) nuclides.resize(kept);
  check_network(read_reaclib(path, nuclides), 1e-6, 1);
}

// final's latency path (ResidentChunkSums, ResidentReactions: the chunks' term indices, the
// species' chunk ranges and the reaction words held in registers) adds the same terms in the same
// order as the memory-read path of the same block: bitwise the same abundances and results, on
// s150 (chunks of up to 21 terms: both halves of every index word) and both wave sizes.
TEST(AsymptoticTeam, TheLatencyPathIsBitwiseTheMemoryReadPath) {
  const Network raw = generate_network(generator_preset("s150"));
  const CompactNetwork network(raw);
  const std::vector<Zone> zones = zones_of(raw, 2);
  const Kernel memory = kernel<512, Reduction::broadcast, 0, true, true, asymptotic>("final 512", true, true);
  const Kernel resident = kernel<512, Reduction::broadcast, 0, true, true, asymptotic, TestedLanes, 24>("latency", true, true);
  for (IntegratorSettings settings : schedules_for(asymptotic, 1e-3)) {
    if (sanitized_build && settings.schedule != StepSchedule::geometric) continue;  // team_testing.hpp
    settings.end_time = settings.start_time * 1e3;  // 10-20 steps: s150 in 512 fibers
    settings.dt_initial = settings.start_time;
    for (const bool wide : {true, false}) {
      if (sanitized_build && !wide) continue;
      const Outcome a = (wide ? memory.gfx90a : memory.nvidia)(network, settings, zones, memory.shape, Order::forward);
      const Outcome b = (wide ? resident.gfx90a : resident.nvidia)(network, settings, zones, resident.shape, Order::forward);
      ASSERT_EQ(a.Y.size(), b.Y.size());
      int differ = 0;
      for (std::size_t i = 0; i < a.Y.size(); ++i) differ += !same_bits(a.Y[i], b.Y[i]);
      EXPECT_EQ(differ, 0) << (wide ? "64" : "32") << "-lane waves";
      for (std::size_t z = 0; z < zones.size(); ++z) {
        EXPECT_TRUE(same_bits(a.results[z].energy_generation_rate, b.results[z].energy_generation_rate));
        EXPECT_EQ(a.results[z].steps, b.results[z].steps);
        EXPECT_GT(a.results[z].steps, 3) << "too short a burn to check anything";
      }
    }
  }
}

// The species phase's chunk sums loaded ahead of their adds (add_species_chunks, both final paths)
// add in list order, one add per chunk: bitwise a plain loop over each list, for every pair of
// list lengths 0-40 (s150's heaviest lists are ~40 chunks) and values of random mantissas over 4
// binades, so that another order (planted below: the lists added back to front) mostly gives other bits.
TEST(AsymptoticTeam, SpeciesChunkSumsLoadedAheadAddInListOrder) {
  std::vector<double> chunk_sum(96);
  std::uint64_t state = 12345;
  for (double& v : chunk_sum) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = std::ldexp(1.0 + static_cast<double>(state >> 11) * 0x1p-53, static_cast<int>(state % 4));
  }
  int reversed_differ = 0;
  for (int creation = 0; creation <= 40; ++creation) {
    for (int destruction = 0; destruction <= 40; ++destruction) {
      const int creation_first = 3, destruction_first = 50;
      double plain_plus = 0.0, plain_minus = 0.0, back_plus = 0.0;
      for (int k = 0; k < creation; ++k) plain_plus += chunk_sum[creation_first + k];
      for (int k = 0; k < destruction; ++k) plain_minus += chunk_sum[destruction_first + k];
      for (int k = creation - 1; k >= 0; --k) back_plus += chunk_sum[creation_first + k];
      const auto check = [&](auto add, int unroll) {  // the unrolls the two targets compile (8 NVIDIA, 2 gfx90a)
        double fplus = 0.0, fminus = 0.0;
        add(chunk_sum.data(), creation_first, creation, destruction_first, destruction, fplus, fminus);
        EXPECT_TRUE(same_bits(fplus, plain_plus)) << creation << " creation chunks, unroll " << unroll;
        EXPECT_TRUE(same_bits(fminus, plain_minus)) << destruction << " destruction chunks, unroll " << unroll;
      };
      check(gpu::add_species_chunks<1>, 1);
      check(gpu::add_species_chunks<2>, 2);
      check(gpu::add_species_chunks<8>, 8);
      reversed_differ += !same_bits(back_plus, plain_plus);
    }
  }
  EXPECT_GT(reversed_differ, 41 * 38 / 2) << "the values do not tell one order from another";  // lists of 3 or more
}

// The planted fault (Width32ShuffleLanes): final's and wave's kernels with it match the serial
// method on 32-lane waves, and not on 64-lane ones, where the check above fails.
TEST(AsymptoticTeam, ThePlantedWidth32ShuffleIsCaughtOn64LaneWavesOnly) {
  const Network raw = generate_network(generator_preset("s16"));
  const CompactNetwork network(raw);
  const std::vector<Zone> zones = zones_of(raw, 2);
  const IntegratorSettings settings = schedules_for(asymptotic, 1e-3)[0];
  const Outcome serial = run_serial(network, settings, zones);
  for (const Kernel& k :
       {kernel<128, Reduction::broadcast, 0, true, true, asymptotic, Width32ShuffleLanes>("final, width-32 shuffles", false, true),
        kernel<128, Reduction::wave, 8, false, false, asymptotic, Width32ShuffleLanes>("wave, width-32 shuffles", true, true)}) {
    SCOPED_TRACE(k.name);
    const Distance on32 = distance(serial, k.nvidia(network, settings, zones, k.shape, Order::forward), network.species_count());
    EXPECT_LE(on32.worst, 1e-12);
    EXPECT_EQ(on32.differing_zones, 0);
    const Distance on64 = distance(serial, k.gfx90a(network, settings, zones, k.shape, Order::forward), network.species_count());
    EXPECT_TRUE(on64.worst > 1e-12 || on64.differing_zones > 0)
        << "the planted fault went unseen: worst " << on64.worst;
  }
}

// The emulation's own checks: a wave whose lanes do not all reach a shuffle (a shuffle inside a
// branch) stops the block instead of reading lanes that never wrote.
TEST(AsymptoticTeam, AShuffleOutsideUniformControlFlowStopsTheEmulation) {
  EmulatedBlock block(128, 64, Order::forward);
  EXPECT_THROW(block.run([] {
    if (Gfx90aLanes::rank() % 2 == 0) (void)Gfx90aLanes::shuffle_down(1.0, 1, 64);
    Gfx90aLanes::sync();
  }),
               std::logic_error);
  double total = 0.0;
  block.run([&] {  // and a wave's sum by shuffles is the sum of its 64 lanes
    const double sum = gpu::lane_group_sum<64, Gfx90aLanes>(static_cast<double>(Gfx90aLanes::rank()));
    if (Gfx90aLanes::rank() % 64 == 0) total += sum;
  });
  EXPECT_EQ(total, 127.0 * 128.0 / 2.0);
}

}  // namespace
}  // namespace zoneode
