#!/usr/bin/env bash
# Call 2 (issue 16): final after the branch-free flux, unit terms and the lean geometric
# reduction; term order banks vs list; few-zone block sizes; one ncu profile. Usage: OUT
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-$OUT}; mkdir -p "$out"; work=$(mktemp -d); t0=$SECONDS
log() { echo "$*" | tee -a "$out/summary.txt"; }
log "== sweep2 $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader)"
cmake -S . -B build-gpu -G Ninja -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 -DZONEODE_HDF5=SERIAL \
  -DZONEODE_TESTS=OFF -DZONEODE_KERNEL=all >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
cmake --build build-gpu -j 16 --target zoneode zoneode-compare >"$work/build.log" 2>&1 || { grep -B3 -A20 error "$work/build.log" | head -60; exit 1; }
log "build done after $((SECONDS - t0)) s"
z=build-gpu/zoneode c=build-gpu/zoneode-compare
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$1" "$2"; }
declare -A deck args
deck[a]=inputs/s150.yaml;   args[a]="--set integrator.end_time=1e-5"
deck[b]=kernels/bench/round2/s150hot.yaml; args[b]="--set integrator.start_time=1e-20 --set integrator.end_time=1e-19 --set integrator.dt_fraction=1e-3"
deck[c1]=kernels/bench/round2/rp24-hot.yaml; args[c1]="--set integrator.end_time=1e-19"
deck[c2]=kernels/bench/round2/rp24-rp.yaml;  args[c2]=""
timed() {  # label zones extra-args...
  local label=$1 zones=$2; shift 2
  "$z" "$@" --quiet --set zones.count=$zones --backend gpu --kernel final --summary $work/t.json >$work/t.log 2>&1 \
    || { log "$label: FAILED $(tail -2 $work/t.log)"; return; }
  log "$(printf '%-34s %7d zones %8.2f ns/zone-step  %s' "$label" $zones "$(json $work/t.json ns_per_zone_step)" "$(grep -o 'rank 0 -> .*' $work/t.log | sed 's/.*CUDA, //' | cut -c1-80)")"
}
for r in a b c1 c2; do
  $z ${deck[$r]} ${args[$r]} --quiet --force --set zones.count=256 --threads 16 --set output.prefix=$work/$r-cpu >$work/$r-cpu.log 2>&1
  for order in banks list; do
    $z ${deck[$r]} ${args[$r]} --quiet --force --set zones.count=256 --backend gpu --kernel final --set run.term_order=$order --set output.prefix=$work/$r-$order >$work/$r-$order.log 2>&1
    $c $work/$r-cpu_step000001.h5 $work/$r-${order}_step000001.h5 --rtol 1e-12 --atol 1e-28 >$work/$r-$order-compare.txt 2>&1 && ok=match || ok=DIFFER
    log "$r final term_order=$order vs cpu (256 zones): $ok $(grep -m1 -o 'max rel [^;,]*' $work/$r-$order-compare.txt)"
  done
  for rep in 1 2; do for order in banks list; do timed "$r term_order=$order" 65536 ${deck[$r]} ${args[$r]} --set run.term_order=$order; done; done
done
# (d): 104 zones of rp-z24 at rp conditions, 1e-20..1e-6 at dt 1e-4 t (322,379 steps per zone)
d="kernels/bench/round2/rp24-rp.yaml --set integrator.start_time=1e-20 --set integrator.end_time=1e-6 --set integrator.dt_fraction=1e-4"
for cfg in "256x0x0 0" "512x0x0 6" "512x0x0 0" "1024x0x0 3" "1024x0x0 0"; do
  set -- $cfg
  extra=""; [ "$2" = 0 ] || extra="--set run.chunk_terms=$2"
  timed "d 104 zones config $1 chunk $2" 104 $d --set run.kernel_config=$1 $extra
done
timed "d 104 zones automatic" 104 $d
log "timing done after $((SECONDS - t0)) s"
sections="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section InstructionStats --section SchedulerStats --section MemoryWorkloadAnalysis_Tables --section SourceCounters"
timeout 120 ncu --clock-control none $sections -k regex:final -c 1 -o $work/ncu-a \
  $z inputs/s150.yaml --set integrator.end_time=1e-8 --quiet --set zones.count=2640 --backend gpu --kernel final --summary $work/p-a.json >$work/ncu-a.log 2>&1 || log "ncu failed: $(tail -2 $work/ncu-a.log)"
if [ -f $work/ncu-a.ncu-rep ]; then
  ncu -i $work/ncu-a.ncu-rep --page details > $out/ncu-a-details.txt 2>&1
  ncu -i $work/ncu-a.ncu-rep --page source --csv --print-source sass > $work/ncu-a-sass.csv 2>&1
  log "ncu a: zone-steps $(json $work/p-a.json steps) $(grep -E '^ +(Duration|Executed Instructions  |Registers Per Thread|Achieved Occupancy|Branch Efficiency)' $out/ncu-a-details.txt | awk '{$1=$1; print}' | tr '\n' ';')"
  grep -A4 "bank" $out/ncu-a-details.txt | head -8 | tee -a "$out/summary.txt"
fi
rm -f $work/*.h5
tar czf "$out/sweep2.tgz" -C "$work" . 2>/dev/null
log "== done after $((SECONDS - t0)) s"
