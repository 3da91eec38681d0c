#!/usr/bin/env bash
# Issue 18, several ranks: what one rank alone sees. Ranks given different --restart files (they
# started at different steps and waited on each other in the first write), a rank that reads
# other content at the same path (a node-local copy), a rank that alone sees the output folder
# read-only (it stalled the others), a FIFO as --restart (blocked in open() for ever), and a
# signal in MPI_Init, before the handlers (ended the run with status 138; issue 31: also among the
# libraries' constructors and in the dynamic loader, before any code of ours). Each must end at once
# with its exit status (2 before any work, naming the ranks and what differs; 75 with a
# checkpoint for the signal), leaving no .partial or .lock file.
# The LD_PRELOAD shim (write_fault_shim.c) plays the node that differs: ZONEODE_FAULT_SWAP,
# ZONEODE_FAULT_READONLY_DIR and ZONEODE_FAULT_SIGNAL_IN_MPI_INIT on rank ZONEODE_FAULT_RANK.
# Usage: ranks_disagree.sh ZONEODE ZONEODE_COMPARE SOURCE_DIR MPIEXEC SHIM
# With ZONEODE_OUTCOMES=FILE every case appends "i18_CLASS_CASE EXIT_STATUS EXPECTED" to FILE
# (tests/fault/outcomes.sh); ZONEODE_FAULT_LIMIT_S (default 60) limits each run.
set -uo pipefail
zoneode=$1
compare=$2
source_dir=$3
mpiexec=$4
shim=$5
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"  # check, passes, failures, mpi_flags
cd "$work" || exit 1
limit_s=${ZONEODE_FAULT_LIMIT_S:-60}
# A write stuck in a collective call (the old stalls) ends after this, not 1800 s.
export ZONEODE_WRITE_TIMEOUT_S=10
outcome() { [ -n "${ZONEODE_OUTCOMES:-}" ] && echo "$*" >>"$ZONEODE_OUTCOMES"; return 0; }
# ends CASE EXPECTED PATTERN MPIEXEC_ARGS...: exits EXPECTED within the limit, its output matching
# PATTERN (grep -E; "" for none).
ends() {
  local name=$1 expected=$2 pattern=$3; shift 3
  OMP_NUM_THREADS=1 timeout -k 5 "$limit_s" "$mpiexec" "${mpi_flags[@]}" -x ZONEODE_WRITE_TIMEOUT_S "$@" >"$name.log" 2>&1
  local status=$?
  [ "$status" -eq 137 ] && status=124  # past the limit and deaf to SIGTERM: killed
  outcome "$name" "$status" "$expected"
  [ "$status" -eq "$expected" ] || { echo "  exited $status, expected $expected"; tail -5 "$name.log"; return 1; }
  [ -z "$pattern" ] || grep -qE -- "$pattern" "$name.log" || { echo "  no '$pattern' in:"; tail -5 "$name.log"; return 1; }
}
# No .partial, no Open MPI .lock, no probe file left in the folders named.
no_litter() { [ -z "$(find "$@" -name '*.partial' -o -name '*.lock' -o -name '.zoneode-write-probe-*')" ] ||
                { echo "  left: $(find "$@" -name '*.partial' -o -name '*.lock' -o -name '.zoneode-write-probe-*')"; return 1; }; }
not_integrated() { ! grep -qE "^zones [0-9]+ on|result hash" "$1.log" || { echo "  integrated"; return 1; }; }
same() { "$compare" "$1" "$2" --rtol 0 --atol 0 --quiet >/dev/null 2>&1 || { echo "  $2 differs from $1"; return 1; }; }
# The shim, its write faults off (no ZONEODE_FAULT_PATH file is ever written).
shim_on() { echo -x LD_PRELOAD="$shim" -x ZONEODE_FAULT_PATH=/no-such-file-is-written -x ZONEODE_FAULT_RANK="$1"; }
read -ra shimmed <<<"$(shim_on 1)"

deck=("$source_dir/inputs/quick.yaml" --quiet --set zones.count=64 --set integrator.end_time=1e-4 --set steps.count=3)
check "reference run" ends setup_reference 0 "" -n 1 "$zoneode" "${deck[@]}" --set output.prefix="$work/ref"

# ---- Ranks given different --restart files (mpirun's MPMD form): steps 1 and 2.
mkdir restarts
check "different restart files refused" ends i18_stall_restart_files 2 \
  "the ranks see different restart files: rank 0: '.*ref_step000001\.h5': outer_step 1, [0-9]+ bytes, content [0-9a-f]+; rank 1: '.*ref_step000002\.h5': outer_step 2" \
  -n 1 "$zoneode" "${deck[@]}" --set output.prefix="$work/restarts/r" --restart "$work/ref_step000001.h5" : \
  -n 1 "$zoneode" "${deck[@]}" --set output.prefix="$work/restarts/r" --restart "$work/ref_step000002.h5"
check "  before any work" not_integrated i18_stall_restart_files
check "  nothing left" no_litter restarts
check "  no file written" test -z "$(ls restarts)"

# ---- Rank 1 reads other content at the same path: the restart file, then zones.from_file.
mkdir swapped
check "other restart content on rank 1 refused" ends i18_stall_restart_content 2 \
  "the ranks see different restart files: rank 0: '.*ref_step000001\.h5': outer_step 1, .*; rank 1: '.*ref_step000001\.h5': outer_step 2" \
  "${shimmed[@]}" -x ZONEODE_FAULT_SWAP="$work/ref_step000001.h5:$work/ref_step000002.h5" -n 2 \
  "$zoneode" "${deck[@]}" --set output.prefix="$work/swapped/r" --restart "$work/ref_step000001.h5"
check "other from_file content on rank 1 refused" ends i18_silent_from_file_content 2 \
  "the ranks see different zones\.from_file files: rank 0: '.*ref_step000003\.h5': [0-9]+ bytes, content ([0-9a-f]+); rank 1: '.*ref_step000003\.h5': [0-9]+ bytes, content" \
  "${shimmed[@]}" -x ZONEODE_FAULT_SWAP="$work/ref_step000003.h5:$work/ref_step000002.h5" -n 2 \
  "$zoneode" "${deck[@]}" --set zones="{from_file: $work/ref_step000003.h5}" --set output.prefix="$work/swapped/f"
check "  before any work" not_integrated i18_silent_from_file_content
check "  nothing left" no_litter swapped
check "  no file written" test -z "$(ls swapped)"
# The same content at the same path (the shim swapping a file for its copy) runs.
cp ref_step000003.h5 copy_step000003.h5
check "an identical copy on rank 1 runs" ends i18_ok_identical_copy 0 "" \
  "${shimmed[@]}" -x ZONEODE_FAULT_SWAP="$work/ref_step000003.h5:$work/copy_step000003.h5" -n 2 \
  "$zoneode" "${deck[@]}" --set zones="{from_file: $work/ref_step000003.h5}" --set output.prefix="$work/copy/f"

# ---- Rank 1 alone sees the output folder read-only: it stalled the others at the first write.
mkdir readonly
check "read-only on rank 1 alone refused" ends i18_stall_readonly_one_rank 2 \
  "cannot write in the output folder '.*readonly' of output\.prefix '.*readonly/run' from rank 1: Read-only file system; rank 0 can" \
  "${shimmed[@]}" -x ZONEODE_FAULT_READONLY_DIR="$work/readonly" -n 2 "$zoneode" "${deck[@]}" --set output.prefix="$work/readonly/run"
check "  before any work" not_integrated i18_stall_readonly_one_rank
check "  left empty" test -z "$(ls -A readonly)"
check "read-only on rank 2 of 3 refused" ends i18_stall_readonly_one_of_three 2 \
  "from rank 2: Read-only file system; ranks 0, 1 can" \
  $(shim_on 2) -x ZONEODE_FAULT_READONLY_DIR="$work/readonly" -n 3 "$zoneode" "${deck[@]}" \
  --set output.prefix="$work/readonly/run"
check "  left empty" test -z "$(ls -A readonly)"

# ---- A FIFO as --restart, on every rank.
mkfifo pipe.h5
check "FIFO as --restart on 2 ranks refused" ends i18_stall_fifo_two_ranks 2 "--restart: '.*pipe\.h5' is a FIFO \(named pipe\), expected a regular file" \
  -n 2 "$zoneode" "${deck[@]}" --restart "$work/pipe.h5"

# ---- A signal in MPI_Init, before the handlers: noted like a later one (a checkpoint after step 1).
mkdir early
for signal in USR1 TERM INT; do
  check "SIG$signal in MPI_Init: exit 75 with a checkpoint" ends "i18_exit_early_$signal" 75 \
    "^checkpoint: .*early/$signal-2_checkpoint\.h5 outer_step 1$" -x LD_PRELOAD="$shim" -x ZONEODE_FAULT_PATH=/no-such-file-is-written \
    -x ZONEODE_FAULT_SIGNAL_IN_MPI_INIT="$signal" -x ZONEODE_FAULT_RANK=1 -n 2 "$zoneode" "${deck[@]}" --set output.prefix="$work/early/$signal-2"
  check "  the checkpoint is step 1" same ref_step000001.h5 "early/$signal-2_checkpoint.h5"
done
check "SIGUSR1 in MPI_Init of one process: exit 75" ends i18_exit_early_single 75 "^checkpoint: .*early/single_checkpoint\.h5 outer_step 1$" \
  -x LD_PRELOAD="$shim" -x ZONEODE_FAULT_PATH=/no-such-file-is-written -x ZONEODE_FAULT_SIGNAL_IN_MPI_INIT=USR1 -n 1 \
  "$zoneode" "${deck[@]}" --set output.prefix="$work/early/single"
check "  nothing left" no_litter early

# ==== Issue 31 ====
# ---- Rank 1 reads another partition-function table at the same path: its zones were 50% off, exit 0.
cp "$source_dir/inputs/data/partition_functions/rt2000_frdm_rpz24.txt" table.txt
awk '$1 == "o17" { for (i = 2; i <= NF; i++) $i = $i * 2 } 1' table.txt >table_other.txt  # o17's G doubled
mkdir tables
check "another partition table on rank 1 refused" ends i31_agree_table_one_rank 2 \
  "the ranks see different networks: rank 0: network hash ([0-9a-f]+) \(with physics\.partition_table '.*table\.txt', [0-9]+ bytes, content [0-9a-f]+\); rank 1: network hash [0-9a-f]+ .*every rank must read the same network and data files" \
  "${shimmed[@]}" -x ZONEODE_FAULT_SWAP="$work/table.txt:$work/table_other.txt" -n 2 "$zoneode" "${deck[@]}" \
  --set physics.partition_functions=true --set physics.partition_table="$work/table.txt" --set output.prefix="$work/tables/t"
check "  before any work" not_integrated i31_agree_table_one_rank
check "  no file written" test -z "$(ls tables)"
# ---- A signal among the shared libraries' constructors, before main: status 138, no word.
check "SIGUSR1 in a library constructor: exit 75" ends i31_signal_constructor 75 "^checkpoint: .*early/constructor_checkpoint\.h5 outer_step 1$" \
  -x LD_PRELOAD="$shim" -x ZONEODE_FAULT_PATH=/no-such-file-is-written -x ZONEODE_FAULT_SIGNAL_IN_CONSTRUCTOR=USR1 -n 1 \
  "$zoneode" "${deck[@]}" --set output.prefix="$work/early/constructor"
check "  the checkpoint is step 1" same ref_step000001.h5 early/constructor_checkpoint.h5
# ---- Earlier still: while the dynamic loader maps the program's libraries, before any code of ours
# (the shim as LD_AUDIT): status 138/143/130 and no word. The launcher `zoneode` (launcher.c) blocks
# the stop signals before it execs zoneode.bin; the handler gets the pending one.
for signal in USR1 TERM INT; do
  check "SIG$signal in the dynamic loader: exit 75" ends "i31_signal_loader_$signal" 75 \
    "^checkpoint: .*early/loader-${signal}_checkpoint\.h5 outer_step 1$" -x LD_AUDIT="$shim" \
    -x ZONEODE_FAULT_SIGNAL_IN_LOADER="$signal" -n 1 "$zoneode" "${deck[@]}" --set output.prefix="$work/early/loader-$signal"
  check "  the checkpoint is step 1" same ref_step000001.h5 "early/loader-${signal}_checkpoint.h5"
done
check "SIGUSR1 in the loader of rank 1 of 2: exit 75" ends i31_signal_loader_rank1 75 \
  "^checkpoint: .*early/loader-rank1_checkpoint\.h5 outer_step 1$" -x LD_AUDIT="$shim" -x ZONEODE_FAULT_SIGNAL_IN_LOADER=USR1 \
  -x ZONEODE_FAULT_RANK=1 -n 2 "$zoneode" "${deck[@]}" --set output.prefix="$work/early/loader-rank1"
check "  the checkpoint is step 1" same ref_step000001.h5 early/loader-rank1_checkpoint.h5
check "  nothing left" no_litter early

echo "ranks_disagree: $passes checks passed, $failures failed"
[ "$failures" -eq 0 ]
