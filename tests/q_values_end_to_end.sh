#!/usr/bin/env bash
# Issue 39: Q values from masses. `network info` shows the REACLIB header Q beside the masses' and
# the largest disagreements; `network.q_values: header` gives a REACLIB run its former result hash
# (3294ed23a2c73a45: inputs/bench/c1-rpz24-hot.yaml on 8 zones before Q came from masses), the
# default (masses) another; a bad value is an input error naming the key and the choices.
# Usage: q_values_end_to_end.sh ZONEODE SOURCE_DIR
set -uo pipefail
zoneode=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"  # check, passes, failures
run() {  # run EXPECTED_STATUS OUTFILE ARGS...
  local expected=$1 out=$2; shift 2
  "$zoneode" "$@" >"$out" 2>&1
  local status=$?
  [ "$status" -eq "$expected" ] || { echo "  zoneode $* exited $status, expected $expected"; tail -5 "$out"; return 1; }
}
hash_of() { sed -n 's/^  result hash *//p' "$1"; }
deck=$source_dir/inputs/bench/c1-rpz24-hot.yaml

check "network info" run 0 "$work/info.txt" network info "$deck" --quiet
check "info compares header and masses" grep -q "Q values: masses (network.q_values); header - masses over 887 reactions: largest |difference| 1977.0 keV" "$work/info.txt"
check "info names the largest disagreement" grep -Eq '^  he4 \+ v40 -> p \+ cr43 \[ths8\] +7\.598950 +9\.575945# +-1976\.995' "$work/info.txt"
check "header run" run 0 "$work/header.txt" "$deck" --quiet --set zones.count=8 --set network.q_values=header
check "header gives the former hash" test "$(hash_of "$work/header.txt")" = 3294ed23a2c73a45
check "masses run" run 0 "$work/masses.txt" "$deck" --quiet --set zones.count=8
check "masses change the REACLIB run" test "$(hash_of "$work/masses.txt")" != 3294ed23a2c73a45
check "masses in the resolved deck" bash -c "'$zoneode' '$deck' --set zones.count=1 --set integrator.end_time=1e-14 | grep -q '^  q_values: masses'"
check "a bad value exits 2" run 2 "$work/bad.txt" "$deck" --quiet --set network.q_values=mass
check "the error names the key and the choices" grep -q "q_values.*masses.*header" "$work/bad.txt"

echo "q_values_end_to_end: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
