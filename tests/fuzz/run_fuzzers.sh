#!/usr/bin/env bash
# Runs every libFuzzer harness for a bounded time (CI: 30 s each) from its seed corpus. Any crash,
# leak, sanitizer report or input over the per-input time limit fails it; the input that did is
# printed and left in the artifact folder, to be kept under tests/fuzz/regressions/<harness>/
# (replayed by ctest in every build).
# Usage: run_fuzzers.sh BUILD_DIR (configured with -DZONEODE_FUZZ=ON) SOURCE_DIR [SECONDS] [REACLIB_DATA]
set -uo pipefail
build=$1
source_dir=$2
seconds=${3:-60}
reaclib_data=${4:-$source_dir/../shared/reaclib}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A seeds=(
  [deck]="$source_dir/inputs"
  [reaclib]="$reaclib_data"
  [network_file]="$source_dir/tests/fuzz/seeds/network_file"
  [state_file]="$source_dir/tests/fuzz/seeds/state_file"
)
failed=0
printf '%-14s %12s %10s %10s %s\n' harness executions coverage features outcome
for harness in deck reaclib network_file state_file; do
  fuzzer="$build/tests/zoneode_fuzz_$harness"
  [ -x "$fuzzer" ] || { echo "no $fuzzer: configure with -DZONEODE_FUZZ=ON"; exit 2; }
  corpus="$work/corpus-$harness"
  artifacts="$work/artifacts-$harness/"
  mkdir -p "$corpus" "$artifacts"
  # Also tests/fuzz/seeds/<harness> where it exists (REACLIB: seeds that begin with the keep-list byte).
  find "${seeds[$harness]}" "$source_dir/tests/fuzz/seeds/$harness" "$source_dir/tests/fuzz/regressions/$harness" -maxdepth 1 -type f \
    -exec cp {} "$corpus/" \; 2>/dev/null
  # One process, so that the executions and coverage below are this harness's; -timeout: a hang.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$fuzzer" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$artifacts" >"$work/$harness.log" 2>&1
  status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$harness.log" | tail -1)
  coverage=$(grep -oE 'cov: [0-9]+' "$work/$harness.log" | tail -1 | cut -d' ' -f2)
  features=$(grep -oE 'ft: [0-9]+' "$work/$harness.log" | tail -1 | cut -d' ' -f2)
  outcome="clean"
  if [ "$status" -ne 0 ] || ls "$artifacts"* >/dev/null 2>&1; then
    outcome="FINDING (exit $status)"
    failed=1
  fi
  printf '%-14s %12s %10s %10s %s\n' "$harness" "${executions:-?}" "${coverage:-?}" "${features:-?}" "$outcome"
  if [ "$outcome" != clean ]; then
    grep -E "ERROR|SUMMARY|runtime error|Test unit written|timeout" "$work/$harness.log" | head -20
    for artifact in "$artifacts"*; do
      [ -e "$artifact" ] || continue
      echo "  input: $artifact ($(stat -c %s "$artifact") bytes), base64:"
      head -c 4096 "$artifact" | base64 | head -40
      mkdir -p "${FUZZ_FINDINGS:-/tmp/zoneode-fuzz-findings}/$harness"
      cp "$artifact" "${FUZZ_FINDINGS:-/tmp/zoneode-fuzz-findings}/$harness/"
    done
  fi
done
[ "$failed" -eq 0 ]
