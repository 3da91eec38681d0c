#!/usr/bin/env bash
# The slurm/ scripts under a real Slurm: starts a private one-node cluster on localhost
# (tests/slurm/local_cluster.sh), then with the CPU build and small decks:
#  1. run.sbatch on 2 ranks: exit 0, the run folder's name, its state files bitwise those of a
#     direct run (zoneode-compare), its summary; bad usage exits 2 with a message;
#  2. scaling.sh strong and weak (1 and 2 ranks) with the report job: summaries in campaign
#     folders named by date, backend, variant and mode; report.csv (speedup checked against the
#     summaries), report.md and the PNGs;
#  3. the time-limit signal: scancel --signal=USR1 --batch on a running run.sbatch job with
#     ZONEODE_RESUBMIT=1: exit 75, the checkpoint (attribute checkpoint = 1), the resubmitted job
#     continues from it, and every state file is bitwise the uninterrupted run's. Skipped, saying
#     so, while `zoneode --help` does not document the checkpoint and exit status 75;
#  4. profile.sbatch: the dry-run commands of every tool and site, and exit 69 in a real job
#     without the profiler.
# Stops the daemons it started by pid and removes its temporary folder (configuration, spool,
# logs, outputs). Needs root and scripts/install_dependencies.sh --slurm. Run by .ci/run.
# Usage: tests/slurm_end_to_end.sh [BUILD_DIR]     (default build-cpu: cmake --preset cpu)
# Exit status: 0 all passed (skips are printed), 1 a check failed, 77 cannot run here (not root).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-build-cpu}
zoneode=$build/zoneode
compare=$build/zoneode-compare
python=/usr/bin/python3
[ "$(id -u)" -eq 0 ] || { echo "slurm_end_to_end: needs root (slurmd); skipped"; exit 77; }
if [ ! -x "$zoneode" ] || [ ! -x "$compare" ]; then echo "slurm_end_to_end: no $zoneode or $compare: cmake --preset cpu && cmake --build --preset cpu"; exit 1; fi
work=$(mktemp -d /tmp/zoneode-slurm-test.XXXXXX)
cluster=$work/cluster
daemon_pids=()
cleanup() {
  tests/slurm/local_cluster.sh stop "$cluster"
  local pid
  for pid in "${daemon_pids[@]}"; do
    kill -0 "$pid" 2>/dev/null && echo "FAIL: daemon pid $pid still running after stop"
  done
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
passes=0
skips=()
check() {
  local name=$1
  shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL: $name"; failures=$((failures + 1)); fi
}
start=$SECONDS

tests/slurm/local_cluster.sh start "$cluster" || exit 1
read -r -a daemon_pids < <(awk '{print $1}' "$cluster/pids" | tr '\n' ' ')
export SLURM_CONF=$cluster/slurm.conf
export ZONEODE_SITE=local ZONEODE_BUILD_DIR=$build ZONEODE_RUNS_DIR=$work/runs ZONEODE_CAMPAIGNS_DIR=$work/campaigns
export ZONEODE_PROFILES_DIR=$work/profiles ZONEODE_PYTHON=$python

job_field() {  # job_field ID KEY: a field of scontrol show job (finished jobs stay: MinJobAge)
  scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}
wait_job() {  # wait_job ID [TIMEOUT_S]: until the job has ended; prints its JobState
  local id=$1 timeout=${2:-300} state
  for _ in $(seq $((timeout * 2))); do
    state=$(job_field "$id" JobState)
    case $state in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | PREEMPTED) echo "$state"; return 0 ;; esac
    sleep 0.5
  done
  echo "TIMEOUT_WAITING($state)"
  return 1
}
exit_code() { job_field "$1" ExitCode; }
same() {  # same A B: every compared dataset bit for bit
  "$compare" "$1" "$2" --rtol 0 --atol 0 --quiet >"$work/compare.log" 2>&1 || { echo "  $1 vs $2:"; cat "$work/compare.log"; return 1; }
}
json_value() { "$python" -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
equals() {  # equals NAME ACTUAL EXPECTED
  [ "$2" = "$3" ] || { echo "  $1: '$2', expected '$3'"; return 1; }
}
is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

# ---- 1. run.sbatch: a production run on 2 ranks against a direct run ----
deck=(inputs/quick.yaml --quiet --set zones.count=37 --set integrator.end_time=1e-4 --set steps.count=3
      --set steps.temperature_factor=1.05 --set output.initial=true)
check "direct reference run" "$zoneode" "${deck[@]}" --threads 1 --set output.prefix="$work/direct/quick" \
  --summary "$work/direct.json" >"$work/direct.log" 2>&1
id=$(sbatch --parsable -n 2 --ntasks-per-node=2 --output="$work/%j.out" slurm/run.sbatch "${deck[@]}")
check "run.sbatch submitted" test -n "$id"
check "run.sbatch completed" equals "state" "$(wait_job "$id")" COMPLETED
check "run.sbatch exit 0" equals "exit code" "$(exit_code "$id")" 0:0
run_dir=$work/runs/$id-cpu-none-r2
check "run folder named job-backend-variant-ranks" test -d "$run_dir"
for step in 0 1 2 3; do
  check "run.sbatch step $step bitwise the direct run's" same "$work/direct/quick_step00000$step.h5" "$run_dir/quick_step00000$step.h5"
done
check "summary: ranks" equals ranks "$(json_value "$run_dir/summary-$id.json" ranks)" 2
check "summary: zones" equals zones "$(json_value "$run_dir/summary-$id.json" zones)" 37
check "summary: result hash as the direct run's" equals hash "$(json_value "$run_dir/summary-$id.json" result_hash)" \
  "$(json_value "$work/direct.json" result_hash)"
check "jobs.txt records the exit status" grep -qx "$id 0" "$run_dir/jobs.txt"
check "log names the launch" grep -q "mpirun -n 2" "$work/$id.out"
# The comparison has teeth: another zone count's files differ.
check "perturbed direct run" "$zoneode" "${deck[@]}" --set zones.count=38 --set output.prefix="$work/direct38/quick" \
  >/dev/null 2>&1
check "compare detects a different run" test "$("$compare" "$work/direct/quick_step000001.h5" \
  "$work/direct38/quick_step000001.h5" --rtol 0 --atol 0 --quiet >/dev/null 2>&1; echo $?)" -ne 0
# Bad usage: no such deck, no site: exit 2 with a message, nothing run.
id=$(sbatch --parsable -n 1 --ntasks-per-node=1 --output="$work/%j.out" slurm/run.sbatch inputs/no_such_deck.yaml)
wait_job "$id" >/dev/null
check "missing deck exits 2" equals "exit code" "$(exit_code "$id")" 2:0
check "missing deck named" grep -q "deck 'inputs/no_such_deck.yaml': no such file" "$work/$id.out"
id=$(env -u ZONEODE_SITE sbatch --parsable -n 1 --ntasks-per-node=1 --output="$work/%j.out" slurm/run.sbatch inputs/quick.yaml)
wait_job "$id" >/dev/null
check "no site exits 2" equals "exit code" "$(exit_code "$id")" 2:0
check "no site named" grep -q "ZONEODE_SITE is not set" "$work/$id.out"
echo "== run.sbatch checks done after $((SECONDS - start)) s"

# ---- 2. scaling.sh strong and weak, with the report job ----
scaling_deck=(inputs/quick.yaml --quiet --set integrator.end_time=1e-4)
for mode in strong weak; do
  ZONEODE_RANKS="1 2" ZONEODE_ZONES_PER_RANK=32 ZONEODE_REPORT=1 slurm/scaling.sh "$mode" "${scaling_deck[@]}" \
    --set zones.count=64 >"$work/scaling-$mode.log" 2>&1
  check "scaling.sh $mode submits" test $? -eq 0
  campaign=$(sed -n 's/^scaling.sh: campaign //p' "$work/scaling-$mode.log")
  check "campaign folder named date-backend-variant-mode" \
    test -n "$(basename "$campaign" | grep -E "^[0-9]{8}-[0-9]{6}-cpu-none-$mode\$")"
  report_id=$(sed -n 's/^scaling.sh: report job \([0-9]*\) .*/\1/p' "$work/scaling-$mode.log")
  while read -r -u 3 id ranks _; do
    check "$mode r$ranks completed" equals state "$(wait_job "$id")" COMPLETED
    summary=$campaign/$id-cpu-none-r$ranks.json
    check "$mode r$ranks summary named job-backend-variant-ranks" test -f "$summary"
    zones=64
    [ "$mode" = strong ] || zones=$((32 * ranks))
    check "$mode r$ranks zones" equals zones "$(json_value "$summary" zones)" "$zones"
    check "$mode r$ranks ranks" equals ranks "$(json_value "$summary" ranks)" "$ranks"
  done 3<"$campaign/jobs.txt"
  check "$mode: two jobs" test "$(wc -l <"$campaign/jobs.txt")" -eq 2
  check "$mode report job completed" equals state "$(wait_job "$report_id")" COMPLETED
  for file in report.csv report.md "${mode}_time.png" "${mode}_speedup.png" "${mode}_efficiency.png" "${mode}_imbalance.png"; do
    check "$mode report has $file" test -s "$campaign/report/$file"
  done
  for png in "$campaign/report/"*.png; do check "$(basename "$png") is a PNG" is_png "$png"; done
  # The report's numbers from the summaries, recomputed here.
  check "$mode report numbers" "$python" - "$campaign" "$mode" <<'EOF'
import csv, glob, json, sys
campaign, mode = sys.argv[1], sys.argv[2]
times = {}
for path in glob.glob(campaign + "/*.json"):
    record = json.load(open(path))
    times[record["ranks"]] = record["integrate_seconds"]
rows = {int(r["ranks"]): r for r in csv.DictReader(open(campaign + "/report/report.csv"))}
assert sorted(rows) == [1, 2], rows
expected_speedup = times[1] / times[2] if mode == "strong" else 2 * times[1] / times[2]
expected_efficiency = expected_speedup / 2
assert abs(float(rows[2]["speedup"]) - expected_speedup) < 1e-12 * expected_speedup, (rows[2], expected_speedup)
assert abs(float(rows[2]["efficiency"]) - expected_efficiency) < 1e-12, (rows[2], expected_efficiency)
assert float(rows[1]["speedup"]) == 1.0
assert all(r["mode"] == mode for r in rows.values())
EOF
  if [ "$mode" = strong ]; then
    hashes=$(for f in "$campaign"/*.json; do json_value "$f" result_hash; done | sort -u | wc -l)
    check "strong: the same result hash on 1 and 2 ranks" test "$hashes" -eq 1
  fi
done
echo "== scaling checks done after $((SECONDS - start)) s"

# ---- 3. the time-limit signal: checkpoint, resubmission, bitwise restart ----
help=$("$zoneode" --help 2>&1)
if ! grep -qi checkpoint <<<"$help" || ! grep -q 75 <<<"$help"; then
  skips+=("signal/checkpoint/resubmission: this zoneode's --help does not document the checkpoint and exit status 75 (issue 9's runtime part is not in this build)")
else
  long_deck=(inputs/quick.yaml --quiet --set zones.count=512 --set steps.count=48)
  check "uninterrupted reference run" "$zoneode" "${long_deck[@]}" --set output.prefix="$work/uninterrupted/quick" \
    >"$work/uninterrupted.log" 2>&1
  id=$(ZONEODE_RESUBMIT=1 sbatch --parsable -n 2 --ntasks-per-node=2 --output="$work/%j.out" slurm/run.sbatch "${long_deck[@]}")
  run_dir=$work/runs/$id-cpu-none-r2
  # Signalled once step 2 is written (outputs to keep), with some 45 steps (~20 s on 2 cores) to go.
  for _ in $(seq 600); do
    [ -f "$run_dir/quick_step000002.h5" ] && break
    case $(job_field "$id" JobState) in PENDING | CONFIGURING | RUNNING) sleep 0.2 ;; *) break ;; esac
  done
  check "job running at the signal" equals state "$(job_field "$id" JobState)" RUNNING
  scancel --signal=USR1 --batch "$id"
  wait_job "$id" >/dev/null
  check "signalled job exits 75" equals "exit code" "$(exit_code "$id")" 75:0
  check "the batch script passed the signal on" grep -q "SIGUSR1 at .*passing it to the job step" "$work/$id.out"
  line=$(grep '^checkpoint: ' "$run_dir/zoneode-$id.log")
  check "exactly one checkpoint line" test "$(grep -c '^checkpoint: ' "$run_dir/zoneode-$id.log")" -eq 1
  checkpoint=$(sed -n 's/^checkpoint: \(.*\) outer_step [0-9]*$/\1/p' <<<"$line")
  k=$(sed -n 's/^checkpoint: .* outer_step \([0-9]*\)$/\1/p' <<<"$line")
  check "checkpoint at <prefix>_checkpoint.h5" equals checkpoint "$checkpoint" "$run_dir/quick_checkpoint.h5"
  check "stopped before the end" test "${k:-99}" -lt 48
  check "checkpoint attribute = 1" bash -c "h5dump -A '$checkpoint' | grep -A4 'ATTRIBUTE \"checkpoint\"' | grep -q '(0): 1'"
  check "checkpoint is step $k's state" same "$work/uninterrupted/quick_step$(printf %06d "${k:-0}").h5" "$checkpoint"
  next=$(sed -n 's/^run.sbatch: resubmitted as job \([0-9]*\) .*/\1/p' "$work/$id.out")
  check "resubmitted" test -n "$next"
  check "resubmitted job completed" equals state "$(wait_job "$next" 400)" COMPLETED
  check "resubmitted job exit 0" equals "exit code" "$(exit_code "$next")" 0:0
  check "resubmitted job restarts from the checkpoint" grep -q -- "--restart $checkpoint" "$work/$next.out"
  check "restart began at step k+1" equals first_outer_step "$(json_value "$run_dir/summary-$next.json" first_outer_step)" "$((k + 1))"
  check "jobs.txt: 75 then 0" test "$(tr '\n' ' ' <"$run_dir/jobs.txt")" = "$id 75 $next 0 "
  for step in $(seq 1 48); do
    name=quick_step$(printf %06d "$step").h5
    check "after the restart, $name bitwise the uninterrupted run's" same "$work/uninterrupted/$name" "$run_dir/$name"
  done
fi
echo "== signal checks done after $((SECONDS - start)) s"

# ---- 4. profile.sbatch: dry runs, and a real job without the profiler ----
dry() { env -u ZONEODE_BUILD_DIR ZONEODE_DRY_RUN=1 ZONEODE_SITE="$1" slurm/profile.sbatch "$2" inputs/s150.yaml --set zones.count=4096 2>&1; }
out=$(dry lumi rocprofv3)
check "rocprofv3: per-rank rocpd databases" grep -q "srun --ntasks=1 --cpu-bind=map_cpu:49,57,17,25,1,9,33,41 slurm/select_gpu.sh rocprofv3 --kernel-trace --memory-copy-trace --stats --output-format rocpd -d $work/profiles/dryrun-rocprofv3-gpu-final-r1 -o rank%env{SLURM_PROCID}% -- build-lumi/zoneode inputs/s150.yaml --backend gpu" <<<"$out"
check "rocprofv3: rocpd summary" grep -q "^rocpd summary -i $work/profiles/dryrun-rocprofv3-gpu-final-r1/rank\*_results.db --summary-by-rank --format csv" <<<"$out"
out=$(ZONEODE_KERNEL=tuned dry frontier rocprof-compute)
check "rocprof-compute: profile with the kernel filter, Frontier binding" grep -q "srun --ntasks=1 -c 7 --gpus-per-task=1 --gpu-bind=closest slurm/select_gpu.sh rocprof-compute profile --name zoneode-tuned --path .* --kernel tuned_ -- build-frontier/zoneode" <<<"$out"
check "rocprof-compute: analyze" grep -q "^rocprof-compute analyze --path .*/workload --kernel tuned_ > " <<<"$out"
out=$(dry generic-nvidia ncu)
check "ncu: one rank, kernel filter, clocks left alone" grep -q "srun --ntasks=1 --cpu-bind=cores slurm/select_gpu.sh ncu --clock-control none --kernel-name regex:final_ --launch-count 10" <<<"$out"
out=$(dry generic-nvidia nsys)
check "nsys: one report per rank" grep -q "nsys profile .* --output .*/nsys-rank%q{SLURM_PROCID} build-generic-nvidia/zoneode" <<<"$out"
check "profile.sbatch: unknown tool exits 2" test "$(ZONEODE_DRY_RUN=1 slurm/profile.sbatch vtune inputs/quick.yaml >/dev/null 2>&1; echo $?)" -eq 2
if command -v rocprofv3 >/dev/null; then
  skips+=("profile.sbatch without the profiler: rocprofv3 is installed here")
else
  id=$(sbatch --parsable -n 1 --ntasks-per-node=1 --output="$work/%j.out" slurm/profile.sbatch rocprofv3 inputs/quick.yaml --set zones.count=8)
  wait_job "$id" >/dev/null
  check "profile.sbatch without rocprofv3 exits 69" equals "exit code" "$(exit_code "$id")" 69:0
  check "profile.sbatch without rocprofv3 says so" grep -q "rocprofv3 is not on the PATH" "$work/$id.out"
fi
check "nothing written into the repository" test ! -e runs -a ! -e campaigns -a ! -e profiles
echo "== profiling checks done after $((SECONDS - start)) s"

for skip in "${skips[@]}"; do echo "SKIPPED: $skip"; done
echo "slurm_end_to_end: $passes passed, $failures failed, ${#skips[@]} skipped, $((SECONDS - start)) s"
[ "$failures" -eq 0 ]
