#!/usr/bin/env bash
# Nsight Compute on one kernel variant (final) across the benchmark regimes (inputs/bench), in one
# call on the GPU machine: why does a zone-step cost more on stiff conditions and real networks?
# Builds zoneode (or reuses the ladder's build), profiles one launch per regime (2,640 zones, the
# regime's whole schedule) with the sections that answer issue 16's questions (speed of light,
# occupancy, launch, scheduler and warp state with stall reasons, instruction statistics, memory
# workload with shared-memory bank conflicts, source counters with branch divergence), exports the
# per-SASS-instruction counters (instructions executed, stall samples) as CSV, and prints a compact
# comparison of the regimes. Writes to OUT_DIR (8 files at most):
#   profile.txt   the comparison, per regime: warp instructions per zone-step, issue-slot busy, top
#                 stall reasons, shared bank conflicts per request, branch efficiency, instruction mix
#   details.txt   ncu's details page for every regime
#   sass-REGIME.csv  per SASS instruction (ncu --page source --print-source sass --csv)
#   sass-diff.csv the SASS instructions joined across regimes: executed per zone-step, stall samples
#   extra.tgz     raw metric CSVs, CUDA-line CSVs (with -lineinfo), the .ncu-rep reports, logs
# Usage: kernels/bench/profile-regimes.sh [--dry-run] OUT_DIR      (about 2-3 minutes on an H200
#        after scripts/gpu-ladder.sh in the same session; add the build otherwise)
# Environment: PROFILE_REGIMES="a b c1 c2"  PROFILE_VARIANT=final  PROFILE_ZONES=2640
#   PROFILE_SET="k=v ..." extra --set for the profiled runs (e.g. run.kernel_config=128x0x6)
#   PROFILE_DEADLINE_S=200 (later regimes skipped)  PROFILE_RUN_TIMEOUT_S=150  NCU=ncu
#   ZONEODE_BUILD_DIR=build-gpu  LADDER_SKIP_BUILD=1 (use the build as it is)  ZONEODE_CUDA_FLAGS=-lineinfo
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
dry=0
[ "${1:-}" = --dry-run ] && { dry=1; shift; }
case ${1:-} in -h|--help|"") sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; [ -n "${1:-}" ]; exit $? ;; esac
out=$1
build=${ZONEODE_BUILD_DIR:-build-gpu}
ncu=${NCU:-ncu}
python=${PYTHON:-python3}
variant=${PROFILE_VARIANT:-final}
zones=${PROFILE_ZONES:-2640}
regimes=${PROFILE_REGIMES:-a b c1 c2}
deadline=${PROFILE_DEADLINE_S:-200}
run_timeout=${PROFILE_RUN_TIMEOUT_S:-150}
t_start=$SECONDS
declare -A deck=([a]=inputs/bench/a-s150.yaml [b]=inputs/bench/b-s150-hot.yaml [c1]=inputs/bench/c1-rpz24-hot.yaml
                 [c2]=inputs/bench/c2-rpz24-rp.yaml [d]=inputs/bench/d-s150-co-104.yaml [drpz24]=inputs/bench/d-rpz24-he-104.yaml)
for r in $regimes; do [ -n "${deck[$r]:-}" ] || { echo "profile-regimes.sh: unknown regime '$r' (${!deck[*]})" >&2; exit 2; }; done
extra_set=(); for kv in ${PROFILE_SET:-}; do extra_set+=(--set "$kv"); done
mkdir -p "$out" || exit 2
work=$(mktemp -d)
mkdir -p "$work/extra"
: >"$out/profile.txt"
log() { echo "$*" | tee -a "$out/profile.txt"; }
x() {  # x LOGFILE CMD...: runs CMD (stdout and stderr to LOGFILE, the command line first); --dry-run prints it
  local file=$1; shift
  if [ "$dry" = 1 ]; then printf '+'; printf ' %q' "$@"; printf ' >%s 2>&1\n' "$file"; return 0; fi
  { printf '+'; printf ' %q' "$@"; printf '\n'; } >"$file"
  "$@" >>"$file" 2>&1
}

log "== profile-regimes $(date -u +%FT%TZ), commit ${ZONEODE_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}, variant $variant, $zones zones$([ "$dry" = 1 ] && echo ', DRY RUN')"
log "device: $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1)"
log "ncu: $("$ncu" --version 2>/dev/null | tail -1)"
if [ -z "${LADDER_SKIP_BUILD:-}" ]; then
  t0=$SECONDS  # the ladder's configuration: a build left by scripts/gpu-ladder.sh is reused as it is
  x "$work/extra/configure.log" cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DCMAKE_CUDA_FLAGS="${ZONEODE_CUDA_FLAGS--lineinfo}" -DZONEODE_KERNEL=all \
    -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF || { tail -30 "$work/extra/configure.log"; exit 1; }
  x "$work/extra/build.log" cmake --build "$build" -j "$(nproc)" --target zoneode ||
    { grep -B5 -A20 -m3 error "$work/extra/build.log" | head -60; exit 1; }
  log "built in $((SECONDS - t0)) s"
fi
zoneode=$build/zoneode.bin  # the program itself under ncu, not the static launcher zoneode (docs/USAGE.md)

# Sections by identifier, kept only where this ncu lists them (names move between versions).
wanted="SpeedOfLight ComputeWorkloadAnalysis InstructionStats LaunchStats Occupancy SchedulerStats WarpStateStats
        MemoryWorkloadAnalysis MemoryWorkloadAnalysis_Tables SourceCounters"
listed=$("$ncu" --list-sections 2>/dev/null)
sections=()
for s in $wanted; do
  if [ "$dry" = 1 ] || [ -z "$listed" ] || grep -qw -- "$s" <<<"$listed"; then sections+=(--section "$s"); else log "section $s: not in this ncu, left out"; fi
done
# The comparison's metrics, asked for by name as well (the sections may show them under other names).
metrics=smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
metrics+=,smsp__sass_average_branch_targets_threads_uniform.pct,smsp__sass_branch_targets_threads_divergent.sum
metrics+=,smsp__thread_inst_executed_per_inst_executed.ratio

specs=()
for r in $regimes; do
  if [ $((SECONDS - t_start)) -ge "$deadline" ]; then log "== $r: skipped, PROFILE_DEADLINE_S $deadline s spent"; continue; fi
  run=("$zoneode" "${deck[$r]}" --quiet --force --set zones.count="$zones" "${extra_set[@]}" --backend gpu --kernel "$variant"
       --summary "$work/extra/run-$r.json")
  profile=("$ncu" --clock-control none "${sections[@]}" --import-source yes -k "regex:$variant" -c 1 -f -o "$work/extra/$r")
  t0=$SECONDS
  x "$work/extra/ncu-$r.log" timeout -k 10 "$run_timeout" "${profile[@]}" --metrics "$metrics" "${run[@]}"
  if [ "$dry" = 0 ] && [ ! -f "$work/extra/$r.ncu-rep" ]; then  # a metric this ncu does not know: sections alone
    log "  $r: ncu with --metrics failed ($(grep -m1 ERROR "$work/extra/ncu-$r.log")); again without"
    x "$work/extra/ncu-$r.log" timeout -k 10 "$run_timeout" "${profile[@]}" "${run[@]}"
  fi
  rep=$work/extra/$r.ncu-rep
  if [ "$dry" = 0 ] && [ ! -f "$rep" ]; then log "== $r: no report ($(tail -2 "$work/extra/ncu-$r.log" | tr '\n' ' '))"; continue; fi
  { echo "======== regime $r (${deck[$r]}, $zones zones)"; } >>"$work/details.txt"
  [ "$dry" = 1 ] || "$ncu" -i "$rep" --page details >>"$work/details.txt" 2>&1
  x "$out/sass-$r.csv" "$ncu" -i "$rep" --page source --csv --print-source sass --print-units base
  x "$work/extra/raw-$r.csv" "$ncu" -i "$rep" --page raw --csv --print-units base
  x "$work/extra/cuda-sass-$r.csv" "$ncu" -i "$rep" --page source --csv --print-source cuda,sass --print-units base ||
    log "  $r: no CUDA-line view (needs -lineinfo and an ncu that takes --print-source cuda,sass)"
  [ "$dry" = 1 ] || sed -i '1{/^+ /d}' "$out/sass-$r.csv" "$work/extra/raw-$r.csv" "$work/extra/cuda-sass-$r.csv"
  log "== $r: profiled in $((SECONDS - t0)) s"
  specs+=("$r:$work/extra/raw-$r.csv:$out/sass-$r.csv:$work/extra/run-$r.json")
done

if [ "$dry" = 0 ]; then
  cp "$work/details.txt" "$out/details.txt"
  [ ${#specs[@]} -gt 0 ] && "$python" kernels/bench/ncu_compare.py "$out/sass-diff.csv" "${specs[@]}" | tee -a "$out/profile.txt"
  tar czf "$out/extra.tgz" -C "$work/extra" . 2>/dev/null
  if [ "$(stat -c %s "$out/extra.tgz")" -gt 15000000 ]; then  # what comes back is < 16 MB a file: the reports go first
    tar czf "$out/extra.tgz" -C "$work/extra" --exclude='*.ncu-rep' . 2>/dev/null; log "extra.tgz: reports left out (size)"
  fi
  rm -rf "$work"
fi
log "== done in $((SECONDS - t_start)) s: $out/profile.txt"
