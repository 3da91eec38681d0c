#!/usr/bin/env bash
# Prepared for the next H200 call (not yet run): the implicit team kernel's solves reading one
# precomputed task per lane per round, loaded a round ahead (solve-lane-tasks.patch; EXPERIMENTS.md,
# round 4, "what would cut it next"), side by side with the kernel as it is. Builds both (this
# tree, and a copy with the patch applied by apply_patch.py), checks both against the CPU implicit
# method on s150 (1,024 zones, 1e-10) and the two GPU results against each other (the patch
# changes where a lane's task comes from, not the sums: bitwise the same on the CPU emulation),
# times both on 65,536 zones twice, interleaved, and runs racecheck on the patched one.
#   kernels/bench/round5/solve-tasks.sh OUT
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-$OUT}; mkdir -p "$out"; work=/tmp/r5; rm -rf "$work"; mkdir -p "$work/src"; t0=$SECONDS
export PATH=$PATH:/usr/local/cuda/bin
log() { echo "$*" | tee -a "$out/summary.txt"; }
log "== round5 solve-tasks $(date -u +%FT%TZ), commit ${ZONEODE_COMMIT:-unknown}"
tar --exclude='./build*' --exclude=./.git -cf - . | tar -xf - -C "$work/src"
python3 kernels/bench/round5/apply_patch.py kernels/bench/round5/solve-lane-tasks.patch "$work/src" >"$work/apply.log" 2>&1 ||
  { cat "$work/apply.log"; exit 1; }
for side in a b; do
  src=.; [ $side = b ] && src=$work/src
  cmake -S "$src" -B "$work/build-$side" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DZONEODE_KERNEL=final -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF >"$work/configure-$side.log" 2>&1 || { tail -20 "$work/configure-$side.log"; exit 1; }
  cmake --build "$work/build-$side" -j 16 --target zoneode zoneode-compare >"$work/build-$side.log" 2>&1 ||
    { grep -B3 -A15 -m2 " error" "$work/build-$side.log"; exit 1; }
done
log "built after $((SECONDS - t0)) s"
json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2" 2>/dev/null || echo -; }
imp=(inputs/s150.yaml --quiet --force --set integrator.method=implicit --set integrator.schedule=adaptive --set integrator.rtol=1e-6
     --set integrator.atol=1e-16)
a=$work/build-a/zoneode b=$work/build-b/zoneode cmp=$work/build-a/zoneode-compare
$a "${imp[@]}" --set zones.count=1024 --threads 16 --set output.prefix="$work/cpu" >"$work/cpu.log" 2>&1
for side in a b; do
  z=$work/build-$side/zoneode
  $z "${imp[@]}" --set zones.count=1024 --backend gpu --kernel lds --set output.prefix="$work/gpu-$side" >"$work/check-$side.log" 2>&1
  $cmp "$work/cpu_step000001.h5" "$work/gpu-${side}_step000001.h5" --rtol 1e-10 --atol 1e-16 >"$work/cmp-$side.txt" 2>&1
  log "$side against the CPU (1e-10): rc $? $(grep -m1 abundances "$work/cmp-$side.txt")"
done
$cmp "$work/gpu-a_step000001.h5" "$work/gpu-b_step000001.h5" --rtol 0 --atol 0 >"$work/cmp-ab.txt" 2>&1
log "a against b (bitwise): rc $? $(grep -m1 abundances "$work/cmp-ab.txt")"
for k in 1 2; do
  for side in a b; do
    z=$work/build-$side/zoneode
    timeout 60 $z "${imp[@]}" --set zones.count=65536 --backend gpu --kernel lds --summary "$work/t-$side-$k.json" >"$work/t-$side-$k.log" 2>&1
    log "$side run $k: $(json "$work/t-$side-$k.json" us_per_zone) us per zone, $(json "$work/t-$side-$k.json" ns_per_zone_step) ns per zone-step"
  done
done
timeout 80 compute-sanitizer --tool racecheck --error-exitcode 9 $b inputs/quick.yaml --quiet --force --set zones.count=8 \
  --set integrator.method=implicit --set integrator.end_time=1e-8 --backend gpu --kernel lds >"$work/racecheck.log" 2>&1
log "racecheck b: exit $? $(grep -E 'RACECHECK SUMMARY' "$work/racecheck.log" | tail -1)"
(cd "$work" && tar czf "$out/logs.tgz" --exclude='*.h5' --exclude='build-*' --exclude=src .)
log "== done after $((SECONDS - t0)) s"
