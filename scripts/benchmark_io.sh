#!/usr/bin/env bash
# Write bandwidth of one 1M-zone x 100-species state file, at 1 and 2 ranks, for each build given.
# Usage: scripts/benchmark_io.sh OUTPUT_DIR BUILD_DIR [BUILD_DIR...]
#   e.g. scripts/benchmark_io.sh /tmp/io build build-serial
# Prints a table (median of 3 runs per case); the JSON summaries stay in OUTPUT_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1; shift
mkdir -p "$out"
mpi_flags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && mpi_flags+=(--allow-run-as-root)
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
json() { sed -n "s/^  \"$2\": \([0-9.eE+-]*\),\{0,1\}$/\1/p" "$1"; }
printf "%-14s %-9s %5s %12s %10s %12s\n" build hdf5 ranks bytes seconds "MB/s"
for build in "$@"; do
  for ranks in 1 2; do
    seconds=()
    for repeat in 1 2 3; do
      name="$out/$(basename "$build")_r${ranks}_${repeat}"
      OMP_NUM_THREADS=$((2 / ranks)) mpirun "${mpi_flags[@]}" -n "$ranks" "$build/zoneode" inputs/io_benchmark.yaml \
        --quiet --force --set output.prefix="$name" --summary "$name.json" >"$name.log" 2>&1
      seconds+=("$(json "$name.json" output_seconds)")
      rm -f "${name}"_step*.h5
    done
    bytes=$(json "$name.json" output_bytes)
    mode=$(sed -n 's/^  "hdf5": "\(.*\)",$/\1/p' "$name.json")
    s=$(printf "%s\n" "${seconds[@]}" | median)
    printf "%-14s %-9s %5d %12.4g %10.3f %12.1f\n" "$(basename "$build")" "$mode" "$ranks" "$bytes" "$s" \
      "$(awk -v b="$bytes" -v s="$s" 'BEGIN {print b / s / 1e6}')"
  done
done
