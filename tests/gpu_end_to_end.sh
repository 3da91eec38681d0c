#!/usr/bin/env bash
# The GPU backend against the CPU backend, on a machine with a GPU (ctest -L gpu).
# Usage: gpu_end_to_end.sh ZONEODE ZONEODE_COMPARE SOURCE_DIR MPIEXEC "VARIANTS"
# Exit 77 (skipped) when no GPU can be used.
set -uo pipefail
zoneode=$1 compare=$2 source_dir=$3 mpiexec=$4
read -r -a variants <<<"$5"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"  # check, passes, failures, mpi_flags
run() {  # run RANKS EXPECTED_STATUS LOG ARGS...
  local ranks=$1 expected=$2 log=$3; shift 3
  "$mpiexec" "${mpi_flags[@]}" -n "$ranks" "$zoneode" "$@" >"$log" 2>&1
  local status=$?
  [ "$status" -eq "$expected" ] || { echo "  zoneode $* exited $status, expected $expected"; tail -5 "$log"; return 1; }
}
within() {  # within A B RTOL ATOL: every dataset within tolerance; prints the worst difference
  "$compare" "$1" "$2" --rtol "$3" --atol "$4" >"$work/compare.log" 2>&1
  local status=$?
  grep -i "worst\|max" "$work/compare.log" | head -3 | sed 's/^/    /'
  [ "$status" -eq 0 ] || { cat "$work/compare.log"; return 1; }
}
same() { "$compare" "$1" "$2" --rtol 0 --atol 0 --quiet; }

if ! "$zoneode" "$source_dir/inputs/decay_chain.yaml" --quiet --backend gpu --set zones.count=4 >"$work/probe.log" 2>&1; then
  if grep -qi "gpuGetDeviceCount\|no GPU visible\|not built" "$work/probe.log"; then
    echo "SKIP: no usable GPU backend here: $(tail -1 "$work/probe.log")"
    exit 77
  fi
  cat "$work/probe.log"; exit 1
fi

# Geometric schedule: every abundance and energy rate within 1e-12 relative of the CPU's, with an
# absolute floor of 100 x abundance_floor (1e-30 mol/g by default).
declare -A decks=(
  [quick]="--set zones.count=256"
  [s150]="--set zones.count=256 --set integrator.end_time=1e-5"
  [s365]="--set zones.count=64 --set integrator.end_time=1e-7"
  [decay_chain]=""
  [reaclib_rp]="--set zones.count=128 --set integrator.schedule=geometric --set integrator.end_time=1e-2"
)
for deck in quick s150 s365 decay_chain reaclib_rp; do
  [ -f "$source_dir/inputs/$deck.yaml" ] || continue
  if [ "$deck" = reaclib_rp ] && [ ! -f "$source_dir/../shared/reaclib/rp-z12.reaclib" ]; then
    echo "note: no ../shared/reaclib beside the checkout, reaclib_rp not compared"; continue
  fi
  read -r -a extra <<<"${decks[$deck]}"
  common=("$source_dir/inputs/$deck.yaml" --quiet --force "${extra[@]}" --set integrator.schedule=geometric)
  check "$deck cpu" run 1 0 "$work/$deck-cpu.log" "${common[@]}" --set output.prefix="$work/$deck-cpu"
  for variant in "${variants[@]}"; do
    check "$deck $variant runs" run 1 0 "$work/$deck-$variant.log" "${common[@]}" --backend gpu --kernel "$variant" \
      --set output.prefix="$work/$deck-$variant"
    echo "  $deck $variant: $(grep -o 'placement: [^)]*' "$work/$deck-$variant.log" | head -1)"
    check "$deck $variant within 1e-12 of the cpu" within "$work/$deck-cpu_step000001.h5" \
      "$work/$deck-${variant}_step000001.h5" 1e-12 1e-28
  done
done

# Reproducible and decomposition-independent on the GPU: 1 and 2 ranks sharing the device,
# forced batches, restart: bitwise.
deck=("$source_dir/inputs/quick.yaml" --quiet --backend gpu --set zones.count=37 --set integrator.end_time=1e-4
      --set steps.count=3 --set steps.temperature_factor=1.05)
v=${variants[0]}
check "gpu 1 rank" run 1 0 "$work/g1.log" "${deck[@]}" --kernel "$v" --set output.prefix="$work/g1"
check "gpu again" run 1 0 "$work/g1b.log" "${deck[@]}" --kernel "$v" --set output.prefix="$work/g1b"
check "gpu 2 ranks on one device" run 2 0 "$work/g2.log" "${deck[@]}" --kernel "$v" --set output.prefix="$work/g2"
check "gpu batches of 5 zones" run 1 0 "$work/gb.log" "${deck[@]}" --kernel "$v" --set run.batch_zones=5 \
  --set output.prefix="$work/gb"
check "gpu restart from step 1" run 1 0 "$work/gr.log" "${deck[@]}" --kernel "$v" --restart "$work/g1_step000001.h5" \
  --set output.prefix="$work/gr"
for step in 1 2 3; do
  check "run to run step $step bitwise" same "$work/g1_step00000$step.h5" "$work/g1b_step00000$step.h5"
  check "2 ranks step $step bitwise" same "$work/g1_step00000$step.h5" "$work/g2_step00000$step.h5"
  check "batches step $step bitwise" same "$work/g1_step00000$step.h5" "$work/gb_step00000$step.h5"
done
for step in 2 3; do check "restart step $step bitwise" same "$work/g1_step00000$step.h5" "$work/gr_step00000$step.h5"; done
check "1 and 2 ranks report the same hash" test "$(grep 'result hash' "$work/g1.log")" = "$(grep 'result hash' "$work/g2.log")"

# The implicit method (kernels/implicit_*.hip; tests/gpu/test_gpu_implicit.cpp compares the zones in
# detail, adaptive too): through the executable, geometric (no accept/reject to flip), within 1e-10
# of the CPU on the quick deck, bitwise run to run, on 2 ranks and in batches of 5 zones; a kernel
# the method does not have is bad input.
implicit=("$source_dir/inputs/quick.yaml" --quiet --force --set zones.count=37 --set integrator.method=implicit
          --set integrator.schedule=geometric --set integrator.dt_fraction=0.05 --set integrator.end_time=1e-4)
check "implicit cpu" run 1 0 "$work/ic.log" "${implicit[@]}" --set output.prefix="$work/ic"
for kernel in baseline lds wave final; do
  check "implicit gpu $kernel" run 1 0 "$work/i-$kernel.log" "${implicit[@]}" --backend gpu --kernel "$kernel" \
    --set output.prefix="$work/i-$kernel"
  echo "  implicit $kernel: $(grep -o 'rank 0 -> .*' "$work/i-$kernel.log" | head -1)"
  check "implicit $kernel within 1e-10 of the cpu" within "$work/ic_step000001.h5" "$work/i-${kernel}_step000001.h5" \
    1e-10 1e-28
done
check "implicit gpu again" run 1 0 "$work/i2.log" "${implicit[@]}" --backend gpu --set output.prefix="$work/i2"
check "implicit gpu 2 ranks" run 2 0 "$work/i3.log" "${implicit[@]}" --backend gpu --set output.prefix="$work/i3"
check "implicit gpu batches of 5" run 1 0 "$work/i4.log" "${implicit[@]}" --backend gpu --set run.batch_zones=5 \
  --set output.prefix="$work/i4"
for other in i2 i3 i4; do check "implicit $other bitwise" same "$work/i-final_step000001.h5" "$work/${other}_step000001.h5"; done
check "implicit with kernel tuned is bad input" run 1 2 "$work/i5.log" "${implicit[@]}" --backend gpu --kernel tuned
check "implicit with kernel tuned names the kernels it has" grep -q "it has baseline" "$work/i5.log"

echo "gpu_end_to_end: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
