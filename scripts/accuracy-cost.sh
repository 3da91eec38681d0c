#!/usr/bin/env bash
# Accuracy against cost of every method (asymptotic, qss2, implicit, bdf) over its tolerances, on the
# default network and a real REACLIB network, for a short burn (as a hydro code calls a burner:
# 0.05 s at T9 0.8-1.0) and a long one (10 s at T9 0.4). Error: the max relative error over
# species with X >= 1e-8 of K zones against the implicit method at rtol 1e-10 (atol 1e-25) on
# the same zones; cost per zone per burn (not per step): on the CPU the process's CPU time on one
# thread less that of the same run over one tiny step (set-up, output), per zone, so that a busy
# shared machine does not inflate it as it does wall time; on the GPU the run's integrate time
# (wall, kernel and transfers excluded from nothing else) per zone.
# Writes one CSV row per run, then the table and the plot (validation/accuracy_cost.py report).
#
#   scripts/accuracy-cost.sh [--out DIR] [--reaclib z24|z12] [--cases "default rp-short rp-long"]
#       CPU backend, one thread, K = 8 zones per case (--zones K); hours on a 2-core machine.
#   scripts/accuracy-cost.sh --gpu [--out DIR] [--kernel NAME] [--gpu-zones N] [--deadline S]
#       on the GPU machine, in one call: builds $ZONEODE_BUILD_DIR (default build-gpu; CUDA, or
#       ZONEODE_GPU=HIP) unless it holds zoneode, computes the references on the host's cores,
#       then runs every method on the GPU backend with N zones (default 2048; the first K are
#       compared), each run at most 60 s, until the deadline (default 360 s of runs, after the build). Writes at most 8 files to
#       DIR (default $OUT): accuracy-cost-gpu.csv, accuracy-cost.md and .png (with the CPU rows of
#       validation/accuracy-cost-cpu.csv), accuracy-cost.log, logs.tgz.
#   --quick: two settings per method (a smoke test: scripts/accuracy-cost.sh --quick --reaclib z12).
#   --methods "implicit qss2": only these methods' rows (to fill in rows an earlier call did not reach;
#       merge them into validation/accuracy-cost-*.csv by hand).
#   ACCURACY_COST_FAKE_GPU=1 with --gpu: the CPU backend stands in for the GPU (tests the script here).
# Methods refused by a backend (exit 2) get a row saying so. A run whose zones fail for max_steps
# (or a step underflow) stops that method's tighter settings in that case (they would fail the
# same way, slower); zones failed otherwise (mass drift at a coarse dt) do not.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=cpu out="" reaclib=z24 cases="default rp-short rp-long" K=8 gpu_zones=2048 kernel=final deadline=360 quick=0
methods="asymptotic qss2 implicit bdf"
run_timeout=900  # s per run; 60 on the GPU
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) mode=gpu ;;
    --out) out=$2; shift ;;
    --reaclib) reaclib=$2; shift ;;
    --cases) cases=$2; shift ;;
    --zones) K=$2; shift ;;
    --gpu-zones) gpu_zones=$2; shift ;;
    --kernel) kernel=$2; shift ;;
    --deadline) deadline=$2; shift ;;
    --quick) quick=1 ;;
    --methods) methods=$2; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "accuracy-cost.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$out" ] || out=${OUT:-accuracy-cost-out}
[ "$mode" = cpu ] || run_timeout=60
mkdir -p "$out"
out=$(cd "$out" && pwd)
# A Python with h5py, numpy and matplotlib: Debian's /usr/bin/python3 here, the PATH's python3 on
# the GPU machine (whose /usr/bin/python3 has no h5py); ZONEODE_PYTHON wins.
python=${ZONEODE_PYTHON:-}
if [ -z "$python" ]; then
  for candidate in /usr/bin/python3 python3; do
    if "$candidate" -c "import h5py, numpy, matplotlib" 2>/dev/null; then python=$candidate; break; fi
  done
  python=${python:-/usr/bin/python3}
fi
"$python" -c "import h5py, numpy, matplotlib" || { echo "accuracy-cost.sh: $python needs h5py, numpy, matplotlib" >&2; exit 2; }
work=$(mktemp -d)
log="$out/accuracy-cost.log"
: >"$log"
say() { echo "$*" | tee -a "$log"; }
cores=$(nproc)
cpu_model=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)

if [ "$mode" = gpu ]; then
  build=${ZONEODE_BUILD_DIR:-build-gpu}
  csv="$out/accuracy-cost-gpu.csv"
  if [ ! -x "$build/zoneode" ]; then
    say "== building $build (${ZONEODE_GPU:-CUDA}, serial HDF5) on $cores cores"
    generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU="${ZONEODE_GPU:-CUDA}" \
      -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log" | tee -a "$log"; exit 1; }
    cmake --build "$build" -j "$cores" --target zoneode >"$work/build.log" 2>&1 || { grep -B5 -A20 error "$work/build.log" | head -60 | tee -a "$log"; exit 1; }
  fi
else
  build=${ZONEODE_BUILD_DIR:-build}
  csv="$out/accuracy-cost-cpu.csv"
fi
start=$(date +%s)  # the deadline counts from here, after any build
zoneode=$root/$build/zoneode
[ -x "$zoneode" ] || { echo "accuracy-cost.sh: no $zoneode (build first: ./scripts/build.sh)" >&2; exit 2; }
rm -f "$csv"
say "== accuracy-cost $mode $(date -u +%FT%TZ) on $(hostname), $cores cores ($cpu_model), commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log" || true

# The REACLIB network: the project's copy (inputs/networks) or the one beside the clone (or in it).
case "$reaclib" in
  z24) lib=inputs/networks/rp-z24; [ -f "$lib.reaclib" ] || lib=../shared/reaclib/rp-z24
       [ -f "$lib.reaclib" ] || lib=shared/reaclib/rp-z24 ;;  # the GPU machine's copy of shared/
  z12) lib=../shared/reaclib/rp-z12; [ -f "$lib.reaclib" ] || lib=shared/reaclib/rp-z12 ;;
  *) echo "accuracy-cost.sh: --reaclib z24 or z12" >&2; exit 2 ;;
esac
if [[ " $cases " == *" rp-"* ]] && [ ! -f "$lib.reaclib" ]; then
  echo "accuracy-cost.sh: no $lib.reaclib for the REACLIB cases" >&2; exit 2
fi
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")

# A case's deck and overrides. rp cases: X(p) 0.7, he4 0.28, C and O 0.01 each (the issue's mix).
case_args() {
  local rp=(inputs/reaclib_rp.yaml --set network.file="$lib.reaclib" --set network.nuclides_file="$lib.nuclides"
            --set "zones.composition={p: 0.7, he4: 0.28, c12: 0.01, o16: 0.01}" --set zones.seed=1
            --set integrator.start_time=1e-8)
  case "$1" in
    default) echo inputs/default.yaml ;;
    rp-short) printf '%q ' "${rp[@]}" --set "zones.temperature={profile: random, min: 0.8, max: 1.0}" \
                --set "zones.density={profile: constant, value: 1.0e6}" --set integrator.end_time=0.05 ;;
    rp-long) printf '%q ' "${rp[@]}" --set "zones.temperature={profile: constant, value: 0.4}" \
               --set "zones.density={profile: constant, value: 1.0e5}" --set integrator.end_time=10 ;;
    *) echo "accuracy-cost.sh: unknown case '$1' (default rp-short rp-long)" >&2; exit 2 ;;
  esac
}

# run NAME ZONES TIMEOUT BACKEND_ARGS... -- SETTINGS...: one zoneode run; its exit status.
run() {
  local name=$1 zones=$2 limit=$3; shift 3
  local args=()
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  local status=0
  eval "local deck=($case_deck)"
  "$python" -c "$timed" "$work/$name.time" timeout "$limit" "$zoneode" "${deck[@]}" --quiet --force "${args[@]}" --set zones.count="$zones" \
    --set validation.sample_zones=0 --set output.prefix="$work/$name" --summary "$work/$name.json" "$@" \
    </dev/null >"$work/$name.log" 2>&1 || status=$?
  echo "$status"
}

# Runs a command and writes its CPU time (user + system, microseconds' resolution) to a file.
timed='import resource, subprocess, sys
code = subprocess.run(sys.argv[2:]).returncode
u = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write(f"{u.ru_utime + u.ru_stime:.6f}\n")
sys.exit(code if code >= 0 else 128 - code)'
cpu_seconds() { cat "$work/$1.time"; }
remaining() { echo $((deadline - ($(date +%s) - start))); }

for case_name in $cases; do
  case_deck=$(case_args "$case_name")
  # The reference on K zones: the implicit method at rtol 1e-10, all cores of this machine. rp-long's
  # zones are all alike (constant T9 and rho): 2 of them.
  k=$K
  [ "$case_name" != rp-long ] || [ "$k" -le 2 ] || k=2
  say "== $case_name: reference (implicit rtol 1e-10, $k zones)"
  status=$(run "$case_name-reference" "$k" 3600 --threads "$cores" -- --set integrator.method=implicit \
             --set integrator.schedule=adaptive --set integrator.rtol=1e-10 --set integrator.atol=1e-25 \
             --set integrator.max_steps=100000000)
  [ "$status" = 0 ] || { say "reference failed (exit $status):"; tail -5 "$work/$case_name-reference.log" | tee -a "$log"; exit 1; }
  reference="$work/$case_name-reference_step000001.h5"
  # One tiny step from the case's start time (default deck 1e-10 s, REACLIB cases 1e-8 s).
  tiny_end=$([ "$case_name" = default ] && echo 1.000001e-10 || echo 1.000001e-8)
  # method schedule settings
  while read -r method schedule settings; do
    [[ " $methods " == *" $method "* ]] || continue
    for setting in $settings; do
      key=$([ "$schedule" = geometric ] && echo dt_fraction || echo rtol)
      name="$case_name-$method-$schedule-$setting"
      if [ "$mode" = gpu ]; then
        backend="gpu $kernel" zones=$gpu_zones
        limit=$(remaining)
        if [ "$limit" -le 5 ]; then
          "$python" validation/accuracy_cost.py failed "$csv" --case "$case_name" --method "$method" --backend "$backend" \
            --schedule "$schedule" --setting "$setting" --note "not run: the call's deadline"
          continue
        fi
        [ "$limit" -le "$run_timeout" ] || limit=$run_timeout
        backend_args=(--backend gpu --kernel "$kernel")
        [ "${ACCURACY_COST_FAKE_GPU:-0}" = 1 ] && backend_args=(--threads "$cores") backend="fake-gpu (cpu)"
      else
        backend="cpu 1 core" zones=$k limit=$run_timeout backend_args=(--threads 1)
      fi
      status=$(OMP_NUM_THREADS=$([ "$mode" = gpu ] && echo "$cores" || echo 1) \
               run "$name" "$zones" "$limit" "${backend_args[@]}" -- --set integrator.method="$method" \
               --set integrator.schedule="$schedule" --set integrator."$key"="$setting")
      common=(--case "$case_name" --method "$method" --backend "$backend" --schedule "$schedule" --setting "$setting")
      cost=()
      if [ "$mode" = cpu ] && [ "$status" = 0 -o "$status" = 3 ]; then
        # Cost: CPU time less that of the same run over one tiny step (set-up and output), on more
        # zones (the same distribution) where K zones take less than 0.5 s.
        settings_args=(--set integrator.method="$method" --set integrator.schedule="$schedule"
                       --set integrator."$key"="$setting")
        timed_name=$name timed_zones=$zones
        for attempt in 1 2; do
          run "$timed_name-setup" "$timed_zones" "$limit" "${backend_args[@]}" -- "${settings_args[@]}" \
            --set integrator.end_time="$tiny_end" >/dev/null
          seconds=$(awk -v a="$(cpu_seconds "$timed_name")" -v b="$(cpu_seconds "$timed_name-setup")" 'BEGIN {print a - b}')
          more=$(awk -v t="$seconds" -v k="$zones" 'BEGIN {m = t > 0 ? int(0.5 / t) + 1 : 64; if (m > 64) m = 64; print (t < 0.5 && m > 1) ? m * k : 0}')
          [ "$attempt" = 1 ] && [ "$more" -gt 0 ] || break
          timed_name=$name-more timed_zones=$more
          run "$timed_name" "$timed_zones" "$limit" "${backend_args[@]}" -- "${settings_args[@]}" >/dev/null
        done
        cost=(--cpu-seconds "$seconds" --cost-zones "$timed_zones")
      fi
      case "$status" in
        0|3)
          note=""
          [ "$status" = 3 ] && note="zones failed in the run (exit 3)"
          [ "$mode" = cpu ] && cost+=(--device "$cpu_model, 1 thread, CPU time")
          "$python" validation/accuracy_cost.py row "$csv" "${common[@]}" --reference "$reference" \
            --run "$work/${name}_step000001.h5" --summary "$work/$name.json" --note "$note" "${cost[@]}"
          say "  $name: exit $status, $("$python" -c 'import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[-1]
print(r["zones_ok"] + "/" + r["zones_compared"], "ok, error", r["max_rel_error"], r["worst_species"], r["ns_per_zone_burn"], "ns per zone")' "$csv")"
          costly=$("$python" -c 'import json, sys; s = json.load(open(sys.argv[1]))["zones_by_status"]
print(s.get("max_steps", 0) + s.get("step_underflow", 0))' "$work/$name.json")
          if [ "$costly" -gt 0 ]; then
            say "  ($method $schedule: $costly zones reached max_steps or underflowed; tighter settings not run)"
            for rest in ${settings#*"$setting"}; do
              "$python" validation/accuracy_cost.py failed "$csv" --case "$case_name" --method "$method" \
                --backend "$backend" --schedule "$schedule" --setting "$rest" --note "not run: max_steps at $setting"
            done
            break
          fi ;;
        124) "$python" validation/accuracy_cost.py failed "$csv" "${common[@]}" --note "timeout after $limit s"
             say "  $name: timeout after $limit s"; break ;;
        *) why=$(grep -m1 -i "error\|refus\|runs on" "$work/$name.log" | cut -c1-160 | tr ',' ';' || true)
           "$python" validation/accuracy_cost.py failed "$csv" "${common[@]}" --note "exit $status: ${why:-see log}"
           say "  $name: exit $status: $why"; break ;;
      esac
    done
  done < <(if [ "$quick" = 1 ]; then printf '%s\n' "asymptotic geometric 1e-2" "asymptotic adaptive 1e-3" \
             "qss2 adaptive 1e-3 1e-4" "implicit adaptive 1e-4 1e-6" "bdf adaptive 1e-4 1e-6"; else printf '%s\n' \
             "asymptotic geometric 1e-2 1e-3 1e-4" "asymptotic adaptive 1e-3 1e-4 1e-5 1e-6" \
             "qss2 adaptive 1e-3 1e-4 1e-5 1e-6 1e-7 1e-8" "implicit adaptive 1e-3 1e-4 1e-5 1e-6 1e-7 1e-8" \
             "bdf adaptive 1e-3 1e-4 1e-5 1e-6 1e-7 1e-8"; fi)
  rm -f "$work"/*.h5
done

csvs=("$csv")
[ "$mode" = gpu ] && [ -f validation/accuracy-cost-cpu.csv ] && csvs+=(validation/accuracy-cost-cpu.csv)
"$python" validation/accuracy_cost.py report "${csvs[@]}" --table "$out/accuracy-cost.md" --plot "$out/accuracy-cost.png" \
  --title "zoneode: accuracy against cost per zone per burn ($(date -u +%F))"
tar -czf "$out/logs.tgz" -C "$work" . 2>/dev/null || true
rm -rf "$work"
say "== done in $(($(date +%s) - start)) s: $csv, $out/accuracy-cost.md, $out/accuracy-cost.png"
