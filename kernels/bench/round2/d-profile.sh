#!/usr/bin/env bash
# Call 3 (issue 16): where the 104-zone problem's step latency goes. ncu (source-level stalls) on
# final at 256 and 512 threads over a shortened (d) (46,000 steps), and (d) timed whole at 256/512.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-$OUT}; mkdir -p "$out"; work=$(mktemp -d); t0=$SECONDS
log() { echo "$*" | tee -a "$out/summary.txt"; }
cmake -S . -B build-gpu -G Ninja -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 -DZONEODE_HDF5=SERIAL \
  -DZONEODE_TESTS=OFF -DZONEODE_KERNEL=final >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
cmake --build build-gpu -j 16 --target zoneode >"$work/build.log" 2>&1 || { grep -B3 -A20 error "$work/build.log" | head -60; exit 1; }
log "build done after $((SECONDS - t0)) s"
z=build-gpu/zoneode
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$1" "$2"; }
d=inputs/bench/d-study-104.yaml
for cfg in 256x0x0 512x0x0; do
  $z $d --quiet --set run.kernel_config=$cfg --backend gpu --summary $work/t.json >$work/t.log 2>&1
  log "d $cfg: $(json $work/t.json ns_per_zone_step) ns/zone-step, status $(json $work/t.json zones_by_status)"
done
sections="--section SpeedOfLight --section Occupancy --section WarpStateStats --section InstructionStats --section SchedulerStats --section SourceCounters"
for cfg in 256x0x0 512x0x0; do
  timeout 100 ncu --clock-control none $sections -k regex:final -c 1 -o $work/ncu-$cfg \
    $z $d --set integrator.end_time=1e-18 --quiet --set run.kernel_config=$cfg --backend gpu --summary $work/p-$cfg.json >$work/ncu-$cfg.log 2>&1 || log "ncu failed: $(tail -2 $work/ncu-$cfg.log)"
  if [ -f $work/ncu-$cfg.ncu-rep ]; then
    ncu -i $work/ncu-$cfg.ncu-rep --page details > $out/ncu-d-$cfg-details.txt 2>&1
    ncu -i $work/ncu-$cfg.ncu-rep --page source --csv --print-source sass > $work/ncu-d-$cfg-sass.csv 2>&1
    log "ncu d $cfg: zone-steps $(json $work/p-$cfg.json steps) $(grep -E '^ +(Duration|Executed Instructions  |Registers Per Thread|Warp Cycles Per Issued)' $out/ncu-d-$cfg-details.txt | awk '{$1=$1; print}' | tr '\n' ';')"
  fi
done
tar czf "$out/dprof.tgz" -C "$work" $(cd $work && ls *.csv *.log 2>/dev/null) 2>/dev/null
log "== done after $((SECONDS - t0)) s"
