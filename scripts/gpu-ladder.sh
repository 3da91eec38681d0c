#!/usr/bin/env bash
# The kernel ladder in one command on the GPU machine: builds every variant (ZONEODE_KERNEL=all),
# measures the device's ceilings, counts the work of a zone-step, validates every variant against
# the CPU backend and times it (median of 5; the CPU on all host cores in the same run), sweeps the
# tuned/final configurations and the zone count, and prints the ladder table with each variant's
# fraction of the counted floor. Writes ladder.txt/.csv/.json, sweeps.txt and logs.tgz to OUT_DIR.
# Usage: scripts/gpu-ladder.sh [OUT_DIR]     (about 6 minutes on an H100/H200)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-gpu-ladder-out}}
mkdir -p "$out"
work=$(mktemp -d)
build=${ZONEODE_BUILD_DIR:-build-gpu}
cores=$(nproc)
log() { echo "$*" | tee -a "$out/ladder.txt"; }
log "== gpu-ladder $(date -u +%FT%TZ), commit ${ZONEODE_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}, $cores host cores"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader | tee -a "$out/ladder.txt"
cmake -S . -B "$build" -G Ninja -DZONEODE_GPU="${ZONEODE_GPU:-CUDA}" -DZONEODE_KERNEL=all -DZONEODE_HDF5=SERIAL \
  >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
cmake --build "$build" -j "$cores" >"$work/build.log" 2>&1 || { grep -B5 -A20 error "$work/build.log" | head -60; exit 1; }
zoneode=$build/zoneode compare=$build/zoneode-compare
variants="baseline lds wave tuned final"
json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

log "== ceilings (zoneode-ceilings, medians of 5)"
"$build/zoneode-ceilings" | tee -a "$out/ladder.txt" >"$work/ceilings.txt"
ceiling() { awk -v k="$1" '$1 == k {print $2}' "$work/ceilings.txt"; }
fma=$(ceiling fp64_fma) lds=$(ceiling lds_read) term=$(ceiling inner_term)

# s150, geometric: the study's size. Zones: 1024 compared with the CPU, 65536 timed.
deck=(inputs/s150.yaml --quiet --force --set integrator.end_time=1e-5)
"$zoneode" network info inputs/s150.yaml | grep "work per zone-step" | tee -a "$out/ladder.txt" >"$work/work.txt"
read -r flops terms bytes < <(sed -E 's/.*: ([0-9]+) flops, ([0-9]+) terms, ([0-9]+) B on chip.*/\1 \2 \3/' "$work/work.txt")
floor_ns=$(python3 -c "print(1e9 * max($flops / $fma, $bytes / $lds, $terms / $term))")
log "floor per zone-step over the whole GPU: max(flops/fp64 FMA rate, bytes/LDS bandwidth, terms/term rate) = $floor_ns ns"

for repeat in 1 2 3; do
  OMP_NUM_THREADS=$cores "$zoneode" "${deck[@]}" --threads "$cores" --set zones.count=1024 \
    --set output.prefix="$work/cpu" --summary "$work/cpu-$repeat.json" >"$work/cpu-$repeat.log" 2>&1 || true
  json "$work/cpu-$repeat.json" ns_per_zone_step
done | median >"$work/cpu_ns"
cpu_ns=$(cat "$work/cpu_ns")
log "cpu backend, $cores threads, 1024 zones: $cpu_ns ns per zone-step (median of 3)"

echo "variant,ns_per_zone_step,zone_steps_per_s,speedup_vs_baseline,speedup_vs_cpu,fraction_of_floor,max_rel_vs_cpu,placement" >"$out/ladder.csv"
printf "%-9s %10s %14s %9s %8s %9s %10s\n" variant ns/zs zone-steps/s vs_base vs_cpu of_floor max_rel | tee -a "$out/ladder.txt"
base_ns=""
for variant in $variants; do
  "$zoneode" "${deck[@]}" --backend gpu --kernel "$variant" --set zones.count=1024 --set output.prefix="$work/$variant" \
    >"$work/$variant-check.log" 2>&1 || true
  "$compare" "$work/cpu_step000001.h5" "$work/${variant}_step000001.h5" --rtol 1e-12 --atol 1e-28 \
    --json "$work/$variant-compare.json" >"$work/$variant-compare.txt" 2>&1 && verdict="" || verdict=" FAIL"
  max_rel=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('%.2e' % max(d.get('max_rel') or 0 for d in r['datasets'].values()))" "$work/$variant-compare.json" 2>/dev/null || echo n/a)
  for repeat in 1 2 3 4 5; do
    "$zoneode" "${deck[@]}" --backend gpu --kernel "$variant" --set zones.count=65536 \
      --summary "$work/$variant-$repeat.json" >"$work/$variant-$repeat.log" 2>&1 || true
    json "$work/$variant-$repeat.json" ns_per_zone_step
  done | median >"$work/ns"
  ns=$(cat "$work/ns")
  [ -n "$base_ns" ] || base_ns=$ns
  placement=$(grep -o 'rank 0 -> .*' "$work/$variant-1.log" | sed 's/.*): //')
  read -r rate vs_base vs_cpu fraction < <(python3 -c "print(1e9/$ns, $base_ns/$ns, $cpu_ns/$ns, $floor_ns/$ns)")
  printf "%-9s %10.2f %14.4g %9.2f %8.1f %9.3f %10s%s\n" "$variant" "$ns" "$rate" "$vs_base" "$vs_cpu" "$fraction" \
    "$max_rel" "$verdict" | tee -a "$out/ladder.txt"
  echo "$variant,$ns,$rate,$vs_base,$vs_cpu,$fraction,$max_rel,\"$placement\"" >>"$out/ladder.csv"
  echo "  $variant: $placement" >>"$work/placements.txt"
done
cat "$work/placements.txt" | tee -a "$out/ladder.txt"

log "== other decks: every variant against the CPU"
# s365 (geometric, 64 zones) within 1e-12; default (adaptive as shipped) by compare_adaptive.py.
"$zoneode" inputs/s365.yaml --quiet --force --set zones.count=64 --set integrator.end_time=1e-7 --threads "$cores" \
  --set output.prefix="$work/s365-cpu" >"$work/s365-cpu.log" 2>&1 || true
"$zoneode" inputs/default.yaml --quiet --force --set zones.count=1024 --threads "$cores" \
  --set output.prefix="$work/adaptive-cpu" >"$work/adaptive-cpu.log" 2>&1 || true
"$zoneode" inputs/default.yaml --quiet --force --set zones.count=1024 --threads "$cores" \
  --set integrator.rtol=1.0000000000000002e-3 --set output.prefix="$work/adaptive-ulp" >"$work/adaptive-ulp.log" 2>&1 || true
for variant in $variants; do
  "$zoneode" inputs/s365.yaml --quiet --force --set zones.count=64 --set integrator.end_time=1e-7 --backend gpu \
    --kernel "$variant" --set output.prefix="$work/s365-$variant" >"$work/s365-$variant.log" 2>&1 || true
  "$compare" "$work/s365-cpu_step000001.h5" "$work/s365-${variant}_step000001.h5" --rtol 1e-12 --atol 1e-28 \
    >"$work/s365-$variant-compare.txt" 2>&1 && v=ok || v=FAIL
  log "  s365 $variant: $v, $(grep -o 'placement: .*' "$work/s365-$variant.log" | head -1)"
  "$zoneode" inputs/default.yaml --quiet --force --set zones.count=1024 --backend gpu --kernel "$variant" \
    --set output.prefix="$work/adaptive-$variant" >"$work/adaptive-$variant.log" 2>&1 || true
  log "  default (adaptive) $variant: $(python3 scripts/compare_adaptive.py "$work/adaptive-cpu_step000001.h5" \
    "$work/adaptive-${variant}_step000001.h5" 1e-3 1e-12 --reference "$work/adaptive-ulp_step000001.h5" | tr '\n' ' ' || true)"
done

log "== sweeps (s150, 32768 zones, one run each): ZONEODE_KERNEL_CONFIG / ZONEODE_KERNEL_PLACEMENT"
sweep() {  # sweep VARIANT CONFIG PLACEMENT
  ZONEODE_KERNEL_CONFIG=$2 ZONEODE_KERNEL_PLACEMENT=$3 "$zoneode" "${deck[@]}" --backend gpu --kernel "$1" \
    --set zones.count=32768 --summary "$work/sweep.json" >"$work/sweep.log" 2>&1 || { echo "$1 $2 $3: failed" >>"$out/sweeps.txt"; return; }
  printf "%-6s %-9s %-8s %8.2f ns  %s\n" "$1" "$2" "$3" "$(json "$work/sweep.json" ns_per_zone_step)" \
    "$(grep -o 'rank 0 -> .*' "$work/sweep.log" | sed 's/.*CUDA, //')" >>"$out/sweeps.txt"
}
# The H200 sweeps (kernels/EXPERIMENTS.md) chose tuned 512x8x2 and final 128x0x6 with zone
# placement; these points check the neighbours of those choices.
for config in 256x8x0 512x8x2 512x16x2 512x4x2; do sweep tuned $config network; done
for config in 64x0x0 128x0x0 128x0x6 128x0x7 256x0x0 512x0x0; do
  for placement in network zone; do sweep final $config $placement; done
done
cat "$out/sweeps.txt"

log "== zone-count sweep (s150, end_time 1e-8: 463 steps per zone)"
for zones in 1 104 1000 10000 100000 1000000; do
  for variant in baseline final; do
    "$zoneode" inputs/s150.yaml --quiet --set integrator.end_time=1e-8 --backend gpu --kernel "$variant" \
      --set zones.count=$zones --summary "$work/zones.json" >"$work/zones.log" 2>&1 || true
    log "  $(printf "%8d zones %-8s %10.2f ns per zone-step, %8.4f s" $zones $variant \
      "$(json "$work/zones.json" ns_per_zone_step)" "$(json "$work/zones.json" integrate_seconds)")"
  done
done

log "== the study's problem at 104 zones (s150, 1e-20 to 1e-6 s, dt = 1e-4 t: 322,280 steps per zone)"
for variant in baseline final; do
  "$zoneode" inputs/s150.yaml --quiet --set zones.count=104 --set integrator.start_time=1e-20 \
    --set integrator.end_time=1e-6 --set integrator.dt_fraction=1e-4 --backend gpu --kernel "$variant" \
    --summary "$work/study.json" >"$work/study-$variant.log" 2>&1 || true
  log "  $(printf "%-8s %10.2f ns per zone-step, %8.4f s  %s" $variant "$(json "$work/study.json" ns_per_zone_step)" \
    "$(json "$work/study.json" integrate_seconds)" "$(grep -o 'rank 0 -> .*' "$work/study-$variant.log" | sed 's/.*CUDA, //' | cut -c1-60)")"
done

python3 - "$out/ladder.csv" "$out/ladder.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
json.dump(rows, open(sys.argv[2], "w"), indent=1)
PY
rm -f "$work"/*.h5
tar czf "$out/logs.tgz" -C "$work" .
echo "== done: $out/ladder.txt"
