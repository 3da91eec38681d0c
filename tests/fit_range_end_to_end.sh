#!/usr/bin/env bash
# Issue 39: burns above T9 10. REACLIB fits end at T9 10; every rate set is held at T9 10 above it
# (partition functions at the zone's T9). rp-z24 (shipped) at T9 10.5, 11 and 12 runs with every
# zone ok (before, every zone failed step_underflow: s31 <-> p + p30, mb07, rises by e^742 from
# T9 10 to 11), and the run header, the summary and the summary JSON say how many zones are above
# T9 10 and name the sets whose fits would rise most (s31 -> p + p30 first). Nothing is said at T9
# 9.9. Usage: fit_range_end_to_end.sh ZONEODE SOURCE_DIR
set -uo pipefail
zoneode=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"  # check, passes, failures

deck() {  # deck FILE T9
  cat >"$1" <<YAML
network: {source: reaclib, file: $source_dir/inputs/networks/rp-z24.reaclib, nuclides_file: $source_dir/inputs/networks/rp-z24.nuclides}
zones: {count: 2, temperature: {profile: constant, value: $2}, density: {profile: constant, value: 1.0e8}, composition: {p: 0.7, he4: 0.28, o16: 0.02}}
integrator: {method: implicit, schedule: adaptive, start_time: 1.0e-12, end_time: 1.0e-4, rtol: 1.0e-6, atol: 1.0e-20}
physics: {partition_functions: true}
YAML
}
run() {  # run EXPECTED_STATUS OUTFILE ARGS...
  local expected=$1 out=$2; shift 2
  "$zoneode" "$@" >"$out" 2>&1
  local status=$?
  [ "$status" -eq "$expected" ] || { echo "  zoneode $* exited $status, expected $expected"; tail -5 "$out"; return 1; }
}
header_has() { sed -n '1,/== zoneode summary ==/p' "$1" | grep -q "$2"; }
summary_has() { sed -n '/== zoneode summary ==/,$p' "$1" | grep -q "$2"; }

for T9 in 10.5 11 12; do
  deck "$work/hot$T9.yaml" "$T9"
  check "T9 $T9 runs" run 0 "$work/hot$T9.txt" "$work/hot$T9.yaml" --quiet --summary "$work/hot$T9.json"
  check "T9 $T9: every zone ok" grep -q '^  zones            2 (0 failed in the last outer step)' "$work/hot$T9.txt"
  check "T9 $T9: no step_underflow" bash -c "! grep -q step_underflow '$work/hot$T9.txt'"
  check "T9 $T9: header names the sets" header_has "$work/hot$T9.txt" \
    "rates beyond their fits' range: 2 zone(s) above T9 10 (up to T9 $T9); all 1252 rate sets taken at T9 10.*: s31 -> p + p30 \[mb07, reverse\], set 1 of 2: fit x e^"
  check "T9 $T9: summary names them" summary_has "$work/hot$T9.txt" "warning .*rates beyond their fits' range: .*s31 -> p + p30"
  check "T9 $T9: JSON" grep -q "\"rates_beyond_fit\": {\"zones_above_T9_10\": 2, \"max_T9\": $T9, \"rate_sets\": 1252, .*\"s31 -> p + p30 \[mb07, reverse\], set 1 of 2" "$work/hot$T9.json"
done
check "T9 11: s31's rise from T9 10 (ln lambda 767 at 11, the issue's figure, minus ~25 at 10)" \
  grep -q 's31 -> p + p30 \[mb07, reverse\], set 1 of 2: fit x e^742\.' "$work/hot11.txt"

deck "$work/cool.yaml" 9.9
check "T9 9.9 runs" run 0 "$work/cool.txt" "$work/cool.yaml" --quiet --summary "$work/cool.json"
check "T9 9.9: nothing said" bash -c "! grep -q 'fits. range' '$work/cool.txt'"
check "T9 9.9: no JSON key" bash -c "! grep -q rates_beyond_fit '$work/cool.json'"

echo "fit_range_end_to_end: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
