#!/usr/bin/env bash
# The generated implicit kernel on the GPU machine, in one call (issue 36): builds the CUDA build,
# then (1) the first run of each network compiles its code (the time is in the run header), a second
# run loads it from the cache, a damaged cache entry is rebuilt, and a run without run-time
# compilation falls back with one line (exit 0); (2) the implicit ladder with the generated kernel
# beside lds and baseline, every cell validated against the CPU under the implicit rule.
# Usage: scripts/gpu-generated.sh OUT_DIR   (environment: as scripts/gpu-implicit-ladder.sh's)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${1:?usage: scripts/gpu-generated.sh OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PATH=$PATH:/usr/local/cuda/bin
build=${ZONEODE_BUILD_DIR:-build-gpu-generated}
exec > >(tee "$out/generated.log") 2>&1
echo "== gpu-generated $(date -u +%FT%TZ), commit $(git rev-parse --short=12 HEAD 2>/dev/null), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
start=$SECONDS
if [ -z "${SKIP_BUILD:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF -DZONEODE_KERNEL=final >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
  timeout 480 cmake --build "$build" -j "$(nproc)" --target zoneode zoneode-compare zoneode-ceilings >>"$out/build.log" 2>&1 ||
    { grep -B5 -A20 -m3 "error" "$out/build.log" | head -60; exit 1; }
  grep "run-time compilation" "$out/build.log"
  echo "== built in $((SECONDS - start)) s"
fi
zoneode=$build/zoneode
export ZONEODE_KERNEL_CACHE=$out/kernel-cache
rm -rf "$ZONEODE_KERNEL_CACHE"
work=$(mktemp -d)
header() { grep -o 'rank 0 -> .*' "$1" | head -1 | cut -c1-400; }
for regime in "default inputs/default.yaml --set integrator.rtol=1e-6 --set validation.sample_zones=0" \
              "s150 inputs/s150.yaml --set integrator.method=implicit --set integrator.schedule=adaptive --set integrator.rtol=1e-6 --set integrator.atol=1e-16"; do
  read -r name deck extra <<<"$regime"
  read -r -a extra <<<"$extra"
  common=("$deck" "${extra[@]}" --backend gpu --kernel generated --set zones.count=256 --force --quiet)
  for attempt in first second; do
    s=$SECONDS
    timeout 300 "$zoneode" "${common[@]}" --set output.prefix="$work/$name-$attempt" >"$work/$name-$attempt.log" 2>&1
    echo "== $name, $attempt run: exit $?, $((SECONDS - s)) s: $(header "$work/$name-$attempt.log")"
  done
done
# A damaged entry (truncated): rebuilt, said; then the fallback without run-time compilation.
entry=$(ls "$ZONEODE_KERNEL_CACHE"/*.code 2>/dev/null | head -1)
if [ -n "$entry" ]; then
  head -c 1000 "$entry" >"$entry.cut" && mv "$entry.cut" "$entry"
  timeout 300 "$zoneode" inputs/default.yaml --set integrator.rtol=1e-6 --set validation.sample_zones=0 --backend gpu \
    --kernel generated --set zones.count=256 --force --quiet --set output.prefix="$work/damaged" >"$work/damaged.log" 2>&1
  echo "== damaged cache entry: exit $?: $(header "$work/damaged.log" | grep -o 'cache entry.*' | cut -c1-200)"
fi
ZONEODE_GPU_DEBUG_NO_RTC=1 timeout 300 "$zoneode" inputs/default.yaml --set integrator.rtol=1e-6 --set validation.sample_zones=0 \
  --backend gpu --kernel generated --set zones.count=256 --force --quiet --set output.prefix="$work/fallback" >"$work/fallback.log" 2>&1
echo "== fallback without run-time compilation: exit $?; $(grep -c 'no generated kernel' "$work/fallback.log") line(s): $(grep 'no generated kernel' "$work/fallback.log" | head -1)"
rm -rf "$work"
echo "== checks done after $((SECONDS - start)) s"
SKIP_BUILD=1 ZONEODE_BUILD_DIR=$build DEADLINE=${DEADLINE:-$((560 - SECONDS))} scripts/gpu-implicit-ladder.sh "$out/ladder"
