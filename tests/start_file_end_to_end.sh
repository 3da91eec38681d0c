#!/usr/bin/env bash
# scripts/make_start_file.py (the ladder's start files for r832): what it writes is what zoneode
# reads. usage: start_file_end_to_end.sh ZONEODE SOURCE_DIR. Exit 77 (skipped) without a python
# that has h5py and numpy.
#  1. 8 identical zones of s16 from a file give the run of a deck whose composition says the same
#     (he4 0.5, c12 0.5: the deck's Y = X / A / 1 and the file's X / A are the same bits): same result hash;
#  2. the study's dilute start (mass fractions summing to 0.073) is refused under the default
#     mass_sum_tolerance (exit 2, naming the sum) and runs with 1.0;
#  3. a name the network lacks and a bad zone count are refused with exit 2 and a message;
#  4. where ../shared/study is, its make_study_init.py and this script write the same file for hyp150.
set -uo pipefail
zoneode=$1 src=$2
python=""
for candidate in /usr/bin/python3 python3; do
  "$candidate" -c "import h5py, numpy" 2>/dev/null && { python=$candidate; break; }
done
[ -n "$python" ] || { echo "skipped: no python with h5py and numpy"; exit 77; }
maker=$src/scripts/make_start_file.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() { local what=$1; shift; if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi; }

cat >"$work/composition.yaml" <<'EOF'
network: {source: generator, preset: s16}
zones:
  count: 8
  temperature: {profile: constant, value: 2.0}
  density: {profile: constant, value: 1.0e+6}
  composition: {he4: 0.5, c12: 0.5}
integrator: {schedule: geometric, start_time: 1.0e-10, end_time: 1.0e-6, dt_fraction: 0.01}
EOF
"$zoneode" network export "$work/composition.yaml" --output "$work/s16.znet" >/dev/null 2>&1
check "network exported" test -s "$work/s16.znet"
"$python" "$maker" "$work/s16.znet" 8 "$work/start.h5" 2.0 1e6 he4=0.5 c12=0.5 >"$work/maker.txt" 2>&1
check "start file written" grep -q "8 zones of 16 species" "$work/maker.txt"
sed 's/^  count: 8$/  from_file: start.h5/; /temperature:/d; /density:/d; /composition:/d' "$work/composition.yaml" >"$work/file.yaml"
"$zoneode" "$work/composition.yaml" --quiet --force --set output.prefix="$work/a" >"$work/a.txt" 2>&1
"$zoneode" "$work/file.yaml" --quiet --force --set output.prefix="$work/b" >"$work/b.txt" 2>&1
hash_a=$(awk '/result hash/ {print $3}' "$work/a.txt") hash_b=$(awk '/result hash/ {print $3}' "$work/b.txt")
echo "     composition deck $hash_a, start file $hash_b"
check "the start file's run is the composition deck's, bit for bit" test -n "$hash_a" -a "$hash_a" = "$hash_b"

"$python" "$maker" "$work/s16.znet" 8 "$work/dilute.h5" 2.0 1e6 c12=0.04166 o16=0.03125 >/dev/null 2>&1
sed 's/start.h5/dilute.h5/' "$work/file.yaml" >"$work/dilute.yaml"
"$zoneode" "$work/dilute.yaml" --quiet --force --set output.prefix="$work/c" >"$work/c.txt" 2>&1
rc=$?
check "a dilute start refused under the default tolerance (exit 2)" test "$rc" = 2
check "... naming the mass sum" grep -qi "0.0729" "$work/c.txt"
"$zoneode" "$work/dilute.yaml" --quiet --force --set zones.mass_sum_tolerance=1.0 --set output.prefix="$work/d" >"$work/d.txt" 2>&1
check "... and run with mass_sum_tolerance 1.0" grep -q "result hash" "$work/d.txt"

"$python" "$maker" "$work/s16.znet" 8 "$work/x.h5" 2.0 1e6 xx99=1 >"$work/e.txt" 2>&1
rc=$?
check "an unknown species refused (exit 2, named)" test "$rc" = 2 -a -n "$(grep "'xx99' is not a species" "$work/e.txt")"
"$python" "$maker" "$work/s16.znet" 0 "$work/x.h5" 2.0 1e6 he4=1 >"$work/f.txt" 2>&1
rc=$?
check "zero zones refused (exit 2)" test "$rc" = 2 -a -n "$(grep "ZONES >= 1" "$work/f.txt")"

study=$src/../shared/study
if [ -f "$study/make_study_init.py" ] && [ -f "$study/hyp150.znet" ]; then
  "$python" "$study/make_study_init.py" 3 "$work/theirs.h5" >/dev/null 2>&1
  "$python" "$maker" "$study/hyp150.znet" 3 "$work/ours.h5" 5 1e8 c12=0.04166 o16=0.03125 >/dev/null 2>&1
  check "the study's start written alike by its maker and this one" "$python" -c "
import sys, h5py, numpy as np
a, b = h5py.File('$work/theirs.h5'), h5py.File('$work/ours.h5')
keys = ['abundances', 'temperature', 'density', 'species/name', 'species/Z', 'species/A']
sys.exit(0 if all(np.array_equal(a[k][()], b[k][()]) and a[k].dtype == b[k].dtype for k in keys)
         and a.attrs['format_version'] == b.attrs['format_version'] else 1)"
else
  echo "     (../shared/study absent: the comparison with the study's maker skipped)"
fi
[ "$failures" = 0 ] && echo "all passed" || echo "$failures failed"
exit $((failures > 0))
