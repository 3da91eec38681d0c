#!/usr/bin/env bash
# Injected faults (issue 11): write errors on one rank of 1, 2 and 3 (an LD_PRELOAD shim; the
# overlapped write by default, the synchronous one and a compressed file too: issue 22), a real
# full disk (a small tmpfs, when root), a read-only output folder, ranks started with different
# decks, --force over a directory, and kill -9 at random moments of a multi-step run with large
# outputs. Every faulty run must end within a time limit with its exit code and a message, leave no
# .partial, and leave every file with a final name complete (bitwise the reference's step).
# Usage: fault_tests.sh ZONEODE ZONEODE_COMPARE SOURCE_DIR MPIEXEC SHIM [KILLS (default 10)]
# With ZONEODE_OUTCOMES=FILE every faulty run appends "CASE EXIT_STATUS EXPECTED" to FILE (a kill:
# "CASE killed FILES_COMPLETE/FILES"), to count outcomes for any binary (tests/fault/outcomes.sh);
# ZONEODE_FAULT_LIMIT_S (default 120) is the time limit of one faulty run.
set -uo pipefail
zoneode=$1
compare=$2
source_dir=$3
mpiexec=$4
shim=$5
kills=${6:-${ZONEODE_FAULT_KILLS:-10}}  # the sanitizer build in CI runs fewer
work=$(mktemp -d)
mounted=()
cleanup() {
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null; done
  chmod -R u+w "$work" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"  # check, passes, failures, mpi_flags
cd "$work" || exit 1
faults=0
limit_s=${ZONEODE_FAULT_LIMIT_S:-120}
outcome() { [ -n "${ZONEODE_OUTCOMES:-}" ] && echo "$*" >>"$ZONEODE_OUTCOMES"; return 0; }
# The write watchdog (io/hdf5_state.cpp) ends a write stuck in a collective HDF5 call after this.
export ZONEODE_WRITE_TIMEOUT_S=10

# ends RANKS EXPECTED LOG ARGS...: zoneode under mpirun exits EXPECTED within the limit.
ends() {
  local ranks=$1 expected=$2 log=$3; shift 3
  OMP_NUM_THREADS=1 timeout "$limit_s" "$mpiexec" "${mpi_flags[@]}" -x ZONEODE_WRITE_TIMEOUT_S -n "$ranks" "$@" >"$log" 2>&1
  local status=$?
  outcome "${log%.log}" "$status" "$expected"
  [ "$status" -eq "$expected" ] || { echo "  $ranks rank(s): exited $status, expected $expected"; tail -5 "$log"; return 1; }
}
# Neither a .partial nor Open MPI's lock files named after it (.partial-<id>-<pid>.lock).
no_partial() { ! ls "$1"/*.partial "$1"/*.partial-*.lock >/dev/null 2>&1 || { echo "  left: $(ls "$1"/*.partial*)"; return 1; }; }
same() { "$compare" "$1" "$2" --rtol 0 --atol 0 --quiet >/dev/null 2>&1 || { echo "  $2 differs from $1"; return 1; }; }

deck=("$source_dir/inputs/quick.yaml" --quiet --set zones.count=64 --set integrator.end_time=1e-4 --set steps.count=3)
check "reference run" ends 1 0 ref.log "$zoneode" "${deck[@]}" --set output.prefix="$work/ref"

# ---- A write error (EIO or ENOSPC) on one rank of 1, 2, 3, at three points of the step-2 file:
# the species columns (the first write), a zone dataset (the fourth), the superblock written at the
# close (offset 0, rank 0). Step 1 stays intact; no step-2 file, no .partial.
for ranks in 1 2 3; do
  for failing in $(printf "%s\n" 0 $((ranks - 1)) | sort -u); do
    for point in first fourth close; do
      [ "$ranks" -eq 1 ] && [ "$failing" -ne 0 ] && continue
      [ "$point" = close ] && [ "$failing" -ne 0 ] && continue
      name="eio-r${ranks}-f${failing}-${point}"
      mkdir "$name"
      where=(-x ZONEODE_FAULT_AFTER=0 -x ZONEODE_FAULT_ERRNO=EIO)
      [ "$point" = fourth ] && where=(-x ZONEODE_FAULT_AFTER=3 -x ZONEODE_FAULT_ERRNO=ENOSPC)
      [ "$point" = close ] && where=(-x ZONEODE_FAULT_OFFSET=0 -x ZONEODE_FAULT_ERRNO=EIO)
      faults=$((faults + 1))
      check "$name ends with exit 1" ends "$ranks" 1 "$name.log" -x LD_PRELOAD="$shim" -x ZONEODE_FAULT_RANK="$failing" \
        -x ZONEODE_FAULT_PATH=_step000002.h5.partial "${where[@]}" \
        "$zoneode" "${deck[@]}" --set output.prefix="$work/$name/run"
      check "$name says which file" grep -q "run_step000002.h5" "$name.log"
      check "$name no .partial" no_partial "$name"
      check "$name no step-2 file" test ! -e "$name/run_step000002.h5"
      check "$name step 1 intact" same ref_step000001.h5 "$name/run_step000001.h5"
    done
  done
done

# ---- The same with the synchronous write (output.overlap false; the cases above write step 2 while
# step 3 integrates), and with a compressed file (chunked, gzip: parallel HDF5 writes it
# collectively, so a rank's error inside a collective call is ended by the write watchdog).
for variant in sync compressed; do
  for failing in 0 1; do
    [ "$variant" = compressed ] && [ "$failing" -eq 0 ] && continue  # one case: the watchdog's 10 s each
    name="eio-r2-f${failing}-${variant}"
    mkdir "$name"
    settings=(--set output.overlap=false)
    [ "$variant" = compressed ] && settings=(--set output.chunk_zones=8 --set output.compression=shuffle+gzip-1)
    faults=$((faults + 1))
    check "$name ends with exit 1" ends 2 1 "$name.log" -x LD_PRELOAD="$shim" -x ZONEODE_FAULT_RANK="$failing" \
      -x ZONEODE_FAULT_PATH=_step000002.h5.partial -x ZONEODE_FAULT_AFTER=3 -x ZONEODE_FAULT_ERRNO=ENOSPC \
      "$zoneode" "${deck[@]}" "${settings[@]}" --set output.prefix="$work/$name/run"
    check "$name says which file" grep -q "run_step000002.h5" "$name.log"
    check "$name no .partial" no_partial "$name"
    check "$name no step-2 file" test ! -e "$name/run_step000002.h5"
    check "$name step 1 intact" same ref_step000001.h5 "$name/run_step000001.h5"
  done
done

# ---- The JSON summary: a write error leaves neither the file nor a .partial.
mkdir summary
faults=$((faults + 1))
check "summary write error exits 1" ends 1 1 summary.log -x LD_PRELOAD="$shim" -x ZONEODE_FAULT_PATH=summary.json.partial \
  -x ZONEODE_FAULT_ERRNO=ENOSPC "$zoneode" "${deck[@]}" --summary "$work/summary/summary.json"
check "summary error named" grep -q "summary.json" summary.log
check "summary: no file, no .partial" test -z "$(ls summary)"

# ---- --force over a directory: refused before any work (exit 2; issue 18: it was found when
# renaming, after the integration, exit 1), the directory kept, no .partial.
mkdir forcedir && mkdir forcedir/run_step000001.h5
check "--force over a directory refused" ends 1 2 force.log "$zoneode" "${deck[@]}" --set steps.count=1 \
  --set output.prefix="$work/forcedir/run" --force
check "--force over a directory named" grep -q "run_step000001.h5.* is a directory: choose another path" force.log
check "--force: directory kept" test -d forcedir/run_step000001.h5
check "--force: no .partial" no_partial forcedir

# ---- Ranks started with different decks: refused together (exit 2), not run on or hung.
faults=$((faults + 1))
check "different decks refused" ends 1 2 decks.log "$zoneode" "${deck[@]}" : -n 1 "$zoneode" "${deck[@]}" --set zones.count=65
check "different decks named" grep -qE "the ranks see different decks: rank 0: deck '.*quick\.yaml' \(resolved deck [0-9a-f]+\); rank 1: deck '.*quick\.yaml' \(resolved deck [0-9a-f]+\)" decks.log

# ---- A stale Open MPI semaphore: ompio's sharedfp sm component holds /dev/shm/sem.OMPIO_<file name>
# (host-wide) during MPI_File_open; a run killed while holding it leaves it at 0 and every later run
# writing a file of that name hung in MPI_File_open (zoneode leaves sm out: mpi_context.cpp). Made
# here with sem_open (a name of this test's own: other jobs on the host share the namespace).
stale_name="stale$$_step000001.h5.partial"
if [ -d /dev/shm ] && /usr/bin/python3 -c "
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.sem_open.restype = ctypes.c_void_p
libc.sem_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_uint]
assert libc.sem_open(b'/OMPIO_$stale_name', os.O_CREAT, 0o644, 0) not in (None, 0)" 2>/dev/null; then
  mkdir stale
  faults=$((faults + 1))
  check "stale sharedfp semaphore: 2 ranks write" ends 2 0 stale.log "$zoneode" "${deck[@]}" --set steps.count=1 \
    --set output.prefix="$work/stale/stale$$"
  check "stale sharedfp semaphore: step 1 complete" same ref_step000001.h5 "stale/stale${$}_step000001.h5"
  rm -f "/dev/shm/sem.OMPIO_$stale_name"
else
  echo "stale sharedfp semaphore: skipped (no /dev/shm or no sem_open through python3)"
fi

# ---- A read-only output folder: found before any work (a probe file in the output-folder check;
# it was found at the first write, after the integration): exit 2, the folder and the reason named.
mkdir readonly
readonly_ready=0
if [ "$(id -u)" -ne 0 ]; then
  chmod a-w readonly && readonly_ready=1
elif mount -t tmpfs -o size=1m,ro tmpfs readonly 2>/dev/null; then
  mounted+=("$work/readonly"); readonly_ready=1
fi
if [ "$readonly_ready" -eq 1 ]; then
  faults=$((faults + 1))
  readonly_run() {  # readonly_run LOG ARGS...
    local log=$1; shift
    OMP_NUM_THREADS=1 timeout "$limit_s" "$zoneode" "${deck[@]}" "$@" >"$log" 2>&1
    local status=$?
    outcome "${log%.log}" "$status" 2
    [ "$status" -eq 2 ] || { echo "  exited $status, expected 2"; tail -3 "$log"; return 1; }
  }
  # No integration: the zones line (printed once the zones are built, before the first step), the
  # summary and its result hash never come.
  not_integrated() { ! grep -qE "^zones [0-9]+ on|result hash" "$1" || { echo "  integrated:"; grep -E "^zones|result hash" "$1"; return 1; }; }
  check "read-only folder refused" readonly_run ro.log --set output.prefix="$work/readonly/run"
  check "read-only folder named" grep -qE "cannot write in the output folder '.*readonly' of output.prefix '.*readonly/run': (Read-only file system|Permission denied)" ro.log
  check "read-only folder: before the integration" not_integrated ro.log
  check "read-only folder: no 'remove' blamed" bash -c "! grep -q 'cannot remove' ro.log"
  faults=$((faults + 1))
  check "read-only summary folder refused" readonly_run rosum.log --summary "$work/readonly/summary.json"
  check "read-only summary folder named" grep -qE "cannot write in the output folder '.*readonly' of summary '.*readonly/summary.json': (Read-only file system|Permission denied)" rosum.log
  check "read-only summary folder: before the integration" not_integrated rosum.log
  check "read-only folder: left empty" test -z "$(ls -A readonly)"
else
  echo "read-only folder: skipped (root without mount, or chmod failed)"
fi

# ---- A real full disk: a 1 MiB tmpfs (root only); a step file of ~1.3 MB does not fit.
mkdir full
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=1m tmpfs full 2>/dev/null; then
  mounted+=("$work/full")
  big=("$source_dir/inputs/quick.yaml" --quiet --set zones.count=8192 --set integrator.end_time=1e-6 --set steps.count=2)
  for ranks in 1 2 3; do
    faults=$((faults + 1))
    check "full disk, $ranks rank(s), exit 1" ends "$ranks" 1 "full$ranks.log" "$zoneode" "${big[@]}" --set output.prefix="$work/full/r$ranks"
    check "full disk, $ranks rank(s), no .partial" no_partial full
    # Issue 31: "cannot write /abundances" alone; an Open MPI .lock file left beside it.
    check "full disk, $ranks rank(s), the system's reason" grep -qE "^zoneode: .*No space left on device" "full$ranks.log"
    check "full disk, $ranks rank(s), no .lock" test -z "$(find full -name '*.lock')"
    rm -f full/*
  done
  faults=$((faults + 1))
  cat /dev/zero >full/filler 2>/dev/null  # until the disk is full
  check "full disk summary exits 1" ends 1 1 fullsum.log "$zoneode" "${deck[@]}" --summary "$work/full/summary.json"
  check "full disk summary: no file, no .partial" test ! -e full/summary.json -a ! -e full/summary.json.partial
  rm -f full/filler
else
  echo "full disk: skipped (needs root to mount a tmpfs)"
fi

# ---- kill -9 at random moments of a multi-step run with large outputs (~1.1 MB per step file):
# every file with a final name is complete, bitwise the uninterrupted run's.
# dt_fraction 0.25 (336 integrator steps per zone, not 7,408): the writes are a larger share of the
# run, so more kills land in them, and the reference run takes 7 s, not 41 s (2 shared cores).
killdeck=("$source_dir/inputs/quick.yaml" --quiet --set zones.count=8192 --set integrator.end_time=1e-6
          --set integrator.dt_fraction=0.25 --set steps.count=8 --set output.initial=true --threads 1)
start=$SECONDS
limit_s=600  # the reference alone: slow under a sanitizer
check "kill reference run" ends 1 0 killref.log "$zoneode" "${killdeck[@]}" --set output.prefix="$work/killref"
run_s=$((SECONDS - start))
RANDOM=11
for k in $(seq 1 "$kills"); do
  dir="kill$k"
  mkdir "$dir"
  delay_ms=$((RANDOM % (run_s * 1000 + 1)))
  faults=$((faults + 1))
  "$zoneode" "${killdeck[@]}" --set output.prefix="$work/$dir/run" >"$dir.log" 2>&1 &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  complete=0 files=0
  for file in "$dir"/run_step*.h5; do
    [ -e "$file" ] || continue
    files=$((files + 1))
    check "kill $k after ${delay_ms} ms: $(basename "$file") complete" same "killref_$(basename "$file" | sed 's/^run_//')" "$file" &&
      complete=$((complete + 1))
  done
  outcome "kill$k" killed "$complete/$files"
done

echo "fault_tests: $faults faults injected; $passes checks passed, $failures failed"
[ "$failures" -eq 0 ]
