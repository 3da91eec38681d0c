#!/usr/bin/env bash
# The kernel ladder on the benchmark set (inputs/bench/README.md), in one call on the GPU machine:
# builds zoneode, zoneode-compare and zoneode-ceilings (CUDA, every variant, serial HDF5), measures
# the ceilings, counts each regime's work per zone-step and its floor, runs the CPU backend on all
# host cores (reference files and ns per zone-step), then every built variant on every regime:
# compared with the CPU at relative 1e-12 (zoneode-compare --rtol 1e-12 --atol 1e-28) and timed
# (median of up to 3 runs). Prints one table, regime x variant, and writes to OUT_DIR:
#   ladder.txt (log and table), ladder.csv, ladder.json, cells.jsonl (raw records), logs.tgz
# Usage: scripts/gpu-ladder.sh [--dry-run] [OUT_DIR]   (a-drpz24 about 6 minutes on an H200; r832 and h* more)
#   --dry-run               print the commands, run nothing
# Environment (all optional):
#   LADDER_REGIMES="a b c1 c2 d d832 d6656 drpz24 r832 h104 h832 h6656 h104s h832s h6656s"  regimes
#                   (inputs/bench/README.md; the h* ones, the study's network, only where the study's folder is
#                   found: LADDER_STUDY_DIR, else ../shared/study, else shared/study; without it they are
#                   skipped with one line)   LADDER_VARIANTS="..."  variants
#   LADDER_SWEEPS="final:kernel_config=128x0x6,kernel_placement=zone final:chunk_terms=20 ..."
#                   extra points, each validated and timed on every regime (keys are run.KEY deck keys)
#   LADDER_SWEEP_REGIMES="d"  the regimes the extra points run on (default: every regime)
#   LADDER_ZONES=65536 timed zones (a-c2)      LADDER_CHECK_ZONES=1024 zones compared with the CPU (a-c2)
#   LADDER_D_ZONES=104 zones of (d) and (drpz24) LADDER_REPEATS=3   LADDER_SLOW_S=5: a cell whose first
#   run takes longer is run once (the table says so)   LADDER_DEADLINE_S=400: no new cell after this
#   LADDER_RUN_TIMEOUT_S=150 per run           LADDER_SET="k=v ..." extra --set for every run
#   LADDER_ZONE_SWEEP=1 the zone-count sweep (off by default; LADDER_ZONE_COUNTS, LADDER_ZONE_SWEEP_VARIANTS)
#   LADDER_SKIP_BUILD=1 use the build as it is  ZONEODE_BUILD_DIR=build-gpu  ZONEODE_GPU=CUDA|HIP
#   ZONEODE_CUDA_FLAGS=-lineinfo (line tables for kernels/bench/profile-regimes.sh, which reuses this build;
#   nvcc 13 sm_90 emits byte-identical kernel code with and without it)
#   LADDER_FAKE_GPU=1 test without a GPU: "GPU" runs are CPU runs, ceilings invented (marked FAKE)
#   LADDER_START_PYTHON=python  writes the start files of r832 and h* (needs h5py and numpy; default: the
#                   first of /usr/bin/python3, $PYTHON, python3 that has them)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
dry=0
while [ $# -gt 0 ]; do
  case $1 in
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-ladder.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
out=${1:-${OUT:-gpu-ladder-out}}
fake=${LADDER_FAKE_GPU:-0}
build=${ZONEODE_BUILD_DIR:-$([ "$fake" = 1 ] && echo build || echo build-gpu)}
cores=$(nproc)
python=${PYTHON:-python3}
report=kernels/bench/ladder_report.py
t_start=$SECONDS
deadline=${LADDER_DEADLINE_S:-400}
run_timeout=${LADDER_RUN_TIMEOUT_S:-150}
repeats=${LADDER_REPEATS:-3}
slow_s=${LADDER_SLOW_S:-5}
if [ "$fake" = 1 ]; then  # small enough for a 2-core machine without a GPU
  zones=${LADDER_ZONES:-64} check_zones=${LADDER_CHECK_ZONES:-32} d_zones=${LADDER_D_ZONES:-4}
  d_set=(--set integrator.end_time=1e-18)  # 46,000 steps instead of 322,379
  declare -A full_zones=([d]=$d_zones [d832]=6 [d6656]=8 [drpz24]=$d_zones [r832]=6
                         [h104]=$d_zones [h832]=6 [h6656]=8 [h104s]=$d_zones [h832s]=6 [h6656s]=8)
else
  zones=${LADDER_ZONES:-65536} check_zones=${LADDER_CHECK_ZONES:-1024} d_zones=${LADDER_D_ZONES:-104}
  d_set=()
  declare -A full_zones=([d]=$d_zones [d832]=832 [d6656]=6656 [drpz24]=$d_zones [r832]=832
                         [h104]=$d_zones [h832]=832 [h6656]=6656 [h104s]=$d_zones [h832s]=832 [h6656s]=6656)
fi
extra_set=(); for kv in ${LADDER_SET:-}; do extra_set+=(--set "$kv"); done

declare -A deck=([a]=inputs/bench/a-s150.yaml [b]=inputs/bench/b-s150-hot.yaml [c1]=inputs/bench/c1-rpz24-hot.yaml
                 [c2]=inputs/bench/c2-rpz24-rp.yaml [d]=inputs/bench/d-s150-co-104.yaml [d832]=inputs/bench/d-s150-co-104.yaml
                 [d6656]=inputs/bench/d-s150-co-104.yaml [drpz24]=inputs/bench/d-rpz24-he-104.yaml
                 [r832]=inputs/bench/r-s150r-study-832.yaml)
# The study's own problem (../shared/study/README.md): its network hyp150 from its start on its deck,
# whose zones come from a start file (start_files below). h104, h832, h6656: the study's whole window,
# 1e-20 to 1e-6 s, which from this start is well conditioned (the CPU against itself one ulp of
# dt_fraction away: 3.9e-14 at 1e-6 s, inputs/bench/README.md); h104s, h832s, h6656s: the same ended at
# 1e-8 s, (d)'s window, to compare with (d) step for step. Not copied into the project: read where found.
study_dir=${LADDER_STUDY_DIR:-}
if [ -z "$study_dir" ]; then
  for candidate in ../shared/study shared/study; do
    [ -f "$candidate/study-104.yaml" ] && [ -f "$candidate/hyp150.znet" ] && [ -f "$candidate/make_study_init.py" ] &&
      { study_dir=$candidate; break; }
  done
fi
[ -n "$study_dir" ] && study_dir=$(cd "$study_dir" 2>/dev/null && pwd)
study_regimes="h104 h832 h6656 h104s h832s h6656s"
for r in $study_regimes; do deck[$r]=${study_dir:-../shared/study}/study-104.yaml; done
# Per-regime deck overrides (a list of KEY=VALUE)
declare -A regime_set=([h104s]="integrator.end_time=1e-8" [h832s]="integrator.end_time=1e-8" [h6656s]="integrator.end_time=1e-8")
# The regimes whose zones come from a start file (zones.from_file), by the start it is: the study's
# (its make_study_init.py) or s150r's from the same start (scripts/make_start_file.py)
declare -A start_of=([r832]=s150r)
for r in $study_regimes; do start_of[$r]=study; done
# The full-burn regimes (the study's schedule, full_zones zones each): each GPU run is compared with
# a CPU reference of the same zones that runs in the background beside the GPU work. (d6656) is
# checked instead by a run of (d832)'s zones (on the H200 the same launch plan as 6,656 zones:
# more than half the resident blocks) against (d832)'s reference: a CPU reference of 6,656 zones
# of the full burn would take about half an hour on 16 cores.
declare -A checked_by=([d6656]=d832 [h6656]=h832 [h6656s]=h832s)
# The CPU against itself one ulp of dt_fraction away (the sensitivity): not for (d832), (d)'s problem
# on 8x the zones (its reference alone takes about 5 minutes on 16 cores).
# Nor for h832, h832s, r832: their zones are identical, h104's sensitivity is theirs, and r832's was
# measured on the CPU (6.0e-14 at 1e-6 s, inputs/bench/README.md).
declare -A ulp_skipped=([d832]=1 [h832]=1 [h832s]=1 [r832]=1)
is_full() { [ -n "${full_zones[$1]:-}" ]; }
reference_of() { echo "${checked_by[$1]:-$1}"; }
regimes=${LADDER_REGIMES:-a b c1 c2 d d832 d6656 drpz24 r832 $study_regimes}
for r in $regimes; do [ -n "${deck[$r]:-}" ] || { echo "gpu-ladder.sh: LADDER_REGIMES: unknown regime '$r' (${!deck[*]})" >&2; exit 2; }; done
# The CPU references of the full-burn regimes: their own, or the regime that checks them.
full_references=""
for r in $regimes; do is_full "$r" && [[ " $full_references " != *" $(reference_of "$r") "* ]] && full_references+="$(reference_of "$r") "; done

mkdir -p "$out" || exit 2
work=$(mktemp -d)
# Regimes that cannot run here, each said in one line and dropped: the study's without its folder;
# any with a start file without a python that has h5py and numpy.
start_python=""
for candidate in ${LADDER_START_PYTHON:-/usr/bin/python3 $python python3}; do
  "$candidate" -c "import h5py, numpy" 2>/dev/null && { start_python=$candidate; break; }
done
skipped_lines=()
kept=""
for r in $regimes; do
  if [[ " $study_regimes " == *" $r "* ]] && [ -z "$study_dir" ]; then
    [[ " ${skipped_lines[*]} " == *"study's folder"* ]] ||
      skipped_lines+=("regimes $(for s in $regimes; do [[ " $study_regimes " == *" $s "* ]] && printf '%s ' "$s"; done)skipped: the study's folder (../shared/study, shared/study or LADDER_STUDY_DIR) is not here")
  elif [ -n "${start_of[$r]:-}" ] && [ -z "$start_python" ]; then
    skipped_lines+=("regime $r skipped: no python with h5py and numpy for its start file (LADDER_START_PYTHON)")
  else
    kept+="$r "
  fi
done
regimes=$kept
full_references=""
for r in $regimes; do is_full "$r" && [[ " $full_references " != *" $(reference_of "$r") "* ]] && full_references+="$(reference_of "$r") "; done
cells=$out/cells.jsonl
[ "$dry" = 1 ] || : >"$cells"
: >"$out/ladder.txt"
log() { echo "$*" | tee -a "$out/ladder.txt"; }
elapsed() { echo $((SECONDS - t_start)); }
# x LOGFILE CMD...: runs CMD, stdout and stderr to LOGFILE; --dry-run prints it instead
x() {
  local file=$1; shift
  if [ "$dry" = 1 ]; then printf '+'; printf ' %q' "$@"; printf ' >%s 2>&1\n' "$file"; return 0; fi
  { printf '+'; printf ' %q' "$@"; printf '\n'; } >"$file"  # the log says what ran
  "$@" >>"$file" 2>&1
}
field() { "$python" -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2" 2>/dev/null || echo ""; }
record() { [ "$dry" = 1 ] || "$python" "$report" record "$cells" "$@"; }  # record KIND key=value...
nums() { [ -n "${1// /}" ] && printf '%.2f ' $1 || printf 'none '; }  # a list of numbers, briefly
header_of() { grep -o 'rank 0 -> .*' "$1" 2>/dev/null | head -1 | sed 's/rank 0 -> //'; }

commit=${ZONEODE_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
for line in "${skipped_lines[@]}"; do echo "$line" | tee -a "$out/ladder.txt"; done
log "== gpu-ladder $(date -u +%FT%TZ), commit $commit, $cores host cores, out $out$([ "$fake" = 1 ] && echo ', FAKE GPU (CPU runs)')$([ "$dry" = 1 ] && echo ', DRY RUN')"
gpu_name=$(nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1)
log "device: ${gpu_name:-none seen by nvidia-smi}"
record meta commit="$commit" date="$(date -u +%FT%TZ)" cores="$cores" device="${gpu_name:-none}" fake="$fake" \
  zones="$zones" check_zones="$check_zones" d_zones="$d_zones" repeats="$repeats" slow_s="$slow_s"

# ---- build
if [ "$fake" = 1 ] || [ -n "${LADDER_SKIP_BUILD:-}" ]; then
  log "== build: skipped, using $build as it is"
else
  t0=$SECONDS
  x "$work/configure.log" cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU="${ZONEODE_GPU:-CUDA}" \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DCMAKE_CUDA_FLAGS="${ZONEODE_CUDA_FLAGS--lineinfo}" -DZONEODE_KERNEL=all \
    -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF ||
    { tail -30 "$work/configure.log"; exit 1; }
  x "$work/build.log" cmake --build "$build" -j "$cores" --target zoneode zoneode-compare zoneode-ceilings ||
    { grep -B5 -A20 -m3 error "$work/build.log" | head -80; exit 1; }
  log "== built in $((SECONDS - t0)) s ($build)"
fi
zoneode=$build/zoneode compare=$build/zoneode-compare

# ---- variants: from the binary
variants_from=""
if [ -n "${LADDER_VARIANTS:-}" ]; then variants=$LADDER_VARIANTS variants_from="LADDER_VARIANTS"
elif listed=$("$zoneode" --list-kernels 2>/dev/null) && [ -n "$listed" ]; then
  variants=$(echo "$listed" | awk '{print $1}' | grep -E '^[a-z0-9_]+$' | tr '\n' ' ') variants_from="zoneode --list-kernels"
elif [ -f "$work/configure.log" ] && grep -q 'ZONEODE_KERNEL *=.*->' "$work/configure.log"; then
  variants=$(sed -n 's/.*ZONEODE_KERNEL *= *[a-z]* -> \([a-z0-9_;]*\).*/\1/p' "$work/configure.log" | tr ';' ' ')
  variants_from="FALLBACK: CMake's configure report (no --list-kernels in this binary)"
else
  variants="baseline lds wave tuned final" variants_from="FALLBACK: default list (no --list-kernels in this binary)"
fi
[ "$fake" = 1 ] && [ -z "${LADDER_VARIANTS:-}" ] && variants="baseline final" variants_from="FAKE: two names, all run on the CPU"
# final first, then variants new since the first ladder, then baseline and the older rungs newest first:
# what matters most is measured before any deadline
ordered=""
first_ladder=" baseline lds wave tuned final "
new_variants=$(for v in $variants; do [[ $first_ladder == *" $v "* ]] || echo "$v"; done)
for v in final $new_variants baseline tuned wave lds $variants; do case " $variants " in *" $v "*) case " $ordered " in *" $v "*) ;; *) ordered+="$v " ;; esac ;; esac; done
log "variants: $ordered(from $variants_from)"

# ---- sweep knobs: deck keys (run.kernel_config, run.kernel_placement, run.chunk_terms) where the binary has them
knob_mode=deck
probe=$("$zoneode" network info "${deck[a]}" --set run.kernel_config=128x0x6 2>&1)  # pipefail: no pipe into grep -q
if [[ $probe == *"unknown key"* ]]; then
  knob_mode="env"
  log "sweep knobs: FALLBACK to ZONEODE_KERNEL_CONFIG / _PLACEMENT / ZONEODE_CHUNK_TERMS (this binary has no run.kernel_config)"
fi
# knob_args "k=v,k=v": fills knob_set (--set ...) and knob_env (VAR=value) for one sweep point
knob_args() {
  knob_set=() knob_env=()
  local kv key value
  for kv in ${1//,/ }; do
    key=${kv%%=*} value=${kv#*=}
    [ "$key" != "$kv" ] || { log "LADDER_SWEEPS: '$kv' is not key=value"; return 1; }
    case $key in *.*) ;; *) key=run.$key ;; esac
    if [ "$knob_mode" = env ]; then
      case $key in
        run.kernel_config) knob_env+=("ZONEODE_KERNEL_CONFIG=$value"); continue ;;
        run.kernel_placement) knob_env+=("ZONEODE_KERNEL_PLACEMENT=$value"); continue ;;
        run.chunk_terms) knob_env+=("ZONEODE_CHUNK_TERMS=$value"); continue ;;
      esac
    fi
    knob_set+=(--set "$key=$value")
  done
}

# ---- ceilings
log "== ceilings (zoneode-ceilings, medians of 5)"
if [ "$fake" = 1 ]; then
  printf 'device FAKE\nfp64_fma 3.275e+13 flop/s\nlds_read 3.01e+13 B/s\nhbm_copy 3.971e+12 B/s\ninner_term 9.774e+11 term/s\n' >"$work/ceilings.txt"
else
  x "$work/ceilings.txt" "$build/zoneode-ceilings" || log "zoneode-ceilings failed: $(tail -2 "$work/ceilings.txt")"
fi
[ "$dry" = 1 ] || grep -v '^+' "$work/ceilings.txt" | sed 's/^/  /' | tee -a "$out/ladder.txt"
ceiling() { awk -v k="$1" '$1 == k {print $2}' "$work/ceilings.txt" 2>/dev/null; }
record ceilings fp64_fma="$(ceiling fp64_fma)" lds_read="$(ceiling lds_read)" hbm_copy="$(ceiling hbm_copy)" \
  inner_term="$(ceiling inner_term)" fake="$fake"

# ---- each regime: deck, counted work, floor
# zone_args REGIME COUNT: the --set list that makes a run of REGIME with COUNT zones
# start_file REGIME COUNT: the start file of COUNT zones that a start-file regime reads
start_file() { echo "$work/start-${start_of[$1]}-$2.h5"; }
# deck_args REGIME COUNT: the deck and what selects the regime's zones and window (no run options)
deck_args() {
  local r=$1 kv
  args=("${deck[$r]}")
  if [ -n "${start_of[$r]:-}" ]; then args+=(--set zones.from_file="$(start_file "$r" "$2")"); else args+=(--set zones.count="$2"); fi
  for kv in ${regime_set[$r]:-}; do args+=(--set "$kv"); done
  args+=("${extra_set[@]}")
}
zone_args() { local r=$1; deck_args "$r" "$2"; args=("${args[0]}" --quiet --force "${args[@]:1}"); is_full "$r" && args+=("${d_set[@]}"); return 0; }
# The start files, before anything reads the decks (the decks name them, so they must exist): the
# study's start by its own maker (identical zones: T9 5, rho 1e8, X(c12) 0.04166, X(o16) 0.03125),
# s150r's the same start on its own species (scripts/make_start_file.py), one file per zone count run.
start_counts() {  # the zone counts of REGIME's runs: its own and, checked by another, that one's
  echo "${full_zones[$1]}"
  [ -n "${checked_by[$1]:-}" ] && echo "${full_zones[${checked_by[$1]}]}"
  [ "$1" = "$(reference_of "$1")" ] || echo "${full_zones[$(reference_of "$1")]}"
}
made=""
for r in $regimes $full_references; do
  [ -n "${start_of[$r]:-}" ] || continue
  for n in $(start_counts "$r" | sort -u); do
    f=$(start_file "$r" "$n")
    [[ " $made " == *" $f "* ]] && continue
    made+="$f "
    if [ "${start_of[$r]}" = study ]; then
      x "$work/start-study-$n.log" "$start_python" "$study_dir/make_study_init.py" "$n" "$f"
    else
      [ -f "$work/s150r.znet" ] || x "$work/s150r-export.log" "$zoneode" network export inputs/bench/d-s150-co-104.yaml \
        --set network.preset=s150r --output "$work/s150r.znet" --force
      x "$work/start-s150r-$n.log" "$start_python" scripts/make_start_file.py "$work/s150r.znet" "$n" "$f" 5 1e8 c12=0.04166 o16=0.03125
    fi
    [ "$dry" = 1 ] || [ -f "$f" ] || log "start file $f not made: $(tail -1 "$work/start-${start_of[$r]}-$n.log")"
  done
done
log "== regimes: counted work per zone-step (zoneode network info) and floor"
for r in $regimes; do
  args=("${deck[$r]}" "${extra_set[@]}")
  [ -n "${start_of[$r]:-}" ] && deck_args "$r" "${full_zones[$r]}"  # its deck names a start file
  x "$work/info-$r.txt" "$zoneode" network info "${args[@]}"
  [ "$dry" = 1 ] && continue
  work_line=$(grep "work per zone-step" "$work/info-$r.txt")
  net_line=$(grep -m1 "^network " "$work/info-$r.txt")
  read -r flops terms bytes < <(echo "$work_line" | sed -E 's/.*: ([0-9]+) flops, ([0-9]+) terms, ([0-9]+) B on chip.*/\1 \2 \3/')
  record regime regime="$r" deck="${deck[$r]}" network="$net_line" flops="$flops" terms="$terms" bytes="$bytes" cells="$cells"
  log "  $r ${deck[$r]}: $("$python" "$report" floor "$cells" "$r")"
done

# ---- CPU backend, all cores: reference files and ns per zone-step
# The regime's own sensitivity, the yardstick for a GPU difference: the CPU against itself with
# dt_fraction one ulp up (at T9 5 that alone moves some values by ~1e-12).
ulp_run() {  # ulp_run REGIME THREADS [nice]
  local dtf up
  dtf=$(grep -v '^ *#' "${deck[$1]}" | grep -o -m1 -E 'dt_fraction: *[0-9.eE+-]+' | awk '{print $2}')  # block or flow style
  up=$("$python" -c "import math, sys; print(repr(math.nextafter(float(sys.argv[1]), 2.0)))" "$dtf" 2>/dev/null || echo "$dtf")
  zone_args "$1" "$(is_full "$1" && echo "${full_zones[$1]}" || echo "$check_zones")"
  x "$work/cpu-ulp-$1.log" env OMP_NUM_THREADS="$2" ${3:+nice -n 5} timeout -k 10 900 "$zoneode" "${args[@]}" --backend cpu \
    --threads "$2" --set integrator.dt_fraction="$up" --set output.prefix="$work/cpu-ulp-$1"
}
sensitivity() {  # sensitivity REGIME: compare the CPU reference with its one-ulp run, record it
  x "$work/cpu-ulp-$1-compare.txt" "$compare" "$work/cpu-${1}_step000001.h5" "$work/cpu-ulp-${1}_step000001.h5" \
    --rtol 1e-12 --atol 1e-28 --json "$work/cpu-ulp-$1-compare.json"
  record sensitivity regime="$1" compare_rc=$? compare_json="$work/cpu-ulp-$1-compare.json"
}
log "== CPU backend, $cores threads"
for r in $regimes; do
  is_full "$r" && continue
  zone_args "$r" "$check_zones"
  ns_list=""
  for k in $(seq 1 "$repeats"); do
    prefix=(); [ "$k" = 1 ] && prefix=(--set output.prefix="$work/cpu-$r")
    x "$work/cpu-$r-$k.log" env OMP_NUM_THREADS="$cores" timeout -k 10 "$run_timeout" "$zoneode" "${args[@]}" --backend cpu \
      --threads "$cores" "${prefix[@]}" --summary "$work/cpu-$r-$k.json"
    ns_list+="$(field "$work/cpu-$r-$k.json" ns_per_zone_step) "
  done
  record cpu regime="$r" zones="$check_zones" threads="$cores" ns_runs="$ns_list" summary="$work/cpu-$r-1.json"
  [ "$dry" = 1 ] || log "  $r: $check_zones zones, ns per zone-step $(nums "$ns_list")"
  ulp_run "$r" "$cores"
  sensitivity "$r"
done
# The full-burn regimes: their references (every zone, the study's schedule) run one after the
# other beside the GPU work, one core left free
d_pid=""
d_threads=$((cores > 1 ? cores - 1 : 1))
if [ -n "$full_references" ]; then
  { for r in $full_references; do
      zone_args "$r" "${full_zones[$r]}"
      x "$work/cpu-$r.log" env OMP_NUM_THREADS=$d_threads nice -n 5 timeout -k 10 900 "$zoneode" "${args[@]}" --backend cpu \
        --threads $d_threads --set output.prefix="$work/cpu-$r" --summary "$work/cpu-$r.json"
      [ -n "${ulp_skipped[$r]:-}" ] || ulp_run "$r" "$d_threads" nice
    done; } &
  d_pid=$!
  if [ "$dry" = 1 ]; then wait "$d_pid"; d_pid=""; else
    log "  $full_references: references on $d_threads threads, in the background (pid $d_pid) beside the GPU runs"
  fi
fi
log "== CPU done at $(elapsed) s"

# ---- GPU cells
# gpu_cmd VARIANT: the backend arguments of one GPU run (the CPU backend when faked)
gpu_cmd() { if [ "$fake" = 1 ]; then backend=(--backend cpu --threads "$cores"); else backend=(--backend gpu --kernel "$1"); fi; }
# cell REGIME ROW VARIANT "k=v,...": validate against the CPU and time one variant on one regime
cell() {
  local r=$1 row=$2 variant=$3 knobs=$4 tag notes="" fail_note="" verdict="" ns_list=""
  knob_args "$knobs" || return
  gpu_cmd "$variant"
  tag=$r-$(echo "$row" | tr -c 'a-zA-Z0-9_.\n-' '_')
  if [ "$(elapsed)" -ge "$deadline" ]; then
    record cell regime="$r" row="$row" variant="$variant" knobs="$knobs" skipped="time budget spent ($(elapsed) s >= LADDER_DEADLINE_S $deadline)"
    log "  $r $row: skipped (time)"; return
  fi
  if is_full "$r"; then
    if [ -n "${checked_by[$r]:-}" ]; then  # validated on the checking regime's zones, compared at the end
      zone_args "$r" "${full_zones[${checked_by[$r]}]}"
      x "$work/$tag-check.log" env "${knob_env[@]}" timeout -k 10 "$run_timeout" "$zoneode" "${args[@]}" "${backend[@]}" \
        "${knob_set[@]}" --set output.prefix="$work/$tag"
    fi
  else  # validation on check_zones zones
    zone_args "$r" "$check_zones"
    x "$work/$tag-check.log" env "${knob_env[@]}" timeout -k 10 "$run_timeout" "$zoneode" "${args[@]}" "${backend[@]}" "${knob_set[@]}" \
      --set output.prefix="$work/$tag"
    x "$work/$tag-compare.txt" "$compare" "$work/cpu-${r}_step000001.h5" "$work/${tag}_step000001.h5" --rtol 1e-12 --atol 1e-28 \
      --json "$work/$tag-compare.json"
    verdict=$?
  fi
  zone_args "$r" "$(is_full "$r" && echo "${full_zones[$r]}" || echo "$zones")"
  for k in $(seq 1 "$repeats"); do
    prefix=()  # a full-burn regime is compared from its timed run (unless another regime's zones check it)
    is_full "$r" && [ -z "${checked_by[$r]:-}" ] && [ "$k" = 1 ] && prefix=(--set output.prefix="$work/$tag")
    local t0=$EPOCHREALTIME
    x "$work/$tag-$k.log" env "${knob_env[@]}" timeout -k 10 "$run_timeout" "$zoneode" "${args[@]}" "${backend[@]}" "${knob_set[@]}" \
      "${prefix[@]}" --summary "$work/$tag-$k.json"
    local rc=$?
    [ "$dry" = 1 ] && break
    ns_list+="$(field "$work/$tag-$k.json" ns_per_zone_step) "
    [ "$rc" = 0 ] || [ -n "$fail_note" ] || fail_note="run $k exit $rc: $(grep -m1 -i 'error\|zoneode:' "$work/$tag-$k.log" | cut -c1-150); "
    [ "$rc" = 0 ] || [ "$rc" = 3 ] || break
    local took; took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN {printf "%.1f", b - a}')
    if [ "$k" = 1 ] && awk -v t="$took" -v s="$slow_s" 'BEGIN {exit !(t > s)}'; then notes+="1 run: the first took $took s > LADDER_SLOW_S $slow_s; "; break; fi
    [ "$k" = "$repeats" ] || [ "$(elapsed)" -lt "$deadline" ] || { notes+="runs cut at the deadline; "; break; }
  done
  record cell regime="$r" row="$row" tag="$tag" variant="$variant" knobs="$knobs" knob_mode="$knob_mode" ns_runs="$ns_list" \
    summary="$work/$tag-1.json" compare_rc="$verdict" compare_json="$work/$tag-compare.json" header="$(header_of "$work/$tag-1.log")" notes="$fail_note$notes"
  [ "$dry" = 1 ] || log "  $(printf '%-6s %-24s' "$r" "$row") $(nums "$ns_list")ns/zone-step, compare rc ${verdict:-later} ($(elapsed) s)"
  # no device at all (driver, runtime): every later cell would fail the same way, so stop spending time
  if [ "$dry" = 0 ] && [ -z "${ns_list// /}" ] && grep -qiE "gpuGetDeviceCount|no CUDA-capable|driver version|no HIP|hipErrorNoDevice" \
       "$work/$tag-1.log" 2>/dev/null; then
    no_device=$(grep -m1 -iE "gpuGetDeviceCount|no CUDA-capable|driver version|no HIP|hipErrorNoDevice" "$work/$tag-1.log")
  fi
}
no_device=""
full_list=$(for r in $regimes; do is_full "$r" && printf '%s %s zones, ' "$r" "${full_zones[$r]}"; done)
log "== GPU: every variant on every regime ($zones zones timed, $check_zones compared${full_list:+; full burns: ${full_list%, }})"
for v in $ordered; do for r in $regimes; do [ -n "$no_device" ] || cell "$r" "$v" "$v" ""; done; done
[ -z "$no_device" ] || log "!! NO USABLE GPU, the GPU cells stop here: $no_device"
for point in ${LADDER_SWEEPS:-}; do
  [ -z "$no_device" ] || break
  v=${point%%:*} knobs=${point#*:}
  [ "$v" != "$point" ] || { log "LADDER_SWEEPS: '$point' is not variant:key=value,..."; continue; }
  for r in ${LADDER_SWEEP_REGIMES:-$regimes}; do cell "$r" "${v}[$knobs]" "$v" "$knobs"; done
done

# ---- zone-count sweep (optional): latency at few zones, throughput at many
if [ -n "${LADDER_ZONE_SWEEP:-}" ]; then
  log "== zone-count sweep: c1 with end_time 1e-13 (463 steps per zone)"
  for n in ${LADDER_ZONE_COUNTS:-1 104 1000 10000 100000 1000000}; do
    for v in ${LADDER_ZONE_SWEEP_VARIANTS:-baseline final}; do
      [ "$(elapsed)" -lt "$deadline" ] || { log "  $n $v: skipped (time)"; continue; }
      gpu_cmd "$v"
      x "$work/zones-$n-$v.log" timeout -k 10 "$run_timeout" "$zoneode" "${deck[c1]}" --quiet --set integrator.end_time=1e-13 \
        --set zones.count="$n" "${extra_set[@]}" "${backend[@]}" --summary "$work/zones-$n-$v.json"
      record zones zones="$n" variant="$v" summary="$work/zones-$n-$v.json"
      [ "$dry" = 1 ] || log "  $(printf '%8d zones %-9s %10s ns per zone-step' "$n" "$v" "$(field "$work/zones-$n-$v.json" ns_per_zone_step)")"
    done
  done
fi

# ---- full burns: wait for their CPU references, then compare every variant's run with them
if [ -n "$d_pid" ]; then
  log "== waiting for the CPU references of $full_references($(elapsed) s)"
  wait "$d_pid"; log "  CPU references exit $? at $(elapsed) s"
fi
for r in $full_references; do
  record cpu regime="$r" zones="${full_zones[$r]}" threads="$d_threads" ns_runs="$(field "$work/cpu-$r.json" ns_per_zone_step)" \
    summary="$work/cpu-$r.json" note="beside the GPU runs, one core left free"
  [ -n "${ulp_skipped[$r]:-}" ] || sensitivity "$r"
done
for r in $regimes; do
  is_full "$r" || continue
  for f in "$work/$r-"*_step000001.h5; do
    [ -e "$f" ] || continue
    tag=$(basename "$f" _step000001.h5)
    "$compare" "$work/cpu-$(reference_of "$r")_step000001.h5" "$f" --rtol 1e-12 --atol 1e-28 --json "$work/$tag-compare.json" \
      >"$work/$tag-compare.txt" 2>&1
    record compare tag="$tag" compare_rc=$? compare_json="$work/$tag-compare.json"
  done
done

# ---- the table
if [ "$dry" = 0 ]; then
  "$python" "$report" table "$cells" "$out/ladder.csv" "$out/ladder.json" | tee -a "$out/ladder.txt"
  rm -f "$work"/*.h5
  tar czf "$out/logs.tgz" -C "$work" . 2>/dev/null && rm -rf "$work"
fi
log "== done in $(elapsed) s: $out/ladder.txt"
