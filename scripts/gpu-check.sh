#!/usr/bin/env bash
# One command on the GPU machine: builds the CUDA build (serial HDF5, as the H200 machine has),
# runs the GPU tests, then times the CPU backend (all cores) and every built kernel variant on the
# same decks and prints a table: deck, zones, CPU and GPU ns per zone-step, ratio, worst relative
# difference GPU vs CPU (geometric schedule, same zones). Logs and the table go to OUT_DIR.
# Usage: scripts/gpu-check.sh [OUT_DIR]        (ZONEODE_GPU=HIP for an AMD machine)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-gpu-check-out}}
mkdir -p "$out"
work=$(mktemp -d)  # run logs and files; packed into OUT_DIR/logs.tgz at the end
build=${ZONEODE_BUILD_DIR:-build-gpu}
gpu=${ZONEODE_GPU:-CUDA}
cores=$(nproc)
mpi_flags=(--oversubscribe); [ "$(id -u)" -eq 0 ] && mpi_flags+=(--allow-run-as-root)
echo "== gpu-check $(date -u +%FT%TZ) on $(hostname), $cores cores, commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

cmake -S . -B "$build" -G Ninja -DZONEODE_GPU="$gpu" -DZONEODE_HDF5=SERIAL -DZONEODE_GPU_RESOURCE_REPORT=ON \
  >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
cmake --build "$build" -j "$cores" >"$work/build.log" 2>&1 || { grep -B5 -A20 "error" "$work/build.log" | head -80; exit 1; }
echo "== device resource usage (ptxas -v)"
grep -E "Compiling entry|registers|spill" "$work/build.log" | sed 's/ptxas info *: //' | paste - - - >"$out/resources.txt"
wc -l <"$out/resources.txt" | sed 's/$/ kernel instantiations (resources.txt)/'

echo "== ctest -L gpu"
ctest --test-dir "$build" -L gpu --output-on-failure 2>&1 | tee "$out/ctest-gpu.log" | tail -40

variants=$(sed -n 's/.*ZONEODE_KERNEL *= *[a-z]* -> \([a-z;]*\).*/\1/p' "$work/configure.log" | tr ';' ' ')

echo "== compute-sanitizer memcheck, quick deck, 4 zones, every variant" | tee "$out/sanitizer.txt"
if command -v compute-sanitizer >/dev/null; then
  for variant in $variants; do
    status=0
    # zoneode.bin, the program itself: the tool's library goes straight into it (not through the
    # static launcher zoneode, docs/USAGE.md "Time limits and signals").
    compute-sanitizer --tool memcheck --error-exitcode 9 "$build/zoneode.bin" inputs/quick.yaml --quiet --backend gpu \
      --kernel "$variant" --set zones.count=4 --set integrator.end_time=1e-9 >"$work/sanitizer-$variant.log" 2>&1 || status=$?
    echo "  $variant: exit $status ($(grep -o 'ERROR SUMMARY: [0-9]* error.*' "$work/sanitizer-$variant.log" | head -1))" | tee -a "$out/sanitizer.txt"
  done
else
  echo "  compute-sanitizer not on the PATH: not run" | tee -a "$out/sanitizer.txt"
fi
zoneode=$build/zoneode compare=$build/zoneode-compare
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
worst() { python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
best = 0.0
def walk(x):
    global best
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "max_rel" and isinstance(v, (int, float)):
                best = max(best, v)
            walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
walk(r)
print(f"{best:.2e}")
PY
}
table="$out/gpu-check.txt"
echo "gpu-check $(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), CPU backend on $cores threads; geometric schedule" | tee "$table"
printf "%-8s %8s %12s %10s %12s %10s %9s %10s\n" deck zones cpu_ns/zs variant gpu_ns/zs gpu_zones cpu/gpu max_rel | tee -a "$table"
# deck, zones compared (CPU and GPU on the same zones), zones timed on the GPU, extra settings
while read -r deck zones gpu_zones extra; do
  common=(inputs/$deck.yaml --quiet --force --set integrator.schedule=geometric $extra)
  # Exit 3 (some zones failed) still writes the outputs; the table counts on both backends alike.
  OMP_NUM_THREADS=$cores "$zoneode" "${common[@]}" --threads "$cores" --set zones.count="$zones" \
    --set output.prefix="$work/$deck-cpu" --summary "$work/$deck-cpu.json" >"$work/$deck-cpu.log" 2>&1 || true
  cpu_ns=$(field "$work/$deck-cpu.json" ns_per_zone_step)
  for variant in $variants; do
    "$zoneode" "${common[@]}" --backend gpu --kernel "$variant" --set zones.count="$zones" \
      --set output.prefix="$work/$deck-$variant" >"$work/$deck-$variant-check.log" 2>&1 || true
    "$compare" "$work/$deck-cpu_step000001.h5" "$work/$deck-${variant}_step000001.h5" --json "$work/$deck-$variant-compare.json" \
      --quiet --rtol 1e-12 --atol 1e-28 && verdict=ok || verdict=FAIL
    # One timed run on the larger zone set (scripts/gpu-ladder.sh takes medians).
    times=()
    for repeat in 1; do
      "$zoneode" "${common[@]}" --backend gpu --kernel "$variant" --set zones.count="$gpu_zones" \
        --summary "$work/$deck-$variant-$repeat.json" >"$work/$deck-$variant-$repeat.log" 2>&1 || true
      times+=("$(field "$work/$deck-$variant-$repeat.json" ns_per_zone_step)")
    done
    gpu_ns=${times[0]}
    printf "%-8s %8s %12.1f %10s %12.2f %10s %9.1f %10s\n" "$deck" "$zones" "$cpu_ns" "$variant" "$gpu_ns" "$gpu_zones" \
      "$(python3 -c "print($cpu_ns/$gpu_ns)")" "$(worst "$work/$deck-$variant-compare.json") $verdict" | tee -a "$table"
  done
done <<'DECKS'
quick 2048 65536
s150 1024 16384
DECKS
# The adaptive schedule (the asymptotic method on the default deck, rtol 1e-3): accept/reject may
# flip on last-bit differences.
echo "== adaptive schedule, default deck, 1024 zones (the geometric schedule fails zones there by design)" | tee -a "$table"
asymptotic=(--set integrator.method=asymptotic --set integrator.rtol=1e-3)
OMP_NUM_THREADS=$cores "$zoneode" inputs/default.yaml --quiet --force --threads "$cores" --set zones.count=1024 \
  "${asymptotic[@]}" --set output.prefix="$work/adaptive-cpu" >"$work/adaptive-cpu.log" 2>&1 || true
OMP_NUM_THREADS=$cores "$zoneode" inputs/default.yaml --quiet --force --threads "$cores" --set zones.count=1024 \
  "${asymptotic[@]}" --set integrator.rtol=1.0000000000000002e-3 --set output.prefix="$work/adaptive-ulp" >"$work/adaptive-ulp.log" 2>&1 || true
for variant in $variants; do
  "$zoneode" inputs/default.yaml --quiet --force --backend gpu --kernel "$variant" --set zones.count=1024 \
    "${asymptotic[@]}" --set output.prefix="$work/adaptive-$variant" >"$work/adaptive-$variant.log" 2>&1 || true
  echo -n "  $variant: " | tee -a "$table"
  python3 scripts/compare_adaptive.py "$work/adaptive-cpu_step000001.h5" "$work/adaptive-${variant}_step000001.h5" 1e-3 \
    1e-12 --reference "$work/adaptive-ulp_step000001.h5" | tr '\n' ' ' | tee -a "$table" || true
  echo | tee -a "$table"
done
rm -f "$work"/*.h5
tar czf "$out/logs.tgz" -C "$work" .
echo "== table in $table"
cat "$table"
