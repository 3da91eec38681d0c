#!/usr/bin/env bash
# Round 4, call 1 (issues 16 and 17), on the H200: where the implicit team kernel's step goes (ncu,
# source-level, on s150 at rtol 1e-6), where (d)'s step goes (ncu on final's 512-thread kernel), and
# (d) timed and compared with the CPU for six versions of the three files the step's reductions and
# control live (eN: e0 the last landing, 3f56a54; e1 + the waves' partials by a butterfly; e2, e3,
# e4 = e1 + the species' chunk sums in four chains, + the drift check without a division, + the
# transposed wave reduction; e5 = e1-e4 together). The call ran with the three files of each
# version copied in from sets/eN; these are made here from patches/ (git apply), sets/ not kept.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-$OUT}; mkdir -p "$out"; work=/tmp/r4; rm -rf "$work"; mkdir -p "$work/bin"; t0=$SECONDS
log() { echo "$*" | tee -a "$out/summary.txt"; }
export PATH=$PATH:/usr/local/cuda/bin
log "== round4 explore $(date -u +%FT%TZ), commit ${ZONEODE_COMMIT:-unknown}; $(nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader)"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_CUDA_FLAGS=-lineinfo -DZONEODE_KERNEL=all -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF >"$work/configure.log" 2>&1 ||
  { tail -30 "$work/configure.log"; exit 1; }
cmake --build build-gpu -j 16 --target zoneode zoneode-compare >"$work/build.log" 2>&1 ||
  { grep -B5 -A20 -m3 " error" "$work/build.log" | head -60; exit 1; }
log "main build after $((SECONDS - t0)) s"
z=build-gpu/zoneode cmp=build-gpu/zoneode-compare
d=inputs/bench/d-study-104.yaml
# The CPU reference of (d) (all 104 zones, 15 threads) in the background while the versions build.
$z $d --quiet --force --threads 15 --set output.prefix="$work/cpu-d" --summary "$work/cpu-d.json" >"$work/cpu-d.log" 2>&1 &
cpu_pid=$!
# The six versions' files (sets/eN) from the patches, over 3f56a54's (e0): needs this checkout's
# git (the device machine's copy has none: make the sets here first, then they travel).
p=$PWD/kernels/bench/round4/patches files="kernels/gpu_runtime.hpp kernels/zone_team.hpp src/integrators/step_control.hpp"
if [ ! -d kernels/bench/round4/sets ]; then
  rm -rf "$work/base" && mkdir -p "$work/base" && git archive 3f56a54 $files | tar -x -C "$work/base" || exit 1
  make_set() {  # make_set NAME PATCH...
    local d=$PWD/kernels/bench/round4/sets/$1; shift
    rm -rf "$work/apply" && cp -r "$work/base" "$work/apply" && mkdir -p "$d" || exit 1
    for patch in "$@"; do (cd "$work/apply" && git apply -p1 "$p/$patch.patch") || exit 1; done
    cp -r "$work/apply/." "$d/"
  }
  make_set e0; make_set e1 e1-shuffle; make_set e2 e1-shuffle e2-species; make_set e3 e1-shuffle e3-drift
  make_set e4 e1-shuffle e4-transposed; make_set e5 e1-shuffle e2-species e3-drift e4-transposed
fi
# The six versions: a copy of the tree, the set's files over it, final only.
mkdir -p "$work/src"; tar --exclude=./build-gpu --exclude=./.git -cf - . | tar -xf - -C "$work/src"
for e in e0 e1 e2 e3 e4 e5; do
  cp -r kernels/bench/round4/sets/$e/. "$work/src/"
  if [ ! -f "$work/eb/build.ninja" ]; then
    cmake -S "$work/src" -B "$work/eb" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DZONEODE_KERNEL=final -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF >"$work/eb-configure.log" 2>&1 || { tail -20 "$work/eb-configure.log"; exit 1; }
  fi
  cmake --build "$work/eb" -j 16 --target zoneode >"$work/eb-$e.log" 2>&1 || { grep -B3 -A12 -m2 " error" "$work/eb-$e.log" | head -40; log "$e: build failed"; continue; }
  cp "$work/eb/zoneode" "$work/bin/$e"
  log "$e built after $((SECONDS - t0)) s: $(grep -A1 'final_kernelILi512ELb1ELb1E' "$work/eb-$e.log" | grep -o 'Used [0-9]* registers' | head -1)"
done
# ncu while the CPU reference runs: the implicit team kernel (lds, 528 zones = the resident blocks,
# 10 steps each) and final at 512 threads on a shortened (d).
sections="--section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section SourceCounters"
imp=(inputs/s150.yaml --quiet --force --set integrator.method=implicit --set integrator.schedule=adaptive --set integrator.rtol=1e-6
     --set integrator.atol=1e-16 --set integrator.end_time=1e-9 --set zones.count=528 --backend gpu --kernel lds)
timeout 200 ncu --clock-control none $sections --import-source yes -k regex:implicit_team -c 1 -f -o "$work/ncu-implicit" \
  $z "${imp[@]}" --summary "$work/ncu-implicit.json" >"$work/ncu-implicit.log" 2>&1 || log "ncu implicit: $(tail -2 "$work/ncu-implicit.log")"
timeout 150 ncu --clock-control none $sections --import-source yes -k regex:final -c 1 -f -o "$work/ncu-d" \
  $z $d --quiet --force --set integrator.end_time=1e-18 --backend gpu --summary "$work/ncu-d.json" >"$work/ncu-d.log" 2>&1 ||
  log "ncu d: $(tail -2 "$work/ncu-d.log")"
for r in implicit d; do
  [ -f "$work/ncu-$r.ncu-rep" ] || continue
  ncu -i "$work/ncu-$r.ncu-rep" --page details >"$out/ncu-$r-details.txt" 2>&1
  ncu -i "$work/ncu-$r.ncu-rep" --page source --csv --print-source cuda --print-units base >"$work/ncu-$r-cuda.csv" 2>&1
  ncu -i "$work/ncu-$r.ncu-rep" --page source --csv --print-source sass --print-units base >"$work/ncu-$r-sass.csv" 2>&1
  ncu -i "$work/ncu-$r.ncu-rep" --page source --csv --print-source cuda,sass --print-units base >"$work/ncu-$r-cudasass.csv" 2>&1
  log "ncu $r: $(grep -E '^ +(Duration|Executed Instructions  |Registers Per Thread|Warp Cycles Per Issued Instruction)' "$out/ncu-$r-details.txt" | awk '{$1=$1; print}' | tr '\n' ';')"
done
log "ncu done after $((SECONDS - t0)) s"
wait $cpu_pid; log "CPU (d) reference exit $? after $((SECONDS - t0)) s"
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$1" "$2"; }
# (d) timed: three rounds over the versions (interleaved), the first run of each compared with the CPU.
for k in 1 2 3; do
  for e in e0 e1 e2 e3 e4 e5; do
    [ -x "$work/bin/$e" ] || continue
    pre=(); [ $k = 1 ] && pre=(--set output.prefix="$work/$e-d")
    "$work/bin/$e" $d --quiet --force --backend gpu "${pre[@]}" --summary "$work/$e-$k.json" >"$work/$e-$k.log" 2>&1
    echo "$e $k $(json "$work/$e-$k.json" ns_per_zone_step) $(json "$work/$e-$k.json" result_hash)" >>"$work/times.txt"
  done
done
for e in e0 e1 e2 e3 e4 e5; do
  [ -x "$work/bin/$e" ] || continue
  $cmp "$work/cpu-d_step000001.h5" "$work/$e-d_step000001.h5" --rtol 1e-12 --atol 1e-28 >"$work/$e-compare.txt" 2>&1
  rc=$?
  log "$e (d): ns/zone-step $(awk -v e=$e '$1==e {printf "%s ", $3}' "$work/times.txt")hash $(awk -v e=$e '$1==e && $2==1 {print $4}' "$work/times.txt"), compare rc $rc: $(grep -m1 -iE 'max|worst' "$work/$e-compare.txt")"
done
tar czf "$out/logs.tgz" -C "$work" $(cd "$work" && ls *.log *.csv *.txt *.json 2>/dev/null) 2>/dev/null
log "== done after $((SECONDS - t0)) s"
