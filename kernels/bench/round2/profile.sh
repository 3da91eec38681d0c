#!/usr/bin/env bash
# First look at the regimes (issue 16): final timed per regime, validated against the CPU, and
# profiled with ncu. Usage: kernels/bench/round2/profile.sh OUT
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-$OUT}; mkdir -p "$out"; work=$(mktemp -d); t0=$SECONDS
log() { echo "$*" | tee -a "$out/summary.txt"; }
log "== profile $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader)"
cmake -S . -B build-gpu -G Ninja -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 -DZONEODE_HDF5=SERIAL \
  -DZONEODE_TESTS=OFF -DZONEODE_KERNEL=all >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
cmake --build build-gpu -j 16 --target zoneode zoneode-compare >"$work/build.log" 2>&1 || { grep -B3 -A20 error "$work/build.log" | head -60; exit 1; }
log "build done after $((SECONDS - t0)) s"
z=build-gpu/zoneode c=build-gpu/zoneode-compare
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$1" "$2"; }
# regime: name, deck, --set arguments (timing schedule)
declare -A deck args
deck[a]=inputs/s150.yaml;   args[a]="--set integrator.end_time=1e-5"
deck[b]=kernels/bench/round2/s150hot.yaml; args[b]="--set integrator.start_time=1e-20 --set integrator.end_time=1e-19 --set integrator.dt_fraction=1e-3"
deck[c1]=kernels/bench/round2/rp24-hot.yaml; args[c1]="--set integrator.end_time=1e-19"
deck[c2]=kernels/bench/round2/rp24-rp.yaml;  args[c2]=""
for r in a b c1 c2; do
  # validation: 256 zones, CPU (16 threads) against final and baseline
  $z ${deck[$r]} ${args[$r]} --quiet --force --set zones.count=256 --threads 16 --set output.prefix=$work/$r-cpu >$work/$r-cpu.log 2>&1
  for v in final baseline; do
    $z ${deck[$r]} ${args[$r]} --quiet --force --set zones.count=256 --backend gpu --kernel $v --set output.prefix=$work/$r-$v >$work/$r-$v.log 2>&1
    $c $work/$r-cpu_step000001.h5 $work/$r-${v}_step000001.h5 --rtol 1e-12 --atol 1e-28 >$work/$r-$v-compare.txt 2>&1 && ok=match || ok=DIFFER
    log "$r $v vs cpu (256 zones): $ok $(grep -m1 -o 'max rel[^,]*' $work/$r-$v-compare.txt)"
  done
  for v in final wave baseline; do
    zones=65536; [ $v = final ] || zones=16384
    $z ${deck[$r]} ${args[$r]} --quiet --set zones.count=$zones --backend gpu --kernel $v --summary $work/$r-$v.json >$work/$r-$v-time.log 2>&1
    log "$(printf '%-3s %-8s %6d zones %8.2f ns/zone-step  %s' $r $v $zones "$(json $work/$r-$v.json ns_per_zone_step)" "$(grep -o 'rank 0 -> .*' $work/$r-$v-time.log | sed 's/.*CUDA, //' | cut -c1-90)")"
  done
done
# (d) the study's shape: 104 zones, 1e-20..1e-6, dt 1e-4 t, rp-z24 hot and s150 hot
for r in c1 b; do
  $z ${deck[$r]} --quiet --set zones.count=104 --set integrator.start_time=1e-20 --set integrator.end_time=1e-6 \
    --set integrator.dt_fraction=1e-4 --backend gpu --kernel final --summary $work/d-$r.json >$work/d-$r.log 2>&1
  log "d($r network) final 104 zones: $(json $work/d-$r.json ns_per_zone_step) ns/zone-step, $(json $work/d-$r.json integrate_seconds) s, steps $(json $work/d-$r.json steps)"
done
log "timing done after $((SECONDS - t0)) s"
# ncu: final on each regime, ~500 steps, 2640 zones; sections that answer the issue's questions.
sections="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section InstructionStats --section SchedulerStats --section MemoryWorkloadAnalysis_Tables --section SourceCounters"
declare -A pargs
pargs[a]="--set integrator.end_time=1e-8"
pargs[b]="--set integrator.start_time=1e-20 --set integrator.end_time=1.65e-20 --set integrator.dt_fraction=1e-3"
pargs[c1]="--set integrator.end_time=1.65e-20"
pargs[c2]="--set integrator.end_time=1e-7"
for r in a b c1 c2; do
  timeout 150 ncu --clock-control none $sections --import-source yes -k regex:final -c 1 -o $work/ncu-$r \
    $z ${deck[$r]} ${pargs[$r]} --quiet --set zones.count=2640 --backend gpu --kernel final --summary $work/p-$r.json >$work/ncu-$r.log 2>&1 || log "ncu $r failed: $(tail -2 $work/ncu-$r.log)"
  if [ -f $work/ncu-$r.ncu-rep ]; then
    ncu -i $work/ncu-$r.ncu-rep --page details > $work/ncu-$r-details.txt 2>&1
    ncu -i $work/ncu-$r.ncu-rep --page source --csv --print-source sass > $work/ncu-$r-sass.csv 2>&1
    ncu -i $work/ncu-$r.ncu-rep --page raw --csv > $work/ncu-$r-raw.csv 2>&1
    log "ncu $r: zone-steps $(json $work/p-$r.json steps) $(grep -E '^ +(Duration|Executed Ipc Active|Issue Slots Busy|Achieved Occupancy|Registers Per Thread|Branch Efficiency|Avg. Divergent Branches)' $work/ncu-$r-details.txt | awk '{$1=$1; print}' | tr '\n' ';')"
  fi
  log "after $((SECONDS - t0)) s"
done
cp $work/ncu-*-details.txt "$out/" 2>/dev/null
rm -f $work/*.h5
tar czf "$out/profile.tgz" -C "$work" . 2>/dev/null
log "== done after $((SECONDS - t0)) s"
