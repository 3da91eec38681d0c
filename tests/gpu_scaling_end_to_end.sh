#!/usr/bin/env bash
# scripts/gpu-scaling.sh's plumbing on the CPU (ZONEODE_BACKEND=cpu), tiny sizes: every campaign
# and run of both modes and decompositions, the tables (time split per run, output cost), the
# campaign folders that scripts/report.py reads, at most 8 files in OUT, the same result on 1 and 2
# ranks in strong scaling, and a failing run making the script fail.
# Usage: gpu_scaling_end_to_end.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"  # check, passes, failures, mpi_flags

plumbing() {  # plumbing OUT_DIR [ENV...]: the script at tiny sizes, s150 only; its log in OUT_DIR.log
  local out=$1; shift
  env ZONEODE_BACKEND=cpu ZONEODE_BUILD_DIR="$build" ZONEODE_NETWORKS=s150 ZONEODE_RANKS="1 2" \
    ZONEODE_STRONG_ZONES=12 ZONEODE_WEAK_ZONES_PER_RANK=6 ZONEODE_OVERLAP_ZONES=64 ZONEODE_OVERLAP_REPEATS=1 \
    ZONEODE_OVERLAP_DECK="$source_dir/inputs/quick.yaml" ZONEODE_EXTRA_ARGS="--set integrator.end_time=1e-8" \
    TMPDIR="$work" "$@" "$source_dir/scripts/gpu-scaling.sh" plumbing "$out" >"$out.log" 2>&1
}

plumbing "$work/out"
check "plumbing exits 0" test $? -eq 0
check "at most 8 files in OUT" test "$(find "$work/out" -type f | wc -l)" -le 8
check "summary, binding lines and the archive" test -s "$work/out/summary.md" -a -s "$work/out/binding.txt" \
  -a -s "$work/out/scaling.tar.gz"
summary=$work/out/summary.md
for campaign in s150-weak-count s150-weak-cost s150-strong-count s150-strong-cost; do
  check "$campaign: 2 runs in the time split" test "$(grep -c "^| $campaign | [12] |" "$summary")" -eq 2
done
check "output cost: none, sync and overlap" test "$(grep -cE '^\| (none|sync|overlap) \| 1 \|' "$summary")" -eq 3
check "report.py's tables" grep -q "^## s150-strong-cost: strong scaling, cpu/none" "$summary"
check "weak zones per rank: 6 and 12" bash -c "grep -q '^| s150-weak-count | 1 | 6 |' '$summary' && grep -q '^| s150-weak-count | 2 | 12 |' '$summary'"
strong_hashes=$(grep -E '^\| s150-strong-(count|cost) \|' "$summary" | awk -F'|' '{print $14}' | sort -u | wc -l)
check "strong scaling: one result hash over ranks and decompositions" test "$strong_hashes" -eq 1
check "binding: one line per rank and run (2 x (1 + 2) x 2)" test "$(grep -c ': binding: rank ' "$work/out/binding.txt")" -eq 12
mkdir "$work/unpacked" && tar -xzf "$work/out/scaling.tar.gz" -C "$work/unpacked"
check "archive: campaign.txt with its mode" grep -q "^mode weak$" "$work/unpacked/campaigns/s150-weak-cost/campaign.txt"
check "archive: weak zones per rank" grep -q "^zones_per_rank 6$" "$work/unpacked/campaigns/s150-weak-cost/campaign.txt"
check "archive: a summary per rank count" test -s "$work/unpacked/campaigns/s150-strong-cost/r2.json"
check "archive: report.py's report" test -s "$work/unpacked/report/report.md"
check "no scratch state files left" test -z "$(find "$work/unpacked" -name '*.h5')"

# A run that fails (an unknown deck key) makes the script fail, and says so.
plumbing "$work/bad" ZONEODE_PARTS=overlap ZONEODE_EXTRA_ARGS="--set output.unknown=1"
check "a failing run: exit 1" test $? -eq 1
check "a failing run: named" grep -q "exit 2: " "$work/bad.log"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
