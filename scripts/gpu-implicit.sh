#!/usr/bin/env bash
# The implicit method on the GPU, in one call on the GPU machine (issue 17): builds the CUDA build
# (serial HDF5, the asymptotic final variant only: the implicit kernels are always built), runs
# the implicit GPU tests, validates every implicit kernel against the CPU implicit method at 1e-10
# on s150 and the real REACLIB deck inputs/bench/c2-rpz24-rp.yaml (adaptive, rtol 1e-6, atol 1e-16,
# the same zones),
# and times each kernel on GPU_ZONES zones against the CPU implicit method on every host core
# (CPU_ZONES zones of the same deck: per-zone times compared). One table at the end.
#
# Usage: scripts/gpu-implicit.sh OUT_DIR [--dry-run]
#   OUT_DIR gets at most 6 files: gpu-implicit.txt (the table), gpu-implicit.log (everything
#   printed), build.log, resources.txt (registers and spills of the implicit kernels),
#   gpu-tests.log, logs.tgz (every run's log and summary).
#   --dry-run: no GPU and no build: an existing CPU build ($ZONEODE_BUILD_DIR, default build), few
#   zones, the CPU backend standing in for every GPU run (the table says so).
# Environment: SKIP_BUILD=1 (use $ZONEODE_BUILD_DIR as it is), GPU_ZONES (65536), CPU_ZONES (1024), TIMED_KERNELS ("baseline lds"; final is lds or
#   baseline, wave the slowest by design: add it for the record),
#   RUN_TIMEOUT seconds per run (120), DEADLINE seconds after which no run starts (500),
#   ZONEODE_GPU (CUDA), ZONEODE_BUILD_DIR.
# rp-z24 without that deck: the network from inputs/networks/, ../shared/reaclib, shared/reaclib or
# /work/shared/reaclib, at c2's conditions; without it the table says it was not found.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-implicit.sh OUT_DIR [--dry-run]}
dry=0
[ "${2:-}" = --dry-run ] && dry=1
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exec > >(tee "$out/gpu-implicit.log") 2>&1
cores=$(nproc)
timeout_s=${RUN_TIMEOUT:-120}
deadline=${DEADLINE:-500}  # [s] no run starts after this: the table is printed within one device call
if [ "$dry" -eq 1 ]; then
  build=${ZONEODE_BUILD_DIR:-build}
  gpu_zones=${GPU_ZONES:-64} cpu_zones=${CPU_ZONES:-32}
  gpu_backend=(--backend cpu)  # the stand-in
else
  build=${ZONEODE_BUILD_DIR:-build-gpu-implicit}
  gpu_zones=${GPU_ZONES:-65536} cpu_zones=${CPU_ZONES:-1024}
  gpu_backend=(--backend gpu)
fi
timed_kernels=${TIMED_KERNELS:-baseline lds}
checked_kernels="baseline lds wave final"
echo "== gpu-implicit $(date -u +%FT%TZ) on $(hostname), $cores cores, commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$([ "$dry" -eq 1 ] && echo ', DRY RUN (CPU stand-in)')"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true

if [ "$dry" -eq 0 ]; then
  echo "== build ($build)"
  start=$SECONDS
  if [ -n "${SKIP_BUILD:-}" ]; then  # a build made by the caller (with the resource report on)
    echo "  SKIP_BUILD: using $build as it is"; : >"$out/build.log"
    [ -f "$build/build-report.log" ] && cp "$build/build-report.log" "$out/build.log"
  else
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU="${ZONEODE_GPU:-CUDA}" \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=ON -DZONEODE_KERNEL=final \
    -DZONEODE_GPU_RESOURCE_REPORT=ON >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
  cmake --build "$build" -j "$cores" --target zoneode zoneode-compare zoneode_gpu_tests >>"$out/build.log" 2>&1 ||
    { grep -B5 -A20 "error" "$out/build.log" | head -80; exit 1; }
  echo "  built in $((SECONDS - start)) s"
  fi
  grep -A3 "Compiling entry function.*implicit_" "$out/build.log" | grep -E "Compiling entry|registers|spill" |
    sed -e 's/ptxas info *: //' -e 's/_ZN7zoneode3gpu[0-9A-Za-z_]*GLOBAL__N__[0-9a-f_]*//' | paste - - - >"$out/resources.txt" || true
  cat "$out/resources.txt"
  echo "== implicit GPU tests (zoneode_gpu_tests --gtest_filter='*Implicit*')"
  start=$SECONDS
  "$build/zoneode_gpu_tests" --gtest_filter='*Implicit*' >"$out/gpu-tests.log" 2>&1 && tests=passed || tests=FAILED
  if grep -q "SKIPPED.*MatchesTheCpuImplicitMethod" "$out/gpu-tests.log"; then tests="$tests, comparisons SKIPPED (no GPU)"; fi
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[       OK|zones, | zone [0-9]+: steps|Failure" "$out/gpu-tests.log" | head -60 || true
  echo "  tests $tests in $((SECONDS - start)) s"
else
  tests="not run (dry run)"
fi
zoneode=$build/zoneode compare=$build/zoneode-compare
[ -x "$zoneode" ] && [ -x "$compare" ] || { echo "no $zoneode or $compare"; exit 1; }

# A kernel the implicit method does not have is bad input, before any work.
status=0
"$zoneode" inputs/quick.yaml --quiet --set integrator.method=implicit --backend gpu --kernel tuned >"$work/refusal.log" 2>&1 ||
  status=$?
echo "== implicit with kernel tuned: exit $status ($(tail -1 "$work/refusal.log" | cut -c1-150))"

# The real REACLIB network.
network=""
for folder in inputs/networks ../shared/reaclib shared/reaclib /work/shared/reaclib; do
  if [ -f "$folder/rp-z24.reaclib" ] && [ -f "$folder/rp-z24.nuclides" ]; then
    mkdir -p "$work/networks"
    cp "$folder/rp-z24.reaclib" "$folder/rp-z24.nuclides" "$work/networks/"
    network=$work/networks/rp-z24
    echo "== rp-z24 from $folder"
    break
  fi
done

implicit=(--set integrator.method=implicit --set integrator.schedule=adaptive --set integrator.rtol=1e-6
          --set integrator.atol=1e-16 --quiet --force)
declare -A deck_args
deck_args[s150]="inputs/s150.yaml"
decks="s150"
if [ -f inputs/bench/c2-rpz24-rp.yaml ] && [ -f inputs/networks/rp-z24.reaclib ]; then
  decks="s150 rp-z24"
  deck_args[rp-z24]="inputs/bench/c2-rpz24-rp.yaml"  # the shipped deck: rp-process conditions
  echo "== rp-z24: inputs/bench/c2-rpz24-rp.yaml"
elif [ -n "$network" ]; then
  decks="s150 rp-z24"
  # c2's conditions: T9 1.0-1.5, rho ~1e6, a proton-rich start.
  cat >"$work/rp-z24.yaml" <<EOF
network: {source: reaclib, file: $network.reaclib, nuclides_file: $network.nuclides}
zones:
  count: 16
  seed: 1
  temperature: {profile: random, min: 1.0, max: 1.5}
  density: {profile: log_random, min: 0.8e6, max: 1.25e6}
  composition: {p: 0.7, he4: 0.28, c12: 0.01, o16: 0.01}
integrator: {start_time: 1.0e-11, end_time: 1.0e-6, max_mass_drift: 1.0e-2}
EOF
  deck_args[rp-z24]="$work/rp-z24.yaml"
fi

py=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import h5py, numpy' 2>/dev/null; then py=$candidate; break; fi
done
[ -n "$py" ] || { echo "no python3 with h5py and numpy"; exit 1; }
field() { "$py" -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2" 2>/dev/null || echo -; }
# CPU.h5 GPU.h5 ATOL: zones, zones with other accepted steps, worst relative difference over the
# zones with the same steps (abundances above ATOL, energy rates), statuses equal.
compare_zones() {
  "$py" - "$1" "$2" "$3" <<'PY'
import sys
import h5py
import numpy as np
def read(path):
    with h5py.File(path, "r") as f:
        return (f["abundances"][()], f["integrator_steps"][()], f["status"][()], f["energy_generation_rate"][()])
a, b = read(sys.argv[1]), read(sys.argv[2])
atol = float(sys.argv[3])
same = a[1] == b[1]
big = np.maximum(np.abs(a[0]), np.abs(b[0]))
rel = np.where(big > atol, np.abs(a[0] - b[0]) / np.maximum(big, 1e-300), 0.0).max(axis=1)
erel = np.abs(a[3] - b[3]) / np.maximum(np.maximum(np.abs(a[3]), np.abs(b[3])), 1e-300)
worst = max(rel[same].max(initial=0.0), erel[same].max(initial=0.0))
other = rel[~same].max(initial=0.0)
print(f"{len(same)} {int((~same).sum())} {worst:.2e} {other:.2e} {bool((a[2] == b[2]).all())}")
PY
}
# The launch a run's header reports (the device's name left out), or "-".
launch_of() { { grep -o 'rank 0 -> .*' "$1" || echo "rank 0 -> x: -"; } | head -1 | sed 's/rank 0 -> [^:]*: //' | cut -c1-90; }
# A run within the time limit; its exit status (3: some zones failed) is the table's business.
run() {
  local log=$1; shift
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "not run: the script's deadline (DEADLINE=$deadline s) passed" | tee "$log"
    echo "-deadline" >"$log.status"
    return
  fi
  timeout --kill-after=10 "$timeout_s" "$zoneode" "$@" >"$log" 2>&1 || echo "$?" >"$log.status"
}

table="$out/gpu-implicit.txt"
{
  echo "gpu-implicit $(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU')$([ "$dry" -eq 1 ] && echo ', DRY RUN: the CPU backend stands in for the GPU')"
  echo "implicit method, adaptive, rtol 1e-6, atol 1e-16; CPU: $cores threads on $cpu_zones zones; GPU timed on $gpu_zones zones; GPU tests: $tests"
  [ -z "$network" ] && echo "rp-z24 not found (inputs/networks, ../shared/reaclib, shared/reaclib, /work/shared/reaclib): not run"
  printf "%-7s %-9s %10s %11s %11s %8s %9s %9s %10s %s\n" deck kernel cpu_us/zn gpu_us/zn gpu/zs_ns cpu/gpu steps/zn "1e-10" "max_rel" "other-steps/zones (worst), launch"
} | tee "$table"
# Pass 1, the validations (cheap); pass 2, the timings; then the table: a deadline cuts timings first.
declare -A cpu_us steps row
for deck in $decks; do
  echo "== $deck: CPU on $cpu_zones zones ($cores threads)"
  run "$work/$deck-cpu.log" "${deck_args[$deck]}" "${implicit[@]}" --threads "$cores" --set zones.count="$cpu_zones" \
    --set output.prefix="$work/$deck-cpu" --summary "$work/$deck-cpu.json"
  cpu_us[$deck]=$(field "$work/$deck-cpu.json" us_per_zone)
  if [ "${cpu_us[$deck]}" = - ]; then
    echo "  the CPU run failed: $(tail -1 "$work/$deck-cpu.log")"
    continue
  fi
  steps[$deck]=$("$py" -c "import json,sys; s=json.load(open(sys.argv[1])); print(f\"{s['steps']/s['zones']:.1f}\")" \
    "$work/$deck-cpu.json")
  for kernel in $checked_kernels; do
    echo "== $deck: $kernel, validation on the CPU's $cpu_zones zones"
    run "$work/$deck-$kernel-check.log" "${deck_args[$deck]}" "${implicit[@]}" "${gpu_backend[@]}" --kernel "$kernel" \
      --set zones.count="$cpu_zones" --set output.prefix="$work/$deck-$kernel" --summary "$work/$deck-$kernel-check.json"
    if [ -f "$work/$deck-${kernel}_step000001.h5" ]; then
      read -r zones other worst other_worst statuses <<<"$(compare_zones "$work/$deck-cpu_step000001.h5" \
        "$work/$deck-${kernel}_step000001.h5" 1e-16 || echo "- - - - False")"
      verdict=$("$py" -c "print('ok' if '$worst' != '-' and float('$worst') <= 1e-10 and '$statuses' == 'True' else 'FAIL')")
      rejected="$(field "$work/$deck-cpu.json" rejected_steps)/$(field "$work/$deck-$kernel-check.json" rejected_steps)"
      echo "  $zones zones, $other with other accepted steps (worst $other_worst), same-steps worst $worst, statuses equal $statuses, rejected steps cpu/gpu $rejected"
    else
      verdict="FAIL (no output: $(tail -1 "$work/$deck-$kernel-check.log" | cut -c1-80))" worst=- other=- zones=- other_worst=-
    fi
    row[$deck.$kernel]="$verdict|$worst|$other/$zones ($other_worst)|$(launch_of "$work/$deck-$kernel-check.log")"
  done
done
for deck in $decks; do
  [ "${cpu_us[$deck]}" = - ] && continue
  for kernel in $timed_kernels; do
    echo "== $deck: $kernel, timed on $gpu_zones zones"
    run "$work/$deck-$kernel-time.log" "${deck_args[$deck]}" "${implicit[@]}" "${gpu_backend[@]}" --kernel "$kernel" \
      --set zones.count="$gpu_zones" --summary "$work/$deck-$kernel-time.json"
  done
done
for deck in $decks; do
  if [ "${cpu_us[$deck]}" = - ]; then
    echo "$deck: the CPU run failed: $(tail -1 "$work/$deck-cpu.log")" | tee -a "$table"
    continue
  fi
  for kernel in $checked_kernels; do
    IFS='|' read -r verdict worst others launch <<<"${row[$deck.$kernel]}"
    gpu_us=- gpu_ns=- ratio=-
    if [[ " $timed_kernels " == *" $kernel "* ]]; then
      json=$work/$deck-$kernel-time.json
      if [ "$(field "$json" us_per_zone)" != - ]; then
        gpu_us=$(field "$json" us_per_zone)
        gpu_ns=$("$py" -c "print(f'{float(\"$(field "$json" ns_per_zone_step)\"):.1f}')")
        ratio=$("$py" -c "print(f'{${cpu_us[$deck]} / $gpu_us:.1f}')")
        gpu_us=$("$py" -c "print(f'{$gpu_us:.2f}')")
        launch=$(launch_of "$work/$deck-$kernel-time.log")
      else
        gpu_us="exit$(cat "$work/$deck-$kernel-time.log.status" 2>/dev/null || echo '?')"  # 124: timed out
      fi
    fi
    printf "%-7s %-9s %10.1f %11s %11s %8s %9s %9s %10s %s\n" "$deck" "$kernel" "${cpu_us[$deck]}" "$gpu_us" "$gpu_ns" \
      "$ratio" "${steps[$deck]}" "$verdict" "$worst" "$others, $launch" | tee -a "$table"
  done
done
rm -f "$work"/*.h5
cp "$work/refusal.log" "$work/refusal.txt" 2>/dev/null || true
tar czf "$out/logs.tgz" -C "$work" .
echo "== table: $table (the script took $SECONDS s)"
cat "$table"
