#!/usr/bin/env bash
# Round 4, call 2 (issues 16 and 17), on the H200: the implicit team kernel reworked from call 1's
# profile (solves by waves, LU records, lane groups for the species' sums, Jacobian pieces, LU
# column indices in LDS, 128 threads) validated and timed (scripts/gpu-implicit.sh), racecheck and
# memcheck on it, (d) with final's kept reductions (e1 + e3 + e4 of call 1) timed and compared,
# ctest -L gpu, and ncu of the new implicit kernel. Parts stop at their budgets; one summary.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-$OUT}; mkdir -p "$out"; work=/tmp/r4c2; rm -rf "$work"; mkdir -p "$work"; t0=$SECONDS
export PATH=$PATH:/usr/local/cuda/bin
log() { echo "$*" | tee -a "$out/summary.txt"; }
left() { echo $((${DEADLINE:-560} - (SECONDS - t0))); }
log "== round4 call2 $(date -u +%FT%TZ), commit ${ZONEODE_COMMIT:-unknown}; $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader)"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_FLAGS=-lineinfo -DZONEODE_KERNEL=all -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=ON -DZONEODE_GPU_RESOURCE_REPORT=ON \
  >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
cmake --build build-gpu -j 16 --target zoneode zoneode-compare zoneode-ceilings zoneode_gpu_tests >build-gpu/build-report.log 2>&1 ||
  { grep -B5 -A20 -m3 " error" build-gpu/build-report.log | head -60; exit 1; }
log "built after $((SECONDS - t0)) s"
z=build-gpu/zoneode cmp=build-gpu/zoneode-compare d=inputs/bench/d-study-104.yaml
# 1. the implicit method: validation at 1e-10 (s150, rp-z24; every implicit kernel) and timing
SKIP_BUILD=1 ZONEODE_BUILD_DIR=build-gpu DEADLINE=150 RUN_TIMEOUT=60 TIMED_KERNELS="lds baseline" CPU_ZONES=1024 \
  timeout 230 scripts/gpu-implicit.sh "$work/implicit" >"$work/implicit.log" 2>&1
log "gpu-implicit exit $? after $((SECONDS - t0)) s"
sed -n '/^gpu-implicit /,$p' "$work/implicit/gpu-implicit.txt" 2>/dev/null | tee -a "$out/summary.txt"
grep -E "tests (passed|FAILED)" "$work/implicit/gpu-implicit.log" | tail -1 | tee -a "$out/summary.txt"
imp=(inputs/s150.yaml --quiet --force --set integrator.method=implicit --set integrator.schedule=adaptive --set integrator.rtol=1e-6
     --set integrator.atol=1e-16 --backend gpu --kernel lds)
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$1" "$2" 2>/dev/null || echo -; }
# the CPU reference of (d) while the GPU alone works (after gpu-implicit's CPU timings)
$z $d --quiet --force --threads 14 --set output.prefix="$work/cpu-d" >"$work/cpu-d.log" 2>&1 &
cpu_pid=$!
for cfg in 256x0 128x0; do
  timeout 60 $z "${imp[@]}" --set zones.count=65536 --set run.kernel_config=$cfg --summary "$work/lds-$cfg.json" >"$work/lds-$cfg.log" 2>&1
  log "s150 implicit lds $cfg, 65536 zones: $(json "$work/lds-$cfg.json" us_per_zone) us/zone, $(json "$work/lds-$cfg.json" ns_per_zone_step) ns/zone-step, $(grep -o 'rank 0 -> .*' "$work/lds-$cfg.log" | head -1 | cut -c1-200)"
done
# 2. (d): final as kept, against the CPU
wait $cpu_pid
for k in 1 2 3; do
  pre=(); [ $k = 1 ] && pre=(--set output.prefix="$work/gpu-d")
  $z $d --quiet --force --backend gpu "${pre[@]}" --summary "$work/d-$k.json" >"$work/d-$k.log" 2>&1
  echo "$(json "$work/d-$k.json" ns_per_zone_step)" >>"$work/d-times.txt"
done
$cmp "$work/cpu-d_step000001.h5" "$work/gpu-d_step000001.h5" --rtol 1e-12 --atol 1e-28 >"$work/d-compare.txt" 2>&1
log "(d) final: $(tr '\n' ' ' <"$work/d-times.txt")ns/zone-step; compare rc $?: $(grep -m1 abundances "$work/d-compare.txt")"
# 3. racecheck and memcheck of the new implicit team kernel (and its wave kernel)
for spec in "racecheck lds" "memcheck lds" "racecheck wave"; do
  read -r tool kernel <<<"$spec"
  [ "$(left)" -gt 150 ] || { log "$tool $kernel: skipped (time)"; continue; }
  timeout 80 compute-sanitizer --tool "$tool" --error-exitcode 9 $z inputs/quick.yaml --quiet --force --set zones.count=8 \
    --set integrator.method=implicit --set integrator.end_time=1e-8 --backend gpu --kernel "$kernel" >"$work/$tool-$kernel.log" 2>&1
  log "$tool implicit $kernel: exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$work/$tool-$kernel.log" | tail -1)"
done
# 4. ctest -L gpu (every asymptotic variant against the CPU; gpu_physics is the physics script's)
if [ "$(left)" -gt 100 ]; then
  timeout $(( $(left) - 70 )) ctest --test-dir build-gpu -L gpu -E gpu_physics --output-on-failure >"$work/ctest.log" 2>&1
  log "ctest -L gpu exit $?: $(grep -E 'tests passed|tests failed' "$work/ctest.log")"
else
  log "ctest: skipped (time)"
fi
# 5. ncu on the new implicit kernel, as in call 1
if [ "$(left)" -gt 60 ]; then
  timeout $(( $(left) - 10 )) ncu --clock-control none --section WarpStateStats --section SourceCounters --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section InstructionStats --import-source yes -k regex:implicit_team -c 1 -f -o "$work/ncu-implicit" \
    $z "${imp[@]}" --set integrator.end_time=1e-9 --set zones.count=528 --summary "$work/ncu-implicit.json" >"$work/ncu.log" 2>&1
  if [ -f "$work/ncu-implicit.ncu-rep" ]; then
    ncu -i "$work/ncu-implicit.ncu-rep" --page details >"$work/ncu-implicit-details.txt" 2>&1
    ncu -i "$work/ncu-implicit.ncu-rep" --page source --csv --print-source cuda,sass --print-units base >"$work/ncu-implicit-cudasass.csv" 2>&1
    log "ncu implicit: $(grep -E '^ +(Duration|Executed Instructions  |Warp Cycles Per Issued Instruction)' "$work/ncu-implicit-details.txt" | awk '{$1=$1; print}' | tr '\n' ';')"
  fi
fi
grep -E "Compiling entry|registers|spill" build-gpu/build-report.log | sed 's/ptxas info *: //' | paste - - - >"$work/resources-sm90.txt"
(cd "$work" && tar czf "$out/logs.tgz" --exclude='*.h5' --exclude='*.ncu-rep' .)
log "== done after $((SECONDS - t0)) s"
