#!/usr/bin/env bash
# Time limits and signals (issue 9): SIGUSR1/SIGTERM (and SIGINT, issue 18) stop a run after the outer step in flight with
# a checkpoint and exit 75; --restart from it writes bitwise the files of an uninterrupted run, and
# nothing written before the stop is lost. Also the cost decomposition (zones.decomposition: cost)
# writes bitwise the files of `count` on 1, 2 and 3 ranks. And the launcher `zoneode` (issue 31): a
# stop request pending before zoneode.bin runs stops the run like a later one.
# Usage: signal_end_to_end.sh ZONEODE ZONEODE_COMPARE SOURCE_DIR MPIEXEC
set -uo pipefail
zoneode=$1
compare=$2
source_dir=$3
mpiexec=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"  # check, passes, failures, mpi_flags
same() {  # same A B: every compared dataset bit for bit
  "$compare" "$1" "$2" --rtol 0 --atol 0 --quiet >"$work/compare.log" 2>&1 || { cat "$work/compare.log"; return 1; }
}
status_is() {  # status_is EXPECTED ACTUAL LOG
  [ "$2" -eq "$1" ] || { echo "  exited $2, expected $1"; tail -5 "$3"; return 1; }
}
is_checkpoint() {  # the HDF5 attribute checkpoint = 1
  h5dump -a /checkpoint "$1" 2>/dev/null | grep -q '(0): 1$'
}
# Starts "$@" in the background with its output in $1, waits for the first line matching
# $wait_for (by default the first "wrote" line: a step is done and more follow), sends
# the signal $2 to the process (or, with a third word "child", to the first of its children: one
# MPI rank), waits for the end and sets $stopped_status.
signalled_run() {
  local log=$1 signal=$2 target=$3; shift 3
  "$@" >"$log" 2>&1 &
  local pid=$! waited=0
  until grep -q "${wait_for:-wrote}" "$log" || [ $waited -ge 1200 ]; do sleep 0.05; waited=$((waited + 1)); done
  local victim=$pid
  if [ "$target" = child ]; then
    victim=$(ps -o pid= --ppid "$pid" | head -1)
    until [ -n "$victim" ] || [ $waited -ge 1200 ]; do sleep 0.05; waited=$((waited + 1)); victim=$(ps -o pid= --ppid "$pid" | head -1); done
  fi
  kill -s "$signal" $victim
  wait "$pid"
  stopped_status=$?
}
checkpoint_step() {  # the K of the one "checkpoint: PATH outer_step K" line of log $1 (PATH must be $2)
  [ "$(grep -c '^checkpoint: ' "$1")" -eq 1 ] || { echo "  not exactly one checkpoint line in $1"; return 1; }
  grep '^checkpoint: ' "$1" | sed -n "s#^checkpoint: $2 outer_step \([0-9]*\)\$#\1#p"
}

# 256 zones, 10 short outer steps (T9 rises, rho falls) of about 0.1-0.3 s each on one core.
steps=10
deck=("$source_dir/inputs/quick.yaml" --quiet --threads 1 --set zones.count=256 --set integrator.end_time=1e-3
      --set steps.count=$steps --set steps.temperature_factor=1.02 --set steps.density_factor=0.95
      --set output.initial=true)
# The reference writes every step; the stopped runs write every third (and the last), so that a
# stop usually falls on a step whose state file the deck does not write.
OMP_NUM_THREADS=1 "$zoneode" "${deck[@]}" --set output.prefix="$work/ref" >"$work/ref.log" 2>&1
check "reference runs" status_is 0 $? "$work/ref.log"

# 1. One process, SIGUSR1 after its first file: exit 75, a checkpoint of step k, the files before it kept.
signalled_run "$work/stop1.log" USR1 self env OMP_NUM_THREADS=1 "$zoneode" "${deck[@]}" --set output.every=3 \
  --set output.prefix="$work/s" --summary "$work/stop1.json"
check "SIGUSR1: exit 75" status_is 75 "$stopped_status" "$work/stop1.log"
k1=$(checkpoint_step "$work/stop1.log" "$work/s_checkpoint.h5")
check "SIGUSR1: one checkpoint line naming the file and a step before the last" \
  test -n "$k1" -a "${k1:-0}" -ge 1 -a "${k1:-99}" -lt $steps
k1=${k1:-1}
echo "  one process stopped after outer step $k1"
check "checkpoint written" test -f "$work/s_checkpoint.h5"
check "checkpoint attribute = 1" is_checkpoint "$work/s_checkpoint.h5"
check "an output is no checkpoint" bash -c "! h5dump -a /checkpoint '$work/s_step000000.h5' | grep -q '(0): 1\$'"
check "checkpoint is step $k1 of the uninterrupted run" same "$work/ref_step$(printf %06d "$k1").h5" "$work/s_checkpoint.h5"
check "step 0 kept and intact" same "$work/ref_step000000.h5" "$work/s_step000000.h5"
check "no partial files left" bash -c "! ls '$work'/*.partial 2>/dev/null | grep -q ."
check "nothing after step $k1 written" bash -c "! ls '$work'/s_step*.h5 | awk -F_step '{print substr(\$2,1,6)+0}' | awk '\$1 > $k1' | grep -q ."
check "summary says stopped early" grep -q '"stopped_early": true' "$work/stop1.json"
check "summary names the checkpoint" grep -q "\"checkpoint\": \"$work/s_checkpoint.h5\"" "$work/stop1.json"

# 2. Restart from the checkpoint and stop it again with SIGTERM: the new checkpoint replaces the old.
signalled_run "$work/stop2.log" TERM self env OMP_NUM_THREADS=1 "$zoneode" "${deck[@]}" --set output.every=3 \
  --set output.prefix="$work/s" --restart "$work/s_checkpoint.h5"
if [ "$stopped_status" -eq 0 ]; then
  echo "  (the restarted run finished before SIGTERM reached it: no second checkpoint)"
else
  check "SIGTERM: exit 75" status_is 75 "$stopped_status" "$work/stop2.log"
  k2=$(checkpoint_step "$work/stop2.log" "$work/s_checkpoint.h5")
  check "second checkpoint later than the first" test -n "$k2" -a "${k2:-0}" -gt "$k1"
  k2=${k2:-$k1}
  echo "  the restarted run stopped after outer step $k2"
  check "second checkpoint is step $k2" same "$work/ref_step$(printf %06d "$k2").h5" "$work/s_checkpoint.h5"
fi

# 2b. Ctrl-C (SIGINT) stops like SIGTERM: a checkpoint and 75 (issue 18: it ended with 130 and no
# checkpoint); a second Ctrl-C ends the run at once (130), for runs with one long outer step.
# A script's background job ignores SIGINT (and zoneode leaves it so): env gives it back its default.
signalled_run "$work/int.log" INT self env --default-signal=INT OMP_NUM_THREADS=1 "$zoneode" "${deck[@]}" \
  --set output.prefix="$work/int"
[ -n "${ZONEODE_OUTCOMES:-}" ] && echo "i18_also_sigint $stopped_status 75" >>"$ZONEODE_OUTCOMES"
check "SIGINT: exit 75" status_is 75 "$stopped_status" "$work/int.log"
ki=$(checkpoint_step "$work/int.log" "$work/int_checkpoint.h5")
check "SIGINT: a checkpoint line" test -n "$ki"
check "SIGINT: the checkpoint is step ${ki:-1} of the uninterrupted run" same "$work/ref_step$(printf %06d "${ki:-1}").h5" \
  "$work/int_checkpoint.h5"
# The "wrote" line of an overlapped write comes when the next step's integration ends, just before
# the stop check (CI once sent the first Ctrl-C there: 75, and the second found no process). So the
# signals go 0.5 s later, inside the following step (>= 2 s); a run that still ends before the second
# one proves nothing and is repeated once with twice the zones.
twice() {  # Ctrl-C twice, 0.2 s apart; sets second_found=0 when the run had ended before the second
  "$@" >"$work/int2.log" 2>&1 &
  local pid=$! waited=0
  until grep -q wrote "$work/int2.log" || [ $waited -ge 1200 ]; do sleep 0.05; waited=$((waited + 1)); done
  sleep 0.5
  kill -s INT $pid; sleep 0.2
  second_found=1
  kill -s INT $pid 2>/dev/null || second_found=0
  wait $pid
  stopped_status=$?
}
for int2_zones in 4096 8192; do  # steps of ~2-5 s
  twice env --default-signal=INT OMP_NUM_THREADS=1 "$zoneode" "${deck[@]}" --set zones.count=$int2_zones \
    --set output.prefix="$work/int2_$int2_zones"
  [ "$second_found" -eq 1 ] && break
  echo "  the run ended before the second SIGINT ($int2_zones zones): again with more"
done
check "a second SIGINT ends the run at once (130)" status_is 130 "$stopped_status" "$work/int2.log"

# 3. The last restart finishes: every file the stopped runs wrote is bitwise the reference's.
OMP_NUM_THREADS=1 "$zoneode" "${deck[@]}" --set output.every=3 --set output.prefix="$work/s" \
  --restart "$work/s_checkpoint.h5" >"$work/final.log" 2>&1
check "final restart: exit 0" status_is 0 $? "$work/final.log"
for step in 0 3 6 9 $steps; do
  check "step $step after stops and restarts bitwise" same "$work/ref_step$(printf %06d $step).h5" \
    "$work/s_step$(printf %06d $step).h5"
done
check "no checkpoint line in a finished run" bash -c "! grep -q '^checkpoint:' '$work/final.log'"

# 4. Two ranks with the cost decomposition; SIGUSR1 to one rank only: the ranks agree and stop.
signalled_run "$work/mpi.log" USR1 child env OMP_NUM_THREADS=1 "$mpiexec" "${mpi_flags[@]}" -n 2 "$zoneode" \
  "${deck[@]}" --set zones.decomposition=cost --set output.prefix="$work/m"
check "one rank signalled: exit 75" status_is 75 "$stopped_status" "$work/mpi.log"
km=$(checkpoint_step "$work/mpi.log" "$work/m_checkpoint.h5")
check "one rank signalled: checkpoint line" test -n "$km"
km=${km:-1}
echo "  two ranks stopped after outer step $km"
check "2-rank checkpoint is step $km" same "$work/ref_step$(printf %06d "$km").h5" "$work/m_checkpoint.h5"
for step in $(seq 1 "$km"); do
  check "2-rank step $step kept" same "$work/ref_step$(printf %06d "$step").h5" "$work/m_step$(printf %06d "$step").h5"
done
# ... and continue on 3 ranks.
OMP_NUM_THREADS=1 "$mpiexec" "${mpi_flags[@]}" -n 3 "$zoneode" "${deck[@]}" --set zones.decomposition=cost \
  --set output.prefix="$work/m" --restart "$work/m_checkpoint.h5" >"$work/mpi_restart.log" 2>&1
check "3-rank restart: exit 0" status_is 0 $? "$work/mpi_restart.log"
for step in $(seq $((km + 1)) $steps); do
  check "3-rank restart step $step bitwise" same "$work/ref_step$(printf %06d "$step").h5" "$work/m_step$(printf %06d "$step").h5"
done

# 5. No output prefix: stopped with 75 and told that no checkpoint could be written.
wait_for="rank 0 ->" signalled_run "$work/noprefix.log" USR1 self env OMP_NUM_THREADS=1 "$zoneode" "${deck[@]}"
check "no prefix: exit 75" status_is 75 "$stopped_status" "$work/noprefix.log"
check "no prefix: said so" grep -q "no checkpoint: the deck has no output.prefix" "$work/noprefix.log"
check "no prefix: no checkpoint line" bash -c "! grep -q '^checkpoint:' '$work/noprefix.log'"

# 5b. The launcher (issue 31): `zoneode` blocks the stop signals and execs zoneode.bin beside it,
# which unblocks them once its handler is in place. A stop request already pending when zoneode
# starts (blocked and raised by the caller, as one sent during the dynamic loader's work would be)
# stops the run after step 1 like a later one (the old program never saw it: exit 0).
pending_usr1() {  # pending_usr1 PROGRAM ARGS...: PROGRAM started with SIGUSR1 blocked and pending
  /usr/bin/python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
os.kill(os.getpid(), signal.SIGUSR1)
os.execv(sys.argv[1], sys.argv[1:])' "$@"
}
OMP_NUM_THREADS=1 pending_usr1 "$zoneode" "${deck[@]}" --set output.prefix="$work/pending" >"$work/pending.log" 2>&1
check "SIGUSR1 pending at the start: exit 75" status_is 75 $? "$work/pending.log"
check "  its checkpoint is step 1" same "$work/ref_step000001.h5" "$work/pending_checkpoint.h5"
check "  one checkpoint line, step 1" test "$(checkpoint_step "$work/pending.log" "$work/pending_checkpoint.h5")" = 1
# The program run directly still runs; the launcher through a link elsewhere finds it beside its
# own file; a launcher without it says so and exits 127.
program=$(dirname "$zoneode")/zoneode.bin
OMP_NUM_THREADS=1 "$program" "${deck[@]}" --set output.prefix="$work/direct" >"$work/direct.log" 2>&1
check "zoneode.bin run directly: exit 0" status_is 0 $? "$work/direct.log"
check "  the same result hash" test "$(grep 'result hash' "$work/direct.log")" = "$(grep 'result hash' "$work/ref.log")"
mkdir "$work/elsewhere" && ln -s "$(cd "$(dirname "$zoneode")" && pwd)/$(basename "$zoneode")" "$work/elsewhere/zoneode"
"$work/elsewhere/zoneode" --version >"$work/link.log" 2>&1
check "the launcher through a symbolic link: runs" status_is 0 $? "$work/link.log"
cp "$zoneode" "$work/elsewhere/alone"
"$work/elsewhere/alone" --version >"$work/alone.log" 2>&1
check "a launcher without zoneode.bin: exit 127" status_is 127 $? "$work/alone.log"
check "  the message names what is missing" grep -q "^zoneode: cannot run the program $work/elsewhere/zoneode.bin: No such file or directory" "$work/alone.log"

# 5c. Issue 40: a stop request at the very start of a job step under mpirun. Open MPI 4.1's mpirun
# forwards SIGUSR1 only to the ranks it has started (none in its first 10-70 ms: the run ended 0);
# before its own handler the signal ends it, and a rank still in select_gpu.sh dies of it (138).
# zoneode creates ZONEODE_READY_FILE once every rank has its handler; run.sbatch holds a request
# until then. Played job: run.sbatch with SLURM_JOB_ID set, a site file with site_launcher=mpirun,
# a stub scontrol (a running job); SIGUSR1 to the batch script as Slurm's B:USR1 sends it.
played=$work/played
mkdir -p "$played/bin"
printf '#!/bin/sh\n[ "$1" = show ] && [ "$2" = job ] && echo "JobId=$4 JobState=RUNNING Reason=None TimeLimit=01:00:00"\nexit 0\n' \
  >"$played/bin/scontrol"
chmod +x "$played/bin/scontrol"
sed 's/^site_launcher=srun/site_launcher=mpirun/; s/^site_name=local/site_name=played/' \
  "$source_dir/slurm/sites/local.sh" >"$played/site.sh"
played_job() {  # played_job DELAY NAME: run.sbatch's job step of 2 ranks, SIGUSR1 to the script after DELAY s
  ( cd "$source_dir" && PATH="$played/bin:$(dirname "$mpiexec"):$PATH" SLURM_JOB_ID=99 SLURM_NTASKS=2 SLURM_SUBMIT_DIR="$source_dir" \
      ZONEODE_SITE_FILE="$played/site.sh" ZONEODE_BUILD_DIR="$(cd "$(dirname "$zoneode")" && pwd)" \
      ZONEODE_RUN_DIR="$played/$2" ZONEODE_THREADS=1 ZONEODE_BINDING_CHECK=0 \
      exec slurm/run.sbatch inputs/quick.yaml --quiet --set zones.count=256 --set integrator.end_time=1e-3 \
      --set steps.count=$steps --set steps.temperature_factor=1.02 --set steps.density_factor=0.95 ) >"$played/$2.log" 2>&1 &
  local pid=$!
  sleep "$1"
  kill -s USR1 $pid
  wait $pid
  stopped_status=$?
}
for delay in 0.03 0.06 0.1 0.15; do
  played_job $delay "d$delay"
  [ -n "${ZONEODE_OUTCOMES:-}" ] && echo "i40_early_stop_mpirun_$delay $stopped_status 75" >>"$ZONEODE_OUTCOMES"
  check "run.sbatch under mpirun, SIGUSR1 after $delay s: exit 75" status_is 75 "$stopped_status" "$played/d$delay.log"
  # The stop falls after the step in flight when the held request is sent: usually step 1; a fast
  # machine may be in step 2 by then (seen here: the checkpoint named step 2).
  kp=$(checkpoint_step "$played/d$delay/zoneode-99.log" "$played/d$delay/quick_checkpoint.h5")
  check "  a checkpoint before the last step" test -n "$kp" -a "${kp:-$steps}" -lt "$steps"
  check "  its checkpoint is step ${kp:-1} of the uninterrupted run" same "$work/ref_step$(printf %06d "${kp:-1}").h5" \
    "$played/d$delay/quick_checkpoint.h5"
  check "  the ready file removed" test ! -e "$played/d$delay/.ready-99-a0"
done
# The ready file itself: written with the rank count, and one that cannot be written is exit 2.
ZONEODE_READY_FILE=$work/ready.txt OMP_NUM_THREADS=1 "$mpiexec" "${mpi_flags[@]}" -n 2 "$zoneode" "${deck[@]}" \
  --set steps.count=1 >"$work/ready.log" 2>&1
check "ZONEODE_READY_FILE: run completes" status_is 0 $? "$work/ready.log"
check "  the file names the ranks" grep -qx "ranks 2" "$work/ready.txt"
ZONEODE_READY_FILE=$work/no/such/folder/ready.txt OMP_NUM_THREADS=1 "$zoneode" "${deck[@]}" --set steps.count=1 \
  >"$work/noready.log" 2>&1
check "ZONEODE_READY_FILE not writable: exit 2" status_is 2 $? "$work/noready.log"
check "  named with the reason" grep -q "ZONEODE_READY_FILE=$work/no/such/folder/ready.txt: cannot create it: No such file" "$work/noready.log"

# 6. Progress lines: with --progress 0 one after every outer step but the last, none with --quiet.
progress_deck=()
for word in "${deck[@]}"; do [ "$word" = --quiet ] || progress_deck+=("$word"); done
OMP_NUM_THREADS=1 "$zoneode" "${progress_deck[@]}" --set steps.count=3 --progress 0 >"$work/progress.log" 2>&1
check "progress run: exit 0" status_is 0 $? "$work/progress.log"
check "progress: a line after steps 1 and 2" test "$(grep -c '^progress: outer step [12] of 3, zones done [0-9]* of 768, elapsed' "$work/progress.log")" -eq 2
check "progress: zones done counted" grep -q '^progress: outer step 2 of 3, zones done 512 of 768' "$work/progress.log"
OMP_NUM_THREADS=1 "$zoneode" "${deck[@]}" --set steps.count=3 --progress 0 >"$work/quiet.log" 2>&1
check "progress: silenced by --quiet" bash -c "! grep -q '^progress:' '$work/quiet.log'"
"$zoneode" "${deck[@]}" --progress -1 >"$work/badprogress.log" 2>&1
check "progress: a negative interval is a usage error" status_is 2 $? "$work/badprogress.log"
check "progress: the error names the option" grep -q -- "--progress needs a number of seconds >= 0, got '-1'" "$work/badprogress.log"

# 7. The cost decomposition writes bitwise what equal counts write, on 1, 2 and 3 ranks, while
# zones really move (hot zones clustered at the end: log profiles, adaptive schedule).
cost_deck=("$source_dir/inputs/quick.yaml" --quiet --threads 1 --set zones.count=61 --set integrator.schedule=adaptive
           --set integrator.end_time=1e-4 --set steps.count=4 --set steps.temperature_factor=1.03
           --set "zones.temperature={profile: log, min: 1.0, max: 3.0}"
           --set "zones.density={profile: log, min: 1.0e5, max: 1.0e7}")
OMP_NUM_THREADS=1 "$zoneode" "${cost_deck[@]}" --set zones.decomposition=count --set output.prefix="$work/count" \
  --summary "$work/count.json" >"$work/count.log" 2>&1
check "count reference runs" status_is 0 $? "$work/count.log"
for ranks in 1 2 3; do
  OMP_NUM_THREADS=1 "$mpiexec" "${mpi_flags[@]}" -n $ranks "$zoneode" "${cost_deck[@]}" --set zones.decomposition=cost \
    --set output.prefix="$work/cost$ranks" --summary "$work/cost$ranks.json" >"$work/cost$ranks.log" 2>&1
  check "cost on $ranks rank(s) runs" status_is 0 $? "$work/cost$ranks.log"
  check "cost on $ranks rank(s) reported" grep -q '"decomposition": "cost"' "$work/cost$ranks.json"
  for step in 1 2 3 4; do
    check "cost on $ranks rank(s): step $step bitwise as count" same "$work/count_step00000$step.h5" \
      "$work/cost${ranks}_step00000$step.h5"
  done
  check "cost on $ranks rank(s): same result hash" test "$(grep 'result hash' "$work/count.log" | awk '{print $3}')" = \
    "$(grep 'result hash' "$work/cost$ranks.log" | awk '{print $3}')"
done
check "count reported" grep -q '"decomposition": "count"' "$work/count.json"
check "cost on 1 rank moves nothing" grep -q '"zones_moved": 0,' "$work/cost1.json"
for ranks in 2 3; do
  check "cost on $ranks ranks moved zones" bash -c "! grep -q '\"zones_moved\": 0,' '$work/cost$ranks.json'"
done

# 8. Per-rank figures against hand counts: the geometric schedule gives every zone the same
# number n of integrator steps, so 37 zones on 2 equal-count ranks (19 and 18 zones) over 3 outer
# steps are 19 * n and 18 * n steps, imbalance 19 / 18.5.
json_value() {  # json_value FILE KEY: a top-level scalar of the JSON summary
  sed -n "s/^  \"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1"
}
json_spread() {  # json_spread FILE KEY: "min mean max imbalance"
  sed -n "s/^  \"$2\": {\"min\": \([^,]*\), \"mean\": \([^,]*\), \"max\": \([^,]*\), \"imbalance\": \([^}]*\)},$/\1 \2 \3 \4/p" "$1"
}
OMP_NUM_THREADS=1 "$mpiexec" "${mpi_flags[@]}" -n 2 "$zoneode" "$source_dir/inputs/quick.yaml" --quiet --threads 1 \
  --set zones.count=37 --set integrator.end_time=1e-4 --set steps.count=3 --set zones.decomposition=count \
  --summary "$work/per_rank.json" >"$work/per_rank.log" 2>&1
check "per-rank run: exit 0" status_is 0 $? "$work/per_rank.log"
total=$(json_value "$work/per_rank.json" steps)
check "no rejected steps (geometric)" test "$(json_value "$work/per_rank.json" rejected_steps)" = 0
check "every zone the same step count" test $((total % (37 * 3))) -eq 0
per_zone=$((total / 37))
read -r smin smean smax simbalance <<<"$(json_spread "$work/per_rank.json" integrator_steps_per_rank)"
check "per-rank steps min = 18 zones' steps" test "${smin:-x}" = $((18 * per_zone))
check "per-rank steps max = 19 zones' steps" test "${smax:-x}" = $((19 * per_zone))
check "per-rank steps imbalance = 19 / 18.5" awk -v v="${simbalance:-0}" 'BEGIN { exit !(v - 19 / 18.5 < 1e-12 && 19 / 18.5 - v < 1e-12) }'
read -r tmin tmean tmax timbalance <<<"$(json_spread "$work/per_rank.json" integrate_seconds_per_rank)"
tsum=$(json_value "$work/per_rank.json" integrate_seconds)
# Each rank's own total is at most the sum over outer steps of the slowest rank's time.
check "per-rank times ordered, max <= integrate_seconds" awk -v a="${tmin:-1}" -v b="${tmean:-0}" -v c="${tmax:-0}" \
  -v d="${timbalance:-0}" -v s="${tsum:-0}" 'BEGIN { exit !(0 < a && a <= b && b <= c && c <= s * (1 + 1e-12) && d >= 1) }'
check "human summary has the per-rank line" grep -q "per rank .*imbalance .*count decomposition" "$work/per_rank.log"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
