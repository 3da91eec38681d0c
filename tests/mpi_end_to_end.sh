#!/usr/bin/env bash
# Rank- and thread-independence, restart and HDF5 input, under mpirun --oversubscribe.
# Usage: mpi_end_to_end.sh ZONEODE ZONEODE_COMPARE SOURCE_DIR MPIEXEC
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

# 37 zones (no rank count from 2 to 4 divides it), 3 outer steps with a temperature history.
deck=("$source_dir/inputs/quick.yaml" --quiet --set zones.count=37 --set integrator.end_time=1e-4
      --set steps.count=3 --set steps.temperature_factor=1.05 --set steps.density_factor=0.9
      --set output.initial=true)
check "reference (1 rank, 1 thread)" run 1 0 "$work/ref.log" "${deck[@]}" --threads 1 --set output.prefix="$work/ref"
for ranks in 1 2 3 4; do
  for threads in 1 2; do
    name="r${ranks}t${threads}"
    check "$name runs" run "$ranks" 0 "$work/$name.log" "${deck[@]}" --threads "$threads" --set output.prefix="$work/$name"
    for step in 0 1 2 3; do
      check "$name step $step bitwise" same "$work/ref_step00000$step.h5" "$work/${name}_step00000$step.h5"
    done
  done
done
# The comparison has teeth: a run with a dt 1% different differs in the datasets themselves.
check "perturbed run" run 2 0 "$work/perturbed.log" "${deck[@]}" --set integrator.dt_fraction=0.0101 \
  --set output.prefix="$work/perturbed"
"$compare" "$work/ref_step000001.h5" "$work/perturbed_step000001.h5" --rtol 0 --atol 0 --json "$work/perturbed.json" \
  >/dev/null 2>&1
check "perturbed run differs (exit 1)" test $? -eq 1
check "perturbed run differs in abundances" grep -q '"abundances"' "$work/perturbed.json"

# Restart from step 1 (written by 1 rank) on 3 ranks: steps 2 and 3 as the uninterrupted run.
check "restart runs" run 3 0 "$work/restart.log" "${deck[@]}" --threads 2 --set output.prefix="$work/rs" \
  --restart "$work/ref_step000001.h5"
check "restart writes from step 2" test ! -e "$work/rs_step000001.h5"
check "restart step 2 bitwise" same "$work/ref_step000002.h5" "$work/rs_step000002.h5"
check "restart step 3 bitwise" same "$work/ref_step000003.h5" "$work/rs_step000003.h5"

# Zones from an HDF5 file: the initial state of the reference gives the same steps.
check "from_file runs" run 2 0 "$work/ff.log" "$source_dir/inputs/quick.yaml" --quiet --set integrator.end_time=1e-4 \
  --set steps.count=3 --set steps.temperature_factor=1.05 --set steps.density_factor=0.9 \
  --set zones="{from_file: $work/ref_step000000.h5}" --set output.prefix="$work/ff"
check "from_file step 3 bitwise" same "$work/ref_step000003.h5" "$work/ff_step000003.h5"

# More ranks than zones is an error; so is overwriting without --force.
check "more ranks than zones" run 4 2 "$work/many.log" "$source_dir/inputs/quick.yaml" --quiet --set zones.count=3
check "more ranks than zones named" grep -q "4 MPI ranks for 3 zones" "$work/many.log"
check "no overwrite" run 2 2 "$work/over.log" "${deck[@]}" --set output.prefix="$work/ref"
check "overwrite named" grep -q "ref_step000000.h5' exists; use --force" "$work/over.log"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
