#!/usr/bin/env bash
# Issue 30: what a run says about its physics options' gaps. Partition functions: the nuclides of
# reverse rates that the table lacks are named in the header, the summary and the summary JSON, or
# refused (physics.partition_missing: refuse, exit 2, a planted untabulated nuclide). Weak
# screening: zones with H > 1 counted with the largest H and the suggestion of chugunov2007, and
# nothing said where H is small. Usage: physics_caveats_end_to_end.sh ZONEODE SOURCE_DIR
set -uo pipefail
zoneode=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"  # check, passes, failures

# rp-z24 (shipped), 2 zones at T9 1, rho 1e7: the largest H is 1.1946 (Clayton 0.188 Z1 Z2 zeta^1/2
# rho^1/2 T6^-3/2 = 0.0259 Z1 Z2 with zeta 1.90, times the network's largest charge product, 46).
deck() {  # deck FILE T9 RHO PHYSICS
  cat >"$1" <<YAML
network: {source: reaclib, file: $source_dir/inputs/networks/rp-z24.reaclib, nuclides_file: $source_dir/inputs/networks/rp-z24.nuclides}
zones: {count: 2, temperature: {profile: constant, value: $2}, density: {profile: constant, value: $3}, composition: {p: 0.7, he4: 0.28, o16: 0.02}}
integrator: {method: asymptotic, schedule: geometric, start_time: 1.0e-12, end_time: 1.0e-10, dt_fraction: 0.1}
physics: $4
YAML
}
run() {  # run EXPECTED_STATUS OUTFILE ARGS...
  local expected=$1 out=$2; shift 2
  "$zoneode" "$@" >"$out" 2>&1
  local status=$?
  [ "$status" -eq "$expected" ] || { echo "  zoneode $* exited $status, expected $expected"; tail -5 "$out"; return 1; }
}
summary_part() { sed -n '/== zoneode summary ==/,$p' "$1"; }
header_part() { sed -n '1,/== zoneode summary ==/p' "$1"; }

deck "$work/caveats.yaml" 1 1e7 "{screening: weak, partition_functions: true}"
check "weak + partition functions run" run 0 "$work/caveats.txt" "$work/caveats.yaml" --quiet --set run.summary="$work/caveats.json"
check "header names the untabulated nuclides" bash -c "header_part() { sed -n '1,/== zoneode summary ==/p' \"\$1\"; }; header_part '$work/caveats.txt' | grep -q 'G = 1 for .* untabulated in .*rt2000_frdm_rpz24.txt: .*c12'"
check "summary names them" bash -c "sed -n '/== zoneode summary ==/,\$p' '$work/caveats.txt' | grep -q 'warning .*partition functions: G = 1 .*b8, .*c12'"
check "p and he4 are tabulated (G = 1 exactly)" bash -c "! grep 'untabulated' '$work/caveats.txt' | grep -Eq ': (.*, )?(p|he4)(,| )'"
check "JSON lists them" grep -q '"partition_untabulated": \[.*"c12"' "$work/caveats.json"
check "header names the held nuclides" bash -c "sed -n '1,/== zoneode summary ==/p' '$work/caveats.txt' | grep -q 'no high-temperature row for 16 nuclide(s) .*na19 (T9 > 10)'"
check "JSON lists the held nuclides" grep -q '"partition_held": \[.*"na19 (T9 > 10)"' "$work/caveats.json"
check "header warns of weak screening" bash -c "sed -n '1,/== zoneode summary ==/p' '$work/caveats.txt' | grep -q 'weak screening beyond its validity: H > 1 in 2 zone(s), largest H [0-9.]*.*chugunov2007'"
check "summary warns of weak screening" bash -c "sed -n '/== zoneode summary ==/,\$p' '$work/caveats.txt' | grep -q 'H > 1 in 2 zone(s)'"
check "JSON counts the zones" grep -q '"weak_screening": {"zones_h_above_1": 2, "largest_h": 1\.1946' "$work/caveats.json"
check "stderr-style warning line" grep -q '^zoneode: warning .*chugunov2007' "$work/caveats.txt"

# Hot and thin: H << 1, nothing said; the JSON still records the check.
deck "$work/thin.yaml" 3 1e2 "{screening: weak}"
check "thin run" run 0 "$work/thin.txt" "$work/thin.yaml" --quiet --set run.summary="$work/thin.json"
check "no weak-screening warning where H < 1" bash -c "! grep -q 'weak screening beyond' '$work/thin.txt'"
check "JSON: no zone above 1" grep -q '"weak_screening": {"zones_h_above_1": 0, "largest_h": 0\.' "$work/thin.json"
check "no partition key without the option" bash -c "! grep -q partition_untabulated '$work/thin.json'"

# A planted gap: the shipped table without o16, refused.
grep -v '^o16 ' "$source_dir/inputs/data/partition_functions/rt2000_frdm_rpz24.txt" >"$work/no_o16.txt"
deck "$work/refuse.yaml" 1 1e7 "{partition_functions: true, partition_table: $work/no_o16.txt, partition_missing: refuse}"
check "refuse exits 2" run 2 "$work/refuse.txt" "$work/refuse.yaml" --quiet
check "refusal names the planted nuclide and the table" grep -q "partition_missing: refuse: the partition-function table '$work/no_o16.txt' has no G for .*o16" "$work/refuse.txt"
deck "$work/unity.yaml" 1 1e7 "{partition_functions: true, partition_table: $work/no_o16.txt}"
check "unity runs" run 0 "$work/unity.txt" "$work/unity.yaml" --quiet
check "unity names the planted nuclide" grep -q 'untabulated in .*no_o16.txt: .*o16' "$work/unity.txt"
check "partition_missing needs partition_functions" run 2 "$work/needs.txt" "$work/thin.yaml" --quiet --set physics.partition_missing=refuse

# A custom table that ends below the burn's T9 (issue 40): the shipped table cut after T9 6; zones at
# T9 7 are counted in the summary and its JSON (G held at T9 6 there); the shipped table (to T9 275)
# at the same T9 says nothing of it.
awk '/^#/ {next} {line = $1; for (i = 2; i <= 21; i++) line = line " " $i; print line}' \
  "$source_dir/inputs/data/partition_functions/rt2000_frdm_rpz24.txt" >"$work/to_T9_6.txt"
deck "$work/beyond.yaml" 7 1e7 "{partition_functions: true, partition_table: $work/to_T9_6.txt}"
check "a table ending at T9 6 runs at T9 7" run 0 "$work/beyond.txt" "$work/beyond.yaml" --quiet --set run.summary="$work/beyond.json"
check "summary counts the zones beyond the table" bash -c "sed -n '/== zoneode summary ==/,\$p' '$work/beyond.txt' | grep -q 'partition functions beyond their table: 2 zone(s) above T9 6 (up to T9 7), the last T9 of .*to_T9_6.txt'"
check "JSON counts them" grep -q '"partition_beyond_table": {"zones": 2, "table_last_T9": 6, "hottest_T9": 7}' "$work/beyond.json"
deck "$work/within.yaml" 7 1e7 "{partition_functions: true}"
check "the shipped table at T9 7" run 0 "$work/within.txt" "$work/within.yaml" --quiet --set run.summary="$work/within.json"
check "nothing said beyond the shipped table" bash -c "! grep -q 'beyond their table' '$work/within.txt' && ! grep -q partition_beyond_table '$work/within.json'"

# Self-heating's T9 floor (1e-3 GK, issue 40): a zone that starts below it is refused, not lifted.
deck "$work/cold.yaml" 5e-4 1e7 "{self_heating: true}"
check "self-heating below its floor exits 2" run 2 "$work/cold.txt" "$work/cold.yaml" --quiet
check "the refusal names the zone, its T9 and the floor" grep -q "cold.yaml: zones.temperature: zone 0 starts at T9 5e-04, below self-heating's floor: expected T9 >= 0.001" "$work/cold.txt"
deck "$work/warm.yaml" 0.01 1e7 "{self_heating: true}"
check "above the floor it runs" run 0 "$work/warm.txt" "$work/warm.yaml" --quiet

# The explicit methods' energy from the abundance floor (issue 40): pure o18 at T9 1, rho 1e12 (the
# default network) has no proton or alpha to burn, but the floor puts 1e-30 mol/g of each back after
# every step while their reactions count in full. The summary says so, with the rate, which is the
# bulk of the zone's own (15.5 erg/(g s)); not with the implicit method or on the quick deck.
cat >"$work/o18.yaml" <<YAML
network: {source: generator, preset: default}
zones: {count: 2, temperature: {profile: constant, value: 1.0}, density: {profile: constant, value: 1.0e12}, composition: {o18: 1.0}}
integrator: {method: asymptotic, schedule: geometric, start_time: 1.0e-10, end_time: 1.0, dt_fraction: 0.01}
YAML
check "o18 at rho 1e12 runs" run 0 "$work/o18.txt" "$work/o18.yaml" --quiet --set run.summary="$work/o18.json"
check "summary: energy from the abundance floor" bash -c "sed -n '/== zoneode summary ==/,\$p' '$work/o18.txt' | grep -q 'warning .*energy from the abundance floor: in 2 of 2 zone(s) checked, .*abundance_floor (1e-30 mol/g) release up to [0-9.e+]* erg/(g s), up to [0-9.]* times'"
check "JSON: floor_release, most of the zone's rate" /usr/bin/env python3 -c "
import json, sys
s = json.load(open('$work/o18.json'))
f = s['floor_release']
sys.exit(0 if f['zones'] == 2 and f['zones_checked'] == 2 and f['abundance_floor'] == 1e-30 and 0.5 < f['largest_share'] <= 1.0
         and 0.5 * s['max_energy_generation_rate'] < f['largest_erg_per_g_s'] <= s['max_energy_generation_rate'] else 1)"
check "qss2 says it too" run 0 "$work/o18q.txt" "$work/o18.yaml" --quiet --set integrator.method=qss2
check "qss2: energy from the abundance floor" grep -q 'energy from the abundance floor: in 2 of 2 zone' "$work/o18q.txt"
check "the implicit method: o18 runs" run 0 "$work/o18i.txt" "$work/o18.yaml" --quiet --set integrator.method=implicit --set run.summary="$work/o18i.json"
check "the implicit method: nothing said" bash -c "! grep -q 'abundance floor' '$work/o18i.txt' && ! grep -q floor_release '$work/o18i.json'"
check "quick deck runs" run 0 "$work/quick.txt" "$source_dir/inputs/quick.yaml" --quiet --set zones.count=32
check "quick deck: nothing said" bash -c "! grep -q 'abundance floor' '$work/quick.txt'"

echo "physics caveats: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
