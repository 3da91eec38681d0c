#!/usr/bin/env bash
# Issue 21 on the GPU, in one call on the GPU machine (about 2 minutes on an H200 with 16 cores):
# builds zoneode and zoneode-compare (CUDA, every variant, serial HDF5, no tests), then
#   1. validates: tests/gpu/physics_end_to_end.sh on the rp-z24 regime (c2, inputs/bench), each
#      physics option alone (screening weak and chugunov2007, partition functions, neutrino losses,
#      self-heating) and all together, the CPU backend against every variant at relative 1e-12
#      (T9 included), and adaptive self-heating with weak screening against the CPU's one-ulp
#      yardstick; the qss2 and implicit methods with weak screening and with all options, every
#      variant that runs them, against the CPU with the same method (qss2 1e-12, implicit 1e-10);
#   2. times final on c2 (window to 1e-8 s: 694 steps per zone) at 65,536 zones with each option
#      and without (ns per zone-step of integrate() alone, one run each; all options together also
#      without final's launch bound), qss2 and implicit (8,192 zones) without and with options, and
#      reports the zones' T9 rise under self-heating;
# and prints one table. OUT gets: gpu-physics.txt (the table), validation.log, timing.csv,
# logs.tgz (build log, every run's log and summary, the compare reports).
# Usage: scripts/gpu-physics.sh OUT
#   GPU_PHYSICS_ZONES=256 zones validated    GPU_PHYSICS_TIMED_ZONES=65536 zones timed
#   GPU_PHYSICS_SKIP_BUILD=1 use the build as it is     ZONEODE_BUILD_DIR=build-physics
#   GPU_PHYSICS_FAKE=1 a rehearsal without a GPU: "GPU" runs are CPU runs (one thread), small counts
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${1:-${OUT:-gpu-physics-out}}
fake=${GPU_PHYSICS_FAKE:-0}
build=${ZONEODE_BUILD_DIR:-$([ "$fake" = 1 ] && echo build || echo build-physics)}
cores=$(nproc)
if [ "$fake" = 1 ]; then
  zones=${GPU_PHYSICS_ZONES:-8} timed_zones=${GPU_PHYSICS_TIMED_ZONES:-16}
else
  zones=${GPU_PHYSICS_ZONES:-256} timed_zones=${GPU_PHYSICS_TIMED_ZONES:-65536}
fi
python=python3  # with h5py: Debian's /usr/bin/python3 here, the PATH's on the GPU machine
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import h5py" 2>/dev/null && python=/usr/bin/python3
mkdir -p "$out" || exit 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t0=$SECONDS
echo "== gpu-physics $(date -u +%FT%TZ) on $(hostname), $cores cores, commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

if [ "${GPU_PHYSICS_SKIP_BUILD:-0}" != 1 ] && [ "$fake" != 1 ]; then
  { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF &&
    cmake --build "$build" -j "$cores" --target zoneode zoneode-compare; } >"$work/build.log" 2>&1 ||
    { grep -B5 -A20 "error" "$work/build.log" | head -60; tar czf "$out/logs.tgz" -C "$work" .; exit 1; }
  echo "built in $((SECONDS - t0)) s"
fi
zoneode=$build/zoneode
if [ "$fake" = 1 ]; then
  variants="baseline final"
else
  variants=$("$zoneode" --list-kernels | tr '\n' ' ')
fi

echo "== validation: $zones zones of c2, variants: $variants"
t1=$SECONDS
# Each option alone on baseline and final; none, weak, all options together and adaptive on every variant.
PHYSICS_FAKE_GPU=$fake PHYSICS_SINGLE_VARIANTS="baseline final" bash tests/gpu/physics_end_to_end.sh "$zoneode" "$build/zoneode-compare" "$PWD" "$variants" \
  "$zones" "$work/validation" >"$out/validation.log" 2>&1
validation_status=$?
grep -E "FAIL|physics_end_to_end:|adaptive .*:" "$out/validation.log" | head -20
echo "validated in $((SECONDS - t1)) s (exit $validation_status)"

echo "== timing: final, $timed_zones zones of c2"
t2=$SECONDS
gpu=(--backend gpu --kernel final)
[ "$fake" = 1 ] && gpu=(--backend cpu --threads "$cores")
# Cells: name and --set pairs; no state files. final's default on the H200 (128 threads, launch bound 6 blocks/SM)
# caps registers at 80, under which the physics instantiation spills (268 B of stores); "all@128x0x0"
# times every option without the bound (128-130 registers, no spills) to see which is faster.
# Self-heating is timed with the implicit method only: the GPU's asymptotic and qss2 refuse it
# (their team kernels do not carry T9; kernels/README.md).
cells=(
  "none|"
  "weak|physics.screening=weak"
  "chugunov2007|physics.screening=chugunov2007"
  "partition_functions|physics.partition_functions=true"
  "neutrino_losses|physics.neutrino_losses=true"
  "all|physics.screening=chugunov2007 physics.partition_functions=true physics.neutrino_losses=true"
  "all@128x0x0|physics.screening=chugunov2007 physics.partition_functions=true physics.neutrino_losses=true run.kernel_config=128x0x0"
  "none(again)|"
  "qss2:none|integrator.method=qss2"
  "qss2:all|integrator.method=qss2 physics.screening=chugunov2007 physics.partition_functions=true physics.neutrino_losses=true"
  "implicit:none|integrator.method=implicit zones.count=8192"
  "implicit:all|integrator.method=implicit zones.count=8192 physics.screening=chugunov2007 physics.partition_functions=true physics.neutrino_losses=true physics.self_heating=true"
  "implicit:weak|integrator.method=implicit zones.count=8192 physics.screening=weak"
)
[ "$fake" = 1 ] && cells=("${cells[@]/*@128x0x0*/}")  # the CPU has no kernel configurations
[ "$fake" = 1 ] && cells=("${cells[@]/ zones.count=8192/}")  # the rehearsal's small counts
echo "option,ns_per_zone_step,zone_steps,failed_zone_steps" >"$out/timing.csv"
for cell in "${cells[@]}"; do
  [ -n "$cell" ] || continue
  option=${cell%%|*}
  sets=(); for s in ${cell#*|}; do sets+=(--set "$s"); done
  # The c2 deck's window cut to 1e-8 s (694 steps per zone instead of 1,158): the cost per
  # zone-step is the same, the device time less.
  timeout 150 "$zoneode" inputs/bench/c2-rpz24-rp.yaml --quiet --force "${gpu[@]}" --set zones.count="$timed_zones" \
    --set integrator.end_time=1e-8 "${sets[@]}" --set output.prefix= --summary "$work/timed-$option.json" \
    >"$work/timed-$option.log" 2>&1
  "$python" - "$work/timed-$option.json" "$option" >>"$out/timing.csv" <<'PY' || echo "$option,nan,0,nan" >>"$out/timing.csv"
import json, sys
s = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]},{s['ns_per_zone_step']:.4f},{s['steps']},{s['failed_zone_steps']}")
PY
done
echo "timed in $((SECONDS - t2)) s"

# The table: per option, the worst difference over the variants and their verdicts, final's cost.
"$python" - "$out/validation.log" "$out/timing.csv" "$work/validation/self_heating" "$timed_zones" "$fake" \
  >"$out/gpu-physics.txt" <<'PY'
import csv, sys
log, timing, heated, zones, fake = sys.argv[1:6]
cells = {}
for line in open(log):
    f = line.split()
    if len(f) == 5 and f[0] == "RESULT":
        cells.setdefault(f[1], []).append((f[2], f[3], f[4]))
times = {r["option"]: r for r in csv.DictReader(open(timing))}
base = float(times.get("none", {}).get("ns_per_zone_step", "nan"))
title = "FAKE (CPU runs) " if fake == "1" else ""
print(f"{title}issue 21 physics on the GPU: rp-z24 c2 regime; max rel. diff. GPU vs CPU (rtol 1e-12, floor 1e-28), "
      f"final timed at {zones} zones")
print(f"{'option':<21} {'variants ok':>11} {'max rel diff':>12} {'final ns/zs':>12} {'x none':>7} {'failed':>6}")
rows = ["none", "weak", "chugunov2007", "partition_functions", "neutrino_losses", "self_heating", "all",
        "all@128x0x0", "none(again)", "adaptive", "qss2:none", "qss2:weak", "qss2:all", "implicit:none",
        "implicit:weak", "implicit:all"]
for option in rows:
    t = times.get(option)
    if option not in cells and t is None:
        continue
    c = cells.get(option, [])  # validation: the plain option rows only
    ok = f"{sum(v == 'ok' for _, _, v in c)}/{len(c)}" if c else "-"
    diffs = [float(d) for _, d, _ in c if d not in ("", "nan", "refused")]  # refused: the deck's refusal checked
    worst = f"{max(diffs):.2e}" if diffs else "-"
    ns = float(t["ns_per_zone_step"]) if t else float("nan")
    ns_text = f"{ns:.2f}" if t else "-"
    # x none: against the same method's run without options (METHOD:none), the asymptotic's otherwise
    own = float(times[option.split(":")[0] + ":none"]["ns_per_zone_step"]) if ":" in option and \
        option.split(":")[0] + ":none" in times else base
    ratio = f"{ns / own:.2f}" if t and own == own and own > 0 else "-"
    failed = t["failed_zone_steps"] if t else "-"
    print(f"{option:<21} {ok:>11} {worst:>12} {ns_text:>12} {ratio:>7} {failed:>6}")
print("adaptive: weak screening, adaptive schedule, the GPU within 10x the CPU's one-ulp sensitivity (compare_adaptive.py)")
print("METHOD:OPTION rows: that method on the GPU against the CPU with it (qss2 1e-12, implicit 1e-10); "
      "implicit timed at 8,192 zones; x none against the method's own run without options")
try:
    import h5py, numpy as np
    with h5py.File(heated + "-cpu_step000000.h5", "r") as f0, h5py.File(heated + "-final_step000001.h5", "r") as f1:
        T0, T1 = f0["temperature"][()], f1["temperature"][()]
    rise = (T1 - T0) / T0
    print(f"self_heating: T9 rose by {rise.min():.2e} .. {rise.max():.2e} (relative) over 1e-11 .. 1e-7 s in final's "
          f"{len(T1)} validated zones")
except Exception as error:  # no h5py, or no file
    print(f"self_heating T9: not read ({error})")
PY
cat "$out/gpu-physics.txt"
rm -f "$work"/timed-*.h5
find "$work/validation" -name '*.h5' -delete 2>/dev/null
tar czf "$out/logs.tgz" -C "$work" .
echo "== total $((SECONDS - t0)) s; table in $out/gpu-physics.txt"
[ "$validation_status" -eq 0 ]
