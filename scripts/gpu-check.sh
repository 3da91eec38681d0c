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
build=${ZONEODE_BUILD_DIR:-build-gpu}
gpu=${ZONEODE_GPU:-CUDA}
cores=$(nproc)
mpi_flags=(--oversubscribe); [ "$(id -u)" -eq 0 ] && mpi_flags+=(--allow-run-as-root)
echo "== gpu-check $(date -u +%FT%TZ) on $(hostname), $cores cores, commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

cmake -S . -B "$build" -G Ninja -DZONEODE_GPU="$gpu" -DZONEODE_HDF5=SERIAL -DZONEODE_GPU_RESOURCE_REPORT=ON \
  >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j "$cores" >"$out/build.log" 2>&1 || { grep -B5 -A20 "error" "$out/build.log" | head -80; exit 1; }
echo "== device resource usage (ptxas -v)"
grep -E "Compiling entry|registers|spill" "$out/build.log" | sed 's/ptxas info *: //' | paste - - - | \
  sed -E 's/.*_([a-z]+)_kernel[^ ]* .*(Used [0-9]+ registers)[^,]*, .*(\b[0-9]+ bytes smem).*/\1: \2, \3/' | tee "$out/resources.txt"

echo "== ctest -L gpu"
ctest --test-dir "$build" -L gpu --output-on-failure 2>&1 | tee "$out/ctest-gpu.log" | tail -40

variants=$(sed -n 's/.*ZONEODE_KERNEL *= *[a-z]* -> \([a-z;]*\).*/\1/p' "$out/configure.log" | tr ';' ' ')
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
printf "%-8s %8s %12s %10s %12s %10s %9s %10s\n" deck zones cpu_ns/zs variant gpu_ns/zs gpu_zones cpu/gpu max_rel | tee "$table"
# deck, zones compared (CPU and GPU on the same zones), zones timed on the GPU, extra settings
while read -r deck zones gpu_zones extra; do
  common=(inputs/$deck.yaml --quiet --force --set integrator.schedule=geometric $extra)
  # Exit 3 (some zones failed) still writes the outputs; the table counts on both backends alike.
  OMP_NUM_THREADS=$cores "$zoneode" "${common[@]}" --threads "$cores" --set zones.count="$zones" \
    --set output.prefix="$out/$deck-cpu" --summary "$out/$deck-cpu.json" >"$out/$deck-cpu.log" 2>&1 || true
  cpu_ns=$(field "$out/$deck-cpu.json" ns_per_zone_step)
  for variant in $variants; do
    "$zoneode" "${common[@]}" --backend gpu --kernel "$variant" --set zones.count="$zones" \
      --set output.prefix="$out/$deck-$variant" >"$out/$deck-$variant-check.log" 2>&1 || true
    "$compare" "$out/$deck-cpu_step000001.h5" "$out/$deck-${variant}_step000001.h5" --json "$out/$deck-$variant-compare.json" \
      --quiet --rtol 1e-12 --atol 1e-28 && verdict=ok || verdict=FAIL
    # Median of 3 timed runs on the larger zone set.
    times=()
    for repeat in 1 2 3; do
      "$zoneode" "${common[@]}" --backend gpu --kernel "$variant" --set zones.count="$gpu_zones" \
        --summary "$out/$deck-$variant-$repeat.json" >"$out/$deck-$variant-$repeat.log" 2>&1 || true
      times+=("$(field "$out/$deck-$variant-$repeat.json" ns_per_zone_step)")
    done
    gpu_ns=$(printf "%s\n" "${times[@]}" | sort -g | sed -n 2p)
    printf "%-8s %8s %12.1f %10s %12.2f %10s %9.1f %10s\n" "$deck" "$zones" "$cpu_ns" "$variant" "$gpu_ns" "$gpu_zones" \
      "$(python3 -c "print($cpu_ns/$gpu_ns)")" "$(worst "$out/$deck-$variant-compare.json") $verdict" | tee -a "$table"
  done
done <<'DECKS'
quick 2048 65536
s150 1024 16384
default 1024 16384
DECKS
# The adaptive schedule (default deck as shipped): accept/reject may flip on last-bit differences.
echo "== adaptive schedule, default deck, 1024 zones"
OMP_NUM_THREADS=$cores "$zoneode" inputs/default.yaml --quiet --force --threads "$cores" --set zones.count=1024 \
  --set output.prefix="$out/adaptive-cpu" >"$out/adaptive-cpu.log" 2>&1 || true
for variant in $variants; do
  "$zoneode" inputs/default.yaml --quiet --force --backend gpu --kernel "$variant" --set zones.count=1024 \
    --set output.prefix="$out/adaptive-$variant" >"$out/adaptive-$variant.log" 2>&1 || true
  echo -n "  $variant: " | tee -a "$table"
  python3 scripts/compare_adaptive.py "$out/adaptive-cpu_step000001.h5" "$out/adaptive-${variant}_step000001.h5" 1e-3 \
    | tee -a "$table" || true
done
rm -f "$out"/*.h5
echo "== table in $table"
cat "$table"
