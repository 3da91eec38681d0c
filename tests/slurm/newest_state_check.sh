#!/usr/bin/env bash
# slurm/common.sh's zoneode_newest_state, which a requeued attempt of run.sbatch continues from
# (issue 40: after a node failure the next attempt restarted from a stale checkpoint and exited 2):
# planted run folders with step files and a checkpoint of chosen ages. No Slurm, no zoneode.
# Usage: tests/slurm/newest_state_check.sh   Exit status: 0 passed, 1 failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=slurm/common.sh
source slurm/common.sh
work=$(mktemp -d /tmp/zoneode-newest.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0 passes=0
expect() {  # expect NAME EXPECTED GOT
  if [ "$2" = "$3" ]; then passes=$((passes + 1)); else echo "FAIL: $1: got '$3', expected '$2'"; failures=$((failures + 1)); fi
}
run=$work/run\ one
mkdir -p "$run"
p=$run/s150
# Stopped after step 2 (checkpoint), requeued, the next attempt wrote steps 3 and 4, then its node failed.
touch -d '2026-12-06 10:00:01' "${p}_step000001.h5"
touch -d '2026-12-06 10:00:02' "${p}_step000002.h5"
touch -d '2026-12-06 10:00:03' "${p}_checkpoint.h5"
touch -d '2026-12-06 10:05:01' "${p}_step000003.h5"
touch -d '2026-12-06 10:05:02' "${p}_step000004.h5"
expect "node failure: the newest step file" "${p}_step000004.h5" "$(zoneode_newest_state "$p" "${p}_checkpoint.h5")"
# Stopped again after step 4, a newer checkpoint: it wins.
touch -d '2026-12-06 10:05:03' "${p}_checkpoint.h5"
expect "a stop after the steps: the checkpoint" "${p}_checkpoint.h5" "$(zoneode_newest_state "$p" "${p}_checkpoint.h5")"
# Within one second: fractional times decide.
touch -d '2026-12-06 10:06:00.25' "${p}_checkpoint.h5"
touch -d '2026-12-06 10:06:00.75' "${p}_step000005.h5"
expect "sub-second order" "${p}_step000005.h5" "$(zoneode_newest_state "$p" "${p}_checkpoint.h5")"
# No checkpoint given (no requeue.txt: Slurm requeued the first attempt itself).
expect "no checkpoint: the newest step" "${p}_step000005.h5" "$(zoneode_newest_state "$p")"
# Another run's files in the folder and partial files are not this run's states.
touch -d '2026-12-06 11:00:00' "$run/other_step000009.h5" "${p}_step000006.h5.partial"
expect "other prefixes and partial files ignored" "${p}_step000005.h5" "$(zoneode_newest_state "$p")"
expect "nothing written yet" "" "$(zoneode_newest_state "$work/none/s150")"
echo "newest_state_check: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
