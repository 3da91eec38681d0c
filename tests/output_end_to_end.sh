#!/usr/bin/env bash
# State output (issue 22): the overlapped write (output.overlap, the default) writes bitwise the
# files of the synchronous one on 1-3 ranks, with the cost decomposition moving zones while a file
# is in flight (zoneode-compare at rtol 0, and h5dump of every dataset's data); chunked and
# compressed files hold the same data and restart bitwise; a stop signal during an overlapped run
# leaves the checkpoint and every earlier step as the synchronous run writes them; the run header
# states the snapshot's memory and the memory check counts it; the summary reports the write.
# Usage: output_end_to_end.sh ZONEODE ZONEODE_COMPARE SOURCE_DIR MPIEXEC
set -uo pipefail
zoneode=$1
compare=$2
source_dir=$3
mpiexec=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"  # check, passes, failures, mpi_flags
run() {  # run RANKS EXPECTED_STATUS LOG ARGS...
  local ranks=$1 expected=$2 log=$3; shift 3
  OMP_NUM_THREADS=1 "$mpiexec" "${mpi_flags[@]}" -n "$ranks" "$zoneode" "$@" >"$log" 2>&1
  local status=$?
  [ "$status" -eq "$expected" ] || { echo "  $ranks rank(s): zoneode $* exited $status, expected $expected"; tail -5 "$log"; return 1; }
}
same() {  # same A B: every compared dataset bit for bit
  "$compare" "$1" "$2" --rtol 0 --atol 0 --quiet >"$work/compare.log" 2>&1 || { cat "$work/compare.log"; return 1; }
}
same_data() {  # same_data A B: h5dump prints the same data for every per-zone dataset
  local dataset
  for dataset in abundances temperature density energy_generation_rate integrator_steps status time_reached; do
    cmp -s <(h5dump -d "/$dataset" "$1" | tail -n +2) <(h5dump -d "/$dataset" "$2" | tail -n +2) ||
      { echo "  /$dataset differs between $1 and $2"; return 1; }
  done
}
json_value() { sed -n "s/^  \"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1"; }

# 37 zones (no rank count divides it), 4 outer steps with a history, the initial state written:
# files 0-3 are overlapped, step 4 (the last) is written at once.
deck=("$source_dir/inputs/quick.yaml" --quiet --set zones.count=37 --set integrator.end_time=1e-4
      --set steps.count=4 --set steps.temperature_factor=1.05 --set steps.density_factor=0.9
      --set output.initial=true)
check "synchronous reference" run 1 0 "$work/sync.log" "${deck[@]}" --set output.overlap=false \
  --set output.prefix="$work/sync" --summary "$work/sync.json"
check "reference not overlapped" grep -q '"output_overlapped": false' "$work/sync.json"
for ranks in 1 2 3; do
  name="overlap$ranks"
  check "$name runs" run "$ranks" 0 "$work/$name.log" "${deck[@]}" --set output.prefix="$work/$name" \
    --summary "$work/$name.json"
  check "$name overlapped" grep -q '"output_overlapped": true' "$work/$name.json"
  for step in 0 1 2 3 4; do
    check "$name step $step bitwise" same "$work/sync_step00000$step.h5" "$work/${name}_step00000$step.h5"
    check "$name step $step h5dump data" same_data "$work/sync_step00000$step.h5" "$work/${name}_step00000$step.h5"
  done
  check "$name wrote 5 files" test "$(grep -c '^  wrote ' "$work/$name.log")" -eq 5
done
check "3 ranks moved zones (cost decomposition) with files in flight" \
  bash -c "! grep -q '\"zones_moved\": 0,' '$work/overlap3.json'"
# The header states the bound: 37 zones on one rank x (2 + 16 species) x 8 B = 5328 B; on 3 ranks 13 zones.
check "header: the snapshot's memory (1 rank)" grep -q \
  "overlapped: step k written while step k+1 integrates; memory: one snapshot in flight per rank, at most 5.328e+03 bytes (37 zones x (2 + 16) x 8 B)" \
  "$work/overlap1.log"
check "header: the snapshot's memory (3 ranks)" grep -q "at most 1.872e+03 bytes (13 zones x (2 + 16) x 8 B)" "$work/overlap3.log"
check "header: synchronous said so" grep -q "written before the next outer step (output.overlap false)" "$work/sync.log"
check "summary: write bandwidth, bytes on disk, the loop's wait" bash -c \
  "grep -q 'MB/s (parallel HDF5, contiguous)\|MB/s (serial HDF5, contiguous)' '$work/overlap2.log' &&
   grep -q 'overlapped with the integration: the outer steps waited' '$work/overlap2.log'"
for key in write_bandwidth_bytes_per_second output_file_bytes loop_seconds output_seconds; do
  check "summary JSON: $key > 0" awk -v v="$(json_value "$work/overlap2.json" "$key")" 'BEGIN { exit !(v > 0) }'
done
check "summary JSON: storage" grep -q '"output_storage": "contiguous"' "$work/overlap2.json"
# Only the last step written: nothing to overlap, no snapshot held.
check "last step only: not overlapped" run 1 0 "$work/last.log" "${deck[@]}" --set output.initial=false \
  --set output.every=100 --set output.prefix="$work/last" --summary "$work/last.json"
check "last step only: no snapshot" grep -q '"output_overlapped": false' "$work/last.json"

# ---- Chunked and compressed: the same data, restartable, and smaller.
check "compressed run" run 2 0 "$work/gzip.log" "${deck[@]}" --set output.chunk_zones=5 \
  --set output.compression=shuffle+gzip-6 --set output.prefix="$work/gzip" --summary "$work/gzip.json"
for step in 0 2 4; do
  check "compressed step $step bitwise" same "$work/sync_step00000$step.h5" "$work/gzip_step00000$step.h5"
done
check "compressed: chunked with both filters" bash -c \
  "h5dump -p -H -d /abundances '$work/gzip_step000002.h5' | grep -q 'CHUNKED ( 5, 16 )' &&
   h5dump -p -H -d /abundances '$work/gzip_step000002.h5' | grep -q 'SHUFFLE' &&
   h5dump -p -H -d /abundances '$work/gzip_step000002.h5' | grep -q 'DEFLATE'"
check "compressed: summary storage" grep -q '"output_storage": "chunks of 5 zones, shuffle+gzip-6"' "$work/gzip.json"
check "compressed restart (3 ranks)" run 3 0 "$work/gziprs.log" "${deck[@]}" --set output.prefix="$work/gziprs" \
  --restart "$work/gzip_step000002.h5"
for step in 3 4; do
  check "compressed restart step $step bitwise" same "$work/sync_step00000$step.h5" "$work/gziprs_step00000$step.h5"
done
check "compression without chunks refused" run 1 2 "$work/nochunk.log" "${deck[@]}" --set output.compression=gzip-1 \
  --set output.prefix="$work/nochunk"
check "compression without chunks named" grep -q "output.compression: expected none while output.chunk_zones is 0" \
  "$work/nochunk.log"

# ---- A stop signal while files are written beside the steps: the checkpoint and the steps before it
# as the synchronous run writes them (a slower run: 256 zones, 12 steps).
slow=("$source_dir/inputs/quick.yaml" --quiet --set zones.count=256 --set steps.count=12 --set output.initial=true
      --set steps.temperature_factor=1.01)
check "slow reference" run 1 0 "$work/slowref.log" "${slow[@]}" --set output.overlap=false --set output.prefix="$work/ref"
OMP_NUM_THREADS=1 "$mpiexec" "${mpi_flags[@]}" -n 2 "$zoneode" "${slow[@]}" --set output.prefix="$work/stop" \
  >"$work/stop.log" 2>&1 &
launcher=$!
for _ in $(seq 1200); do grep -q "wrote .*stop_step000002" "$work/stop.log" && break; sleep 0.05; done
victim=$(ps -o pid= --ppid "$launcher" | head -1)  # one rank: the ranks agree and stop together
kill -USR1 "${victim:-$launcher}"
wait "$launcher"
check "stopped: exit 75" test $? -eq 75
k=$(sed -n 's/^checkpoint: .* outer_step \([0-9]*\)$/\1/p' "$work/stop.log")
check "stopped: checkpoint before the last step" test -n "$k" -a "${k:-12}" -lt 12
if [ -n "$k" ]; then
  check "stopped: checkpoint is step $k" same "$work/ref_step$(printf %06d "$k").h5" "$work/stop_checkpoint.h5"
  for step in $(seq 0 "$k"); do
    check "stopped: step $step written and intact" same "$work/ref_step$(printf %06d "$step").h5" \
      "$work/stop_step$(printf %06d "$step").h5"
  done
fi
check "stopped: no .partial" bash -c "! ls '$work'/*.partial >/dev/null 2>&1"

# ---- The memory check counts the snapshot: a zone count that fits without it is refused with it
# (before any work), and passes the check with output.overlap false (it then stops at the existing
# output, the next check). Under ulimit -v 3 GB, as the hostile-input test does.
limit_kb=3145728
many=("$source_dir/inputs/quick.yaml" --quiet --set output.prefix="$work/many" --set steps.count=2)
fit() {  # fit OVERLAP: "BYTES_PER_ZONE MOST_ZONES" from the refusal of 2^40 zones
  (ulimit -v "$limit_kb"; "$zoneode" "${many[@]}" --set zones.count=1099511627776 --set output.overlap="$1" 2>&1) |
    sed -n 's/.*(\([0-9]*\) bytes per zone.*at most \([0-9]*\) zones fit per rank.*/\1 \2/p'
}
# Skipped where the binary cannot run under ulimit -v (AddressSanitizer reserves more).
if (ulimit -v "$limit_kb" && "$zoneode" "$source_dir/inputs/quick.yaml" --quiet --set zones.count=4 >/dev/null 2>&1) 2>/dev/null; then
  read -r with_bytes with_most <<<"$(fit true)"
  read -r without_bytes without_most <<<"$(fit false)"
  check "per-zone bytes with the snapshot: 2 + 16 doubles more" test "$((${with_bytes:-0} - ${without_bytes:-0}))" -eq 144
  zones=$(((${with_most:-0} + ${without_most:-0}) / 2))
  touch "$work/many_step000001.h5"
  (ulimit -v "$limit_kb"; "$zoneode" "${many[@]}" --set zones.count="$zones" >"$work/many.log" 2>&1)
  check "snapshot does not fit: exit 2" test $? -eq 2
  check "snapshot does not fit: named" grep -q "and their copy for the overlapped write (output.overlap)" "$work/many.log"
  (ulimit -v "$limit_kb"; "$zoneode" "${many[@]}" --set zones.count="$zones" --set output.overlap=false >"$work/many2.log" 2>&1)
  check "without the snapshot it fits (stops at the existing output)" grep -q "many_step000001.h5' exists" "$work/many2.log"
else
  echo "ulimit -v: skipped (the binary does not run under one)"
fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
