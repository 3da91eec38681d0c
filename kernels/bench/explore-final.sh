#!/usr/bin/env bash
# One device call of final's experiments (kernels/EXPERIMENTS.md): builds the CUDA binary, checks
# final against the CPU on s150, times final's configurations at many zones (65,536) and at the
# study's 104 zones on the study's long schedule (1e-20 to 1e-6 s, dt = 1e-4 t), and profiles
# one launch with ncu where its counters can be read. Writes explore.txt and logs.tgz to OUT_DIR.
# Usage: kernels/bench/explore-final.sh OUT_DIR [CONFIG...]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?OUT_DIR}; shift
configs=("${@:-128x0x0}")
mkdir -p "$out"
work=$(mktemp -d)
build=${ZONEODE_BUILD_DIR:-build-gpu}
log() { echo "$*" | tee -a "$out/explore.txt"; }
log "== explore-final $(date -u +%FT%TZ), commit ${ZONEODE_COMMIT:-unknown}"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee -a "$out/explore.txt"
t0=$SECONDS
cmake -S . -B "$build" -G Ninja -DZONEODE_GPU=CUDA -DZONEODE_KERNEL=all -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF \
  >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target zoneode zoneode-compare >"$work/build.log" 2>&1 ||
  { grep -B5 -A20 error "$work/build.log" | head -60; exit 1; }
log "built in $((SECONDS - t0)) s"
z=$build/zoneode
json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
deck=(inputs/s150.yaml --quiet --force --set integrator.end_time=1e-5)
"$z" "${deck[@]}" --threads "$(nproc)" --set zones.count=1024 --set output.prefix="$work/cpu" >"$work/cpu.log" 2>&1
for config in "${configs[@]}"; do
  "$z" "${deck[@]}" --set run.kernel_config="$config" --backend gpu --kernel final --set zones.count=1024 \
    --set output.prefix="$work/f" >"$work/check-$config.log" 2>&1
  "$build/zoneode-compare" "$work/cpu_step000001.h5" "$work/f_step000001.h5" --rtol 1e-12 --atol 1e-28 \
    >"$work/compare-$config.txt" 2>&1 && v=ok || v=FAIL
  log "check final $config vs cpu (1e-12): $v"
done
time_run() {  # label, env..., -- args
  local label=$1; shift
  env "$@" --summary "$work/t.json" >"$work/t.log" 2>&1 || { log "$label: failed $(tail -2 "$work/t.log")"; return; }
  log "$(printf "%-44s %9.2f ns/zone-step  %s" "$label" "$(json "$work/t.json" ns_per_zone_step)" \
    "$(grep -o 'rank 0 -> .*' "$work/t.log" | sed 's/.*CUDA, //' | cut -c1-90)")"
}
log "== 65,536 zones, s150, end_time 1e-5 (1,158 steps per zone), one run each"
for config in "${configs[@]}"; do
  for p in zone network; do
    time_run "final $config $p" \
      "$z" "${deck[@]}" --set run.kernel_config="$config" --set run.kernel_placement="$p" --backend gpu --kernel final --set zones.count=65536
  done
done
for terms in ${CHUNK_TERMS:-}; do
  time_run "final default, chunk_terms $terms" \
    "$z" "${deck[@]}" --set run.chunk_terms="$terms" --backend gpu --kernel final --set zones.count=65536
done
time_run "final default" "$z" "${deck[@]}" --backend gpu --kernel final --set zones.count=65536
time_run "tuned default" "$z" "${deck[@]}" --backend gpu --kernel tuned --set zones.count=65536
time_run "104 zones final default (few-zones rule)" "$z" inputs/s150.yaml --quiet --force --set zones.count=104 \
  --set integrator.start_time=1e-20 --set integrator.end_time=1e-6 --set integrator.dt_fraction=1e-4 --backend gpu --kernel final
log "== 104 zones, the study's schedule (1e-20 to 1e-6 s, dt = 1e-4 t: 322,280 steps per zone)"
study=(inputs/s150.yaml --quiet --force --set zones.count=104 --set integrator.start_time=1e-20
       --set integrator.end_time=1e-6 --set integrator.dt_fraction=1e-4)
for config in ${FEW_CONFIGS:-128x0x0 256x0x0 512x0x0}; do
  for p in zone network; do
    time_run "104 zones final $config $p" \
      "$z" "${study[@]}" --set run.kernel_config="$config" --set run.kernel_placement="$p" --backend gpu --kernel final
  done
done
if command -v ncu >/dev/null && [ -n "${PROFILE:-1}" ]; then
  log "== ncu (--clock-control none), final ${configs[0]}, 2,640 zones, end_time 1e-8"
  timeout 240 ncu --clock-control none --set full -k regex:final -c 1 \
    -o "$work/final" "$z" inputs/s150.yaml --quiet --force --set integrator.end_time=1e-8 \
    --set zones.count=2640 --set run.kernel_config="${configs[0]}" --backend gpu --kernel final >"$work/ncu.log" 2>&1 || log "ncu failed: $(tail -3 "$work/ncu.log")"
  if [ -f "$work/final.ncu-rep" ]; then
    ncu -i "$work/final.ncu-rep" --page details >"$out/ncu-details.txt" 2>&1
    ncu -i "$work/final.ncu-rep" --page source --csv --print-source sass >"$work/ncu-source.csv" 2>&1 || true
    cp "$work/final.ncu-rep" "$out/" 2>/dev/null
    grep -E "Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Issue Slots Busy|Stall" "$out/ncu-details.txt" | head -40 | tee -a "$out/explore.txt"
  fi
fi
rm -f "$work"/*.h5
tar czf "$out/logs.tgz" -C "$work" . 2>/dev/null
log "== done after $((SECONDS - t0)) s"
