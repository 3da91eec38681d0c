#!/usr/bin/env bash
# The implicit method's ladder on the GPU machine, in one call (issue 28): builds the CUDA build
# (serial HDF5; the implicit kernels are always built), measures the ceilings (zoneode-ceilings),
# counts each regime's work per zone-step (`zoneode network info`: flops and bytes of the Jacobian,
# the LU with its fill, the solves and the right-hand sides) and its floors, runs the CPU implicit
# method on every host core (the reference files and the per-zone time), then validates every
# implicit kernel against it (the implicit validation rule: the same accepted steps on at least 7 of 8
# zones, and on those every abundance above atol within 1e-3 x rtol; validation/README.md) and times each kernel at each
# zone count. One table, regime x zones x kernel: us per zone, ns per zone-step, x the CPU node,
# fractions of the floors. `final` is timed where it is asked for (TIMED_KERNELS); its choice is in
# each run's header.
#
# Usage: scripts/gpu-implicit-ladder.sh OUT_DIR [--dry-run]
#   OUT_DIR gets: ladder.txt (the table), ladder.log (everything printed), cells.jsonl (one record per
#   cell), build.log, logs.tgz.  --dry-run: no GPU, no build: the CPU build ($ZONEODE_BUILD_DIR,
#   default build) stands in for every GPU run, few zones (the table says so).
# Environment (all optional):
#   IMPLICIT_REGIMES="s150 default rpz24-short s150-hot"  regimes (decks below; rpz24-long also; each
#                    also as REGIME-bdf: integrator.method bdf, kernels baseline, lds and final)
#   IMPLICIT_ZONES="8192 65536"      timed zone counts (each regime: ZONES_<regime> overrides, - for none)
#   TIMED_KERNELS="baseline lds generated"  kernels timed; CHECKED_KERNELS="baseline lds wave generated final" validated
#   EXTRA_BINARIES="name=path ..."   other zoneode binaries, validated and timed with --kernel lds as
#                                    kernel 'name' (a side-by-side of two versions of the team kernel);
#                                    a build's zoneode.bin (a copied zoneode launcher needs it beside)
#   CPU_ZONES=1024   zones run on the CPU and validated against it (CPU_ZONES_<regime> overrides: the
#                    long burns take seconds per zone on a CPU core)
#   RUN_TIMEOUT=120  seconds per run; a cell whose time, predicted from the same kernel at a smaller
#                    zone count, exceeds it is skipped (said in the table)
#   DEADLINE=540     seconds after which no run starts (the table is still printed)
#   SKIP_BUILD=1 (use $ZONEODE_BUILD_DIR as it is), ZONEODE_BUILD_DIR (build-gpu-implicit)
#   IMPLICIT_SET="k=v ..."           extra --set for every run (e.g. run.kernel_choice=calibrated)
#   SENSITIVITY=1                    also run the CPU with rtol one ulp larger and compare it with the CPU run
#                    as the kernels are: the rounding sensitivity of the method on the regime, beside each verdict
#                    (bdf: bitwise the same by construction since its step-factor grid, so it measures
#                    nothing there: validation/README.md, "bdf and rounding")
#   REFERENCE_RTOL=1e-10             also measure each regime's achieved error: its CPU run against the CPU
#                    implicit method at this rtol on the first REFERENCE_ZONES=32 zones (max over zones of the
#                    worst relative error of an abundance above ERROR_FLOOR=1e-8 mol/g), and each checked
#                    kernel's own ("its own error" in the validation column); the first zones must not depend on
#                    zones.count (true of the random and log_random profiles of the shipped decks)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${1:?usage: scripts/gpu-implicit-ladder.sh OUT_DIR [--dry-run]}
dry=0
[ "${2:-}" = --dry-run ] && dry=1
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exec > >(tee "$out/ladder.log") 2>&1
cores=$(nproc)
timeout_s=${RUN_TIMEOUT:-120}
deadline=${DEADLINE:-540}
regimes=${IMPLICIT_REGIMES:-s150 default rpz24-short s150-hot}
timed_kernels=${TIMED_KERNELS:-baseline lds generated}
checked_kernels=${CHECKED_KERNELS:-baseline lds wave generated final}
if [ "$dry" -eq 1 ]; then
  build=${ZONEODE_BUILD_DIR:-build}
  zone_counts=${IMPLICIT_ZONES:-16 32} cpu_zones_all=${CPU_ZONES:-8}
  gpu_backend=(--backend cpu --threads 1)  # the stand-in
else
  build=${ZONEODE_BUILD_DIR:-build-gpu-implicit}
  zone_counts=${IMPLICIT_ZONES:-8192 65536} cpu_zones_all=${CPU_ZONES:-1024}
  gpu_backend=(--backend gpu)
fi
commit=${ZONEODE_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
echo "== gpu-implicit-ladder $(date -u +%FT%TZ), commit $commit, $cores cores$([ "$dry" -eq 1 ] && echo ', DRY RUN (CPU stand-in)')"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true

# ---- build
if [ "$dry" -eq 0 ] && [ -z "${SKIP_BUILD:-}" ]; then
  start=$SECONDS
  export PATH=$PATH:/usr/local/cuda/bin
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF -DZONEODE_KERNEL=final >"$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
  cmake --build "$build" -j "$cores" --target zoneode zoneode-compare zoneode-ceilings >>"$out/build.log" 2>&1 ||
    { grep -B5 -A20 -m3 "error" "$out/build.log" | head -80; exit 1; }
  echo "== built in $((SECONDS - start)) s ($build)"
fi
zoneode=$build/zoneode
[ -x "$zoneode" ] || { echo "no $zoneode"; exit 1; }

py=""
for candidate in python3 /usr/bin/python3; do
  if "$candidate" -c 'import h5py, numpy' 2>/dev/null; then py=$candidate; break; fi
done
[ -n "$py" ] || { echo "no python3 with h5py and numpy"; exit 1; }

# ---- ceilings (the H200's measured peak rates)
if [ "$dry" -eq 1 ] || [ ! -x "$build/zoneode-ceilings" ]; then
  printf 'device FAKE\nfp64_fma 3.25e+13 flop/s\nlds_read 3.29e+13 B/s\nhbm_copy 3.15e+12 B/s\n' >"$work/ceilings.txt"
else
  timeout 120 "$build/zoneode-ceilings" >"$work/ceilings.txt" 2>&1 || echo "zoneode-ceilings failed: $(tail -2 "$work/ceilings.txt")"
fi
ceiling() { awk -v k="$1" '$1 == k {print $2}' "$work/ceilings.txt"; }
fma=$(ceiling fp64_fma) lds=$(ceiling lds_read) hbm=$(ceiling hbm_copy)
echo "== ceilings: fp64 FMA $fma flop/s, shared-memory reads $lds B/s, device-memory copy $hbm B/s$([ "$dry" -eq 1 ] && echo ' (FAKE)')"

# ---- regimes: decks of inputs/bench/implicit/ (and the s150 and default decks at rtol 1e-6)
declare -A deck_of extra_of
deck_of[s150]=inputs/s150.yaml
extra_of[s150]="--set integrator.method=implicit --set integrator.schedule=adaptive --set integrator.rtol=1e-6 --set integrator.atol=1e-16"
deck_of[default]=inputs/default.yaml
extra_of[default]="--set integrator.rtol=1e-6 --set validation.sample_zones=0"
for r in rpz24-short rpz24-long s150-hot; do deck_of[$r]=inputs/bench/implicit/$r.yaml extra_of[$r]=""; done
# The same problems with integrator.method bdf (issue 37): REGIME-bdf, validated by the same rule
# against the CPU's bdf; its kernels are baseline (one zone per thread), lds (the team) and final.
for r in s150 default rpz24-short rpz24-long s150-hot; do
  deck_of[$r-bdf]=${deck_of[$r]} extra_of[$r-bdf]="${extra_of[$r]} --set integrator.method=bdf --set integrator.schedule=adaptive"
done

field() { "$py" -c "import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2], '-'); print(v)" "$1" "$2" 2>/dev/null || echo -; }
# CPU.h5 GPU.h5: zones, zones with other accepted steps, worst relative difference over the zones
# with the same steps (abundances above atol and energy rates), statuses equal, and the CPU run's
# rtol (atol and rtol from the resolved deck the CPU file carries).
compare_zones() {
  "$py" - "$1" "$2" <<'PY'
import re, sys
import h5py
import numpy as np
def read(path):
    with h5py.File(path, "r") as f:
        deck = f.attrs["deck"]
        deck = deck.decode() if isinstance(deck, bytes) else str(deck)
        return (f["abundances"][()], f["integrator_steps"][()], f["status"][()], f["energy_generation_rate"][()], deck)
a, b = read(sys.argv[1]), read(sys.argv[2])
rtol = float(re.search(r"^\s+rtol:\s*(\S+)", a[4], re.M).group(1))
atol = float(re.search(r"^\s+atol:\s*(\S+)", a[4], re.M).group(1))
same = a[1] == b[1]
big = np.maximum(np.abs(a[0]), np.abs(b[0]))
rel = np.where(big > atol, np.abs(a[0] - b[0]) / np.maximum(big, 1e-300), 0.0).max(axis=1)
erel = np.abs(a[3] - b[3]) / np.maximum(np.maximum(np.abs(a[3]), np.abs(b[3])), 1e-300)
worst = max(rel[same].max(initial=0.0), erel[same].max(initial=0.0))
print(f"{len(same)} {int((~same).sum())} {worst:.2e} {bool((a[2] == b[2]).all())} {rtol:g}")
PY
}
# REF.h5 RUN.h5: the run's achieved error on the reference's zones (the first ones): the worst
# relative error of an abundance above ERROR_FLOOR [mol/g] (below atol / rtol an abundance is held to
# atol, not to rtol: with atol 1e-16, 1e-12 mol/g is controlled to 1e-4 relative at any rtol).
achieved_error() {
  "$py" - "$1" "$2" "${ERROR_FLOOR:-1e-8}" <<'PY' 2>/dev/null || echo -
import sys
import h5py
import numpy as np
with h5py.File(sys.argv[1], "r") as f: ref = f["abundances"][()]
with h5py.File(sys.argv[2], "r") as f: run = f["abundances"][: len(ref)]
mask = np.abs(ref) > float(sys.argv[3])
print(f"{(np.abs(run - ref)[mask] / np.abs(ref)[mask]).max():.2e}")
PY
}
launch_of() { { grep -o 'rank 0 -> .*' "$1" || echo "rank 0 -> x: -"; } | head -1 | sed 's/rank 0 -> [^:]*: //' | cut -c1-80; }
# run LOG BINARY ARGS...: one run within the time limit; its exit status in LOG.status.
run() {
  local log=$1; shift
  if [ "$SECONDS" -ge "$deadline" ]; then echo "not run: DEADLINE=$deadline s passed" >"$log"; echo deadline >"$log.status"; return; fi
  rm -f "$log.status"
  timeout --kill-after=10 "$timeout_s" "$@" >"$log" 2>&1 || echo "$?" >"$log.status"
}
# The binaries: this build's kernels, and EXTRA_BINARIES as kernel names of their own (run with lds).
declare -A binary_of kernel_arg
for k in $checked_kernels $timed_kernels; do binary_of[$k]=$zoneode kernel_arg[$k]=$k; done
for spec in ${EXTRA_BINARIES:-}; do
  name=${spec%%=*} path=${spec#*=}
  if [ -x "$path" ]; then binary_of[$name]=$path kernel_arg[$name]=lds; checked_kernels="$checked_kernels $name" timed_kernels="$timed_kernels $name"
  else echo "== EXTRA_BINARIES: $path not found, $name left out"; fi
done

: >"$out/cells.jsonl"
declare -A cpu_us verdict_of floor_note error_of sensitivity_of
for regime in $regimes; do
  deck=${deck_of[$regime]:-}
  [ -n "$deck" ] && [ -f "$deck" ] || { echo "== $regime: no deck ($deck), left out"; continue; }
  read -r -a extra <<<"${extra_of[$regime]}"
  common=("$deck" "${extra[@]}" --quiet --force)
  for kv in ${IMPLICIT_SET:-}; do common+=(--set "$kv"); done
  # Work and floors per zone-step, from the network's structure.
  info=$("$zoneode" network info "$deck" "${extra[@]}" 2>/dev/null | grep '^implicit per zone-step')
  flops=$(echo "$info" | sed -n 's/.*; \([0-9]*\) flops.*/\1/p') bytes=$(echo "$info" | sed -n 's/.*, \([0-9]*\) B of values.*/\1/p')
  floors=$("$py" -c "
f, b, fma, lds, hbm = map(float, '$flops $bytes $fma $lds $hbm'.split())
print(f'{1e9 * f / fma:.2f} {1e9 * b / lds:.2f} {1e9 * b / hbm:.2f}')" 2>/dev/null || echo "- - -")
  read -r floor_flops floor_chip floor_hbm <<<"$floors"
  echo "== $regime ($deck): $info"
  echo "   floors per zone-step: flops ${floor_flops} ns, values on chip ${floor_chip} ns, values in device memory ${floor_hbm} ns"
  floor_note[$regime]="floors ns/zone-step: flops $floor_flops, on chip $floor_chip, device memory $floor_hbm"
  cpu_zones=$(eval echo "\${CPU_ZONES_${regime//-/_}:-$cpu_zones_all}")
  echo "== $regime: CPU, $cpu_zones zones, $cores threads"
  run "$work/$regime-cpu.log" "$zoneode" "${common[@]}" --backend cpu --threads "$cores" --set zones.count="$cpu_zones" \
    --set output.prefix="$work/$regime-cpu" --summary "$work/$regime-cpu.json"
  cpu_us[$regime]=$(field "$work/$regime-cpu.json" us_per_zone)
  steps=$("$py" -c "import json; s=json.load(open('$work/$regime-cpu.json')); print(f\"{s['steps']/s['zones']:.0f}\")" 2>/dev/null || echo -)
  echo "   CPU: ${cpu_us[$regime]} us per zone, $steps steps per zone"
  [ "${cpu_us[$regime]}" = - ] && { echo "   the CPU run failed: $(tail -1 "$work/$regime-cpu.log")"; continue; }
  error_of[$regime]=- sensitivity_of[$regime]=""
  if [ -n "${SENSITIVITY:-}" ]; then  # the CPU run again with rtol one ulp larger: how far rounding moves it
    rtol_now=$("$py" -c "
import re, h5py
with h5py.File('$work/$regime-cpu_step000001.h5', 'r') as f: deck = f.attrs['deck']
deck = deck.decode() if isinstance(deck, bytes) else str(deck)
r = float(re.search(r'^\s+rtol:\s*(\S+)', deck, re.M).group(1)); print(repr(r * (1 + 2.0**-52)))" 2>/dev/null)
    run "$work/$regime-ulp.log" "$zoneode" "${common[@]}" --set integrator.rtol="$rtol_now" --backend cpu --threads "$cores" \
      --set zones.count="$cpu_zones" --set output.prefix="$work/$regime-ulp" --summary "$work/$regime-ulp.json"
    read -r zones other worst statuses rtol <<<"$(compare_zones "$work/$regime-cpu_step000001.h5" "$work/$regime-ulp_step000001.h5" || echo "- - - False 0")"
    sensitivity_of[$regime]="; the CPU's own 1-ulp sensitivity (rtol $rtol_now): $worst, $other/$zones other steps"
    echo "   CPU run with rtol one ulp larger: worst $worst, $other/$zones other steps"
    rm -f "$work/$regime-ulp_step000001.h5"
  fi
  if [ -n "${REFERENCE_RTOL:-}" ]; then
    ref_zones=${REFERENCE_ZONES:-32}
    [ "$ref_zones" -gt "$cpu_zones" ] && ref_zones=$cpu_zones
    run "$work/$regime-ref.log" "$zoneode" "${common[@]}" --set integrator.method=implicit --set integrator.schedule=adaptive \
      --set integrator.rtol="$REFERENCE_RTOL" --backend cpu --threads "$cores" --set zones.count="$ref_zones" \
      --set output.prefix="$work/$regime-ref" --summary "$work/$regime-ref.json"
    error_of[$regime]=$(achieved_error "$work/$regime-ref_step000001.h5" "$work/$regime-cpu_step000001.h5")
    echo "   achieved error (CPU run against Rodas3 at rtol $REFERENCE_RTOL, $ref_zones zones): ${error_of[$regime]}"
  fi
  for kernel in $checked_kernels; do
    run "$work/$regime-$kernel-check.log" "${binary_of[$kernel]}" "${common[@]}" "${gpu_backend[@]}" \
      --kernel "${kernel_arg[$kernel]}" --set zones.count="$cpu_zones" --set output.prefix="$work/$regime-$kernel" \
      --summary "$work/$regime-$kernel-check.json"
    if [ -f "$work/$regime-${kernel}_step000001.h5" ]; then
      read -r zones other worst statuses rtol <<<"$(compare_zones "$work/$regime-cpu_step000001.h5" "$work/$regime-${kernel}_step000001.h5" || echo "- - - False 0")"
      ok=$("$py" -c "print('ok' if '$worst' != '-' and float('$worst') <= 1e-3 * float('$rtol') and '$statuses' == 'True' and int('$other') * 8 <= int('$zones') else 'FAIL')" 2>/dev/null || echo FAIL)
      verdict_of[$regime.$kernel]="$ok $worst (limit 1e-3 x rtol $rtol), $other/$zones other steps"
      [ "${error_of[$regime]}" != - ] &&
        verdict_of[$regime.$kernel]+="; its own error $(achieved_error "$work/$regime-ref_step000001.h5" "$work/$regime-${kernel}_step000001.h5")"
      verdict_of[$regime.$kernel]+="${sensitivity_of[$regime]}"
    else
      verdict_of[$regime.$kernel]="FAIL (no output: $(tail -1 "$work/$regime-$kernel-check.log" | cut -c1-60))"
    fi
    echo "   $kernel: ${verdict_of[$regime.$kernel]}; $(launch_of "$work/$regime-$kernel-check.log")"
    rm -f "$work/$regime-${kernel}_step000001.h5"
  done
  zones_here=$(eval echo "\${ZONES_${regime//-/_}:-$zone_counts}")
  [ "$zones_here" = - ] && zones_here=""
  declare -A last_us=()
  for zones in $zones_here; do
    for kernel in $timed_kernels; do
      cell=$work/$regime-$kernel-$zones
      predicted=""
      if [ -n "${last_us[$kernel]:-}" ]; then predicted=$("$py" -c "print(f'{${last_us[$kernel]} * $zones / 1e6:.0f}')"); fi
      if [ -n "$predicted" ] && [ "$predicted" -gt "$timeout_s" ]; then
        echo "skipped: predicted ${predicted} s > RUN_TIMEOUT" >"$cell.log"; echo skipped >"$cell.log.status"
      else
        run "$cell.log" "${binary_of[$kernel]}" "${common[@]}" "${gpu_backend[@]}" --kernel "${kernel_arg[$kernel]}" \
          --set zones.count="$zones" --summary "$cell.json"
      fi
      us=$(field "$cell.json" us_per_zone) ns=$(field "$cell.json" ns_per_zone_step)
      [ "$us" != - ] && last_us[$kernel]=$us
      "$py" - "$regime" "$zones" "$kernel" "$us" "$ns" "${cpu_us[$regime]}" "$floor_flops" "$floor_chip" "$floor_hbm" \
        "$(cat "$cell.log.status" 2>/dev/null || echo 0)" "$(launch_of "$cell.log")" "${verdict_of[$regime.$kernel]:-not validated}" \
        "$steps" "${error_of[$regime]:--}" >>"$out/cells.jsonl" <<'PY'
import json, sys
r, zones, kernel, us, ns, cpu, ff, fc, fh, status, launch, verdict, steps, error = sys.argv[1:]
num = lambda s: float(s) if s not in ("-", "") else None
rec = {"regime": r, "zones": int(zones), "kernel": kernel, "us_per_zone": num(us), "ns_per_zone_step": num(ns),
       "cpu_us_per_zone": num(cpu), "floor_flops_ns": num(ff), "floor_chip_ns": num(fc), "floor_hbm_ns": num(fh),
       "status": status, "launch": launch, "validation": verdict, "steps_per_zone": num(steps),
       "error": num(error)}
print(json.dumps(rec))
PY
      echo "   $regime $zones zones $kernel: $us us per zone, $ns ns per zone-step (status $(cat "$cell.log.status" 2>/dev/null || echo 0))"
    done
  done
done

# ---- the table
{
  echo "gpu-implicit-ladder $(date -u +%F), commit $commit, $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU')$([ "$dry" -eq 1 ] && echo ', DRY RUN: the CPU backend stands in for the GPU')"
  echo "implicit method (Rodas3), adaptive; CPU: $cores threads on CPU_ZONES zones ($cpu_zones_all unless the regime says); each kernel validated on the same zones: same steps on >= 7/8, within 1e-3 x rtol on abundances above atol"
  echo "ceilings: fp64 FMA $fma flop/s, shared-memory reads $lds B/s, device-memory copy $hbm B/s"
  for regime in $regimes; do [ -n "${floor_note[$regime]:-}" ] && echo "$regime: ${floor_note[$regime]}"; done
  "$py" - "$out/cells.jsonl" <<'PY'
import json, sys
cells = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print(f"{'regime':<15} {'zones':>7} {'kernel':<10} {'us/zone':>9} {'ns/zs':>9} {'xCPU':>6} {'chip':>6} {'hbm':>6} {'error':>8}  validation; launch")
for c in cells:
    us, ns = c["us_per_zone"], c["ns_per_zone_step"]
    if us is None:
        print(f"{c['regime']:<15} {c['zones']:>7} {c['kernel']:<10} {'exit ' + c['status']:>9}")
        continue
    x = c["cpu_us_per_zone"] / us if c["cpu_us_per_zone"] else float("nan")
    chip = c["floor_chip_ns"] / ns if c["floor_chip_ns"] else float("nan")
    hbm = c["floor_hbm_ns"] / ns if c["floor_hbm_ns"] else float("nan")
    err = f"{c['error']:.1e}" if c.get("error") is not None else "-"
    print(f"{c['regime']:<15} {c['zones']:>7} {c['kernel']:<10} {us:>9.1f} {ns:>9.1f} {x:>6.1f} {chip:>6.3f} {hbm:>6.3f} {err:>8}  {c['validation']}; {c['launch']}")
PY
  echo "(chip, hbm: the cell's fraction of the floor with the zone's values on chip / in device memory: floor ns / measured ns;"
  echo " the floors count Rodas3's work per step, also for the bdf rows; error: REFERENCE_RTOL's achieved error, - when off)"
} | tee "$out/ladder.txt"
rm -f "$work"/*.h5
tar czf "$out/logs.tgz" -C "$work" . 2>/dev/null
echo "== the script took $SECONDS s"
