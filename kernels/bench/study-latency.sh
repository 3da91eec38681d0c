#!/usr/bin/env bash
# Issue 38's latency path, explored in one call on the GPU machine: the study's problem at few zones
# (h104: 104 zones, one block per multiprocessor), where a zone-step costs one step's latency.
#   1. builds final (CUDA, -lineinfo) unless SKIP_BUILD=1;
#   2. times full burns of h104 (and h832, h6656 for reference) with final as it chooses, and with
#      each --set of STUDY_SWEEPS (launch shape, chunk length, placement), every run under a timeout;
#      the outputs of each sweep are compared with the default's (relative, printed: the sweeps
#      round the F+/F- sums in other orders, so they differ in the last bits);
#   3. profiles h104 with Nsight Compute over a short window (STUDY_NCU_END, 1e-17 s: 69,000 steps),
#      source counters per CUDA line and SASS instruction (instructions executed, stall samples).
# OUT gets: latency.txt (the table), ncu-details.txt, ncu-source.csv (cuda,sass), logs.tgz.
# Usage: kernels/bench/study-latency.sh OUT      Needs the study's folder (STUDY_DIR, .study, ../shared/study).
# Environment: ZONEODE_BUILD_DIR (build-gpu-latency)  STUDY_SWEEPS (';'-separated lists of --set k=v)
#   (an item env:NAME=VALUE sets an environment variable for that run, e.g. env:ZONEODE_GPU_DEBUG_NO_RESIDENT=1)
#   STUDY_REFERENCE_ZONES="832 6656" (the cells timed beside h104 with final's choice)
#   STUDY_RUN_TIMEOUT_S=60  STUDY_NCU=1  STUDY_NCU_SET (extra --set for the profiled run)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${1:?usage: kernels/bench/study-latency.sh OUT}
mkdir -p "$out" && out=$(cd "$out" && pwd)
build=${ZONEODE_BUILD_DIR:-build-gpu-latency}
study=${STUDY_DIR:-}
for candidate in .study ../shared/study; do [ -z "$study" ] && [ -f "$candidate/study-104.yaml" ] && study=$candidate; done
[ -n "$study" ] || { echo "no study folder (.study, ../shared/study or STUDY_DIR): skipped"; exit 0; }
run_timeout=${STUDY_RUN_TIMEOUT_S:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH=$PATH:/usr/local/cuda/bin
t_start=$SECONDS
log() { echo "$*" | tee -a "$out/latency.txt"; }
: >"$out/latency.txt"
log "== study-latency $(date -u +%FT%TZ), commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
log "device: $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1)"
if [ -z "${SKIP_BUILD:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_FLAGS=-lineinfo -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF -DZONEODE_KERNEL=final \
    >"$work/configure.log" 2>&1 || { tail -20 "$work/configure.log"; exit 1; }
  cmake --build "$build" -j "$(nproc)" --target zoneode zoneode-compare zoneode-ceilings >"$work/build.log" 2>&1 ||
    { grep -B3 -A15 -m3 error "$work/build.log" | head -60; exit 1; }
  log "built in $((SECONDS - t_start)) s"
fi
zoneode=$build/zoneode
for n in 104 832 6656; do python3 "$study/make_study_init.py" "$n" "$work/start-$n.h5" >/dev/null || exit 1; done

summary() { python3 -c "import json, sys; s = json.load(open(sys.argv[1])); print('%.2f' % s['ns_per_zone_step'], '|', s.get('backend_notes', '-'))" "$1" 2>&1; }
# burn NAME ZONES [--set k=v ...]: a full burn of the study's problem; prints its ns per zone-step.
burn() {
  local name=$1 n=$2 envs=(); shift 2
  while [ $# -gt 0 ] && [ "${1#env:}" != "$1" ]; do envs+=("${1#env:}"); shift; done
  timeout -k 5 "$run_timeout" env "${envs[@]}" "$zoneode" "$study/study-104.yaml" --force --backend gpu --kernel final \
    --set zones.from_file="$work/start-$n.h5" --set output.prefix="$work/$name" --summary "$work/$name.json" "$@" \
    >"$work/$name.log" 2>&1
  local rc=$?
  if [ $rc -ne 0 ]; then echo "rc $rc: $(grep -m2 -i 'error\|refus' "$work/$name.log" | tr '\n' ' ')"; return; fi
  summary "$work/$name.json"
}
differs() {  # the compare's verdict on two outputs: bitwise (rtol 0), else within 1e-9 relative (abundances above 1e-30)
  local exact
  exact=$("$build/zoneode-compare" "$work/$1_step000001.h5" "$work/$2_step000001.h5" --rtol 0 --atol 0 2>&1 | tail -1)
  case $exact in *"verdict: match"*) echo "bitwise: $exact" ;;
    *) echo "not bitwise; at 1e-9: $("$build/zoneode-compare" "$work/$1_step000001.h5" "$work/$2_step000001.h5" --rtol 1e-9 --atol 1e-30 2>&1 | tail -1)" ;;
  esac
}

sweeps=${STUDY_SWEEPS:-"run.kernel_config=256x0;run.kernel_config=1024x0;run.chunk_terms=11;run.chunk_terms=16;run.chunk_terms=32;run.chunk_terms=44;run.kernel_placement=zone"}
log ""
log "| cell | --set | ns per zone-step | backend notes |"
log "|---|---|---|---|"
for rep in 1 2; do log "| h104 | (final's choice, run $rep) | $(burn h104-default-$rep 104) |"; done
i=0
IFS=';' read -r -a list <<<"$sweeps"
for s in "${list[@]}"; do
  i=$((i + 1)); sets=()
  for kv in $s; do case $kv in env:*) sets=("$kv" "${sets[@]}") ;; *) sets+=(--set "$kv") ;; esac; done
  log "| h104 | $s | $(burn h104-sweep$i 104 "${sets[@]}") |"
  log "|  | vs default: $(differs h104-default-1 h104-sweep$i) | | |"
done
for n in ${STUDY_REFERENCE_ZONES-832 6656}; do log "| h$n | (final's choice) | $(burn h$n-default $n) |"; done
log "sweeps done at $((SECONDS - t_start)) s"

if [ "${STUDY_NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
  ncu_sets=(--set integrator.end_time="${STUDY_NCU_END:-1e-17}")
  for kv in ${STUDY_NCU_SET:-}; do ncu_sets+=(--set "$kv"); done
  sections=()
  for s in LaunchStats Occupancy SchedulerStats WarpStateStats InstructionStats ComputeWorkloadAnalysis SourceCounters; do
    sections+=(--section "$s")
  done
  timeout -k 10 240 ncu --clock-control none "${sections[@]}" --import-source yes -k regex:final -c 1 -f -o "$work/h104" \
    "$build/zoneode.bin" "$study/study-104.yaml" --quiet --force --backend gpu --kernel final \
    --set zones.from_file="$work/start-104.h5" --set output.prefix="$work/ncu" "${ncu_sets[@]}" >"$work/ncu.log" 2>&1
  if [ -f "$work/h104.ncu-rep" ]; then
    ncu -i "$work/h104.ncu-rep" --page details >"$out/ncu-details.txt" 2>&1
    ncu -i "$work/h104.ncu-rep" --page source --csv --print-source cuda,sass --print-units base >"$out/ncu-source.csv" 2>&1
    ncu -i "$work/h104.ncu-rep" --page source --csv --print-source sass --print-units base >"$out/ncu-sass.csv" 2>&1
    grep -E 'Duration|Executed Ipc|Issue Slots Busy|Warp Cycles Per Issued|Registers Per|Block Size|No Eligible|Active Warps Per' \
      "$out/ncu-details.txt" | head -20 | tee -a "$out/latency.txt"
    log "profiled at $((SECONDS - t_start)) s"
  else
    log "ncu: no report ($(tail -3 "$work/ncu.log" | tr '\n' ' '))"
  fi
fi
cp "$work/build.log" "$work/configure.log" "$out/" 2>/dev/null
tar czf "$out/logs.tgz" -C "$work" --exclude='*.h5' --exclude='*.ncu-rep' . 2>/dev/null
log "== done in $((SECONDS - t_start)) s"
