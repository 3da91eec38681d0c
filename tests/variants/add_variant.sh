#!/usr/bin/env bash
# Adding a kernel variant touches one list and one file (kernels/README.md, "Adding a variant"):
# in a copy of the tree, one line appended to src/common/kernel_variants.def and one new file
# kernels/asymptotic/dummy.hip; a HIP build (Debian's hipcc, gfx90a) of that variant alone must then accept
# it in CMake, list it in `zoneode --list-kernels` and the help text, take it as run.kernel, and
# give it a row in the resource table. Nothing else may need editing. Run by .ci/run.
# Usage: tests/variants/add_variant.sh [SOURCE_DIR]
set -euo pipefail
source_dir=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
command -v hipcc >/dev/null || { echo "add_variant: hipcc not found (scripts/install_dependencies.sh --hip)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tree=$work/tree
mkdir -p "$tree"
(cd "$source_dir" && git ls-files -z | xargs -0 cp --parents -t "$tree")
ln -s "$source_dir/../shared" "$work/shared" 2>/dev/null || true
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }

# The one list and the one file.
echo 'ZONEODE_CHOICE(dummy, "a test variant: baseline'"'"'s mapping with 128 threads")' >>"$tree/src/common/kernel_variants.def"
cat >"$tree/kernels/asymptotic/dummy.hip" <<'HIP'
// dummy: a test variant (tests/variants/add_variant.sh): baseline's mapping with 128 threads.
// resources: gfx90a dummy_kernel, sm_90 dummy_kernel (the instantiation each target runs by default;
// scripts/kernel-resources.sh reads this line)
#include "kernel_common.hpp"  // kernels/asymptotic/, beside it

namespace zoneode::gpu {
namespace {

constexpr int dummy_block = 128;

__global__ void ZONEODE_BLOCK_SIZE(dummy_block) dummy_kernel(KernelArgs args) {
  __shared__ double scratch[BlockTeam<dummy_block, Reduction::tree>::scratch_doubles];
  run_zones<dummy_block, Reduction::tree, 1, false>(args, false, false, nullptr, scratch);
}

LaunchPlan plan(const LaunchContext& context) { return plan_persistent(dummy_kernel, dummy_block, context, false, false); }

void launch(const LaunchPlan& plan, const KernelArgs& args) {
  dummy_kernel<<<plan.grid, plan.block, plan.shared_bytes>>>(args);
}

const VariantOps ops{plan, launch};

}  // namespace

const VariantOps* dummy_variant() { return &ops; }

}  // namespace zoneode::gpu
HIP
changed=$(cd "$tree" && { diff -rq "$source_dir/src" src || true; } | wc -l)
check "the tree differs from the source in the list only (src/)" "[ $changed -eq 1 ]"

cd "$tree"
build=$work/build
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=HIP -DZONEODE_KERNEL=dummy -DZONEODE_TESTS=OFF \
  -DZONEODE_REACLIB_DATA="$source_dir/../shared/reaclib" >"$work/configure.log" 2>&1 || { tail -20 "$work/configure.log"; exit 1; }
check "CMake accepts ZONEODE_KERNEL=dummy" "grep -q 'ZONEODE_KERNEL     = dummy -> dummy' '$work/configure.log'"
cmake --build "$build" --target zoneode -j "$(nproc)" >"$work/build.log" 2>&1 || { grep -B2 -A12 error "$work/build.log" | head -40; exit 1; }
check "zoneode --list-kernels prints dummy alone" "[ \"\$('$build/zoneode' --list-kernels)\" = dummy ]"
check "the help text lists dummy with its summary" "'$build/zoneode' --help | grep -q \"dummy .*a test variant\""
# Without a GPU here the run stops at the device (hipErrorNoDevice), after the deck took the name.
dummy_run=$("$build/zoneode" inputs/quick.yaml --quiet --backend gpu --kernel dummy 2>&1 || true)
check "run.kernel dummy is accepted (the run gets as far as the device)" \
  '[[ $dummy_run == *gpuGetDeviceCount* || $dummy_run == *"no GPU"* ]] && [[ $dummy_run != *"run.kernel: "* ]]'
final_run=$("$build/zoneode" inputs/quick.yaml --quiet --backend gpu --kernel final 2>&1 || true)
check "a variant not built is refused by name" '[[ $final_run == *"run.kernel: '"'"'final'"'"' is not built"* ]]'

if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=$PATH:/usr/local/cuda/bin
  check "the resource table has a dummy row" "NVCC=\$(command -v nvcc) scripts/kernel-resources.sh --only dummy 2>/dev/null | grep -q '^| \`dummy\` | [0-9]'"
fi
[ $fail -eq 0 ] && echo "add_variant: passed" || { echo "add_variant: FAILED"; exit 1; }
