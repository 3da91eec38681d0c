#!/usr/bin/env bash
# zoneode-validate honours the deck's physics options (it ignored them before 2026-12-06: every table
# was of the bare network). The rp slice at T9 0.8, rho 1e6 (weak screening and partition functions
# move its abundances by up to 35% at rtol 1e-8):
#   1. with them on, implicit at rtol 1e-6 within 1e-5 of the CVODE reference (both must carry them:
#      one side without them is off by ~0.35) and the header names them;
#   2. the implicit method's work differs from the same run with them off (they reached the methods:
#      with both sides blind to them, check 1 would pass on the bare network).
# The slice is rp-z12 from REACLIB_DATA (CMake's ZONEODE_REACLIB_DATA, ../shared/reaclib), else the
# rp-z24 slice the project ships, so that a plain clone runs it too (issue 40: it skipped there).
# Usage: tests/cvode_physics_check.sh ZONEODE_VALIDATE SOURCE_DIR [REACLIB_DATA]
set -uo pipefail
validate=${1:?usage: cvode_physics_check.sh ZONEODE_VALIDATE SOURCE_DIR [REACLIB_DATA]}
cd "${2:?usage: cvode_physics_check.sh ZONEODE_VALIDATE SOURCE_DIR [REACLIB_DATA]}" || exit 2
reaclib_data=${3:-../shared/reaclib}
slice=$(cd "$reaclib_data" 2>/dev/null && pwd)/rp-z12
if [ ! -f "$slice.reaclib" ] || [ ! -f "$slice.nuclides" ]; then
  [ "${CI:-}" = true ] && { echo "FAIL: no rp-z12.reaclib in $reaclib_data with CI=true"; exit 1; }
  # rp-z24 kept to its 42 lightest nuclides, rp-z12's (Z <= 12; the whole of rp-z24 takes minutes here).
  echo "no rp-z12.reaclib in $reaclib_data: the shipped rp-z24 slice, kept to its 42 lightest nuclides (rp-z12's)"
  kept=$(mktemp /tmp/zoneode-rpz12-nuclides.XXXXXX)
  trap 'rm -f "$kept"' EXIT
  head -n 42 inputs/networks/rp-z24.nuclides >"$kept"
  library=$PWD/inputs/networks/rp-z24.reaclib
else
  kept=$slice.nuclides
  library=$slice.reaclib
fi
case_args=(inputs/reaclib_rp.yaml --set network.file="$library" --set network.nuclides_file="$kept"
           --set integrator.end_time=10 --set zones.composition.c12=0.01
           --set zones.composition.o16=0.01 --set zones.count=1 --zones 1 --set zones.temperature.value=0.8
           --set zones.density.value=1e6 --geometric none --asymptotic none --qss2 none --bdf none --implicit 1e-6)
failures=0
with=$("$validate" "${case_args[@]}" --set physics.screening=weak --set physics.partition_functions=true \
  --check-implicit 1e-6=1e-5 2>&1)
status=$?
without=$("$validate" "${case_args[@]}" 2>&1)
row() { echo "$1" | grep '^| implicit rtol 1e-06 |'; }
echo "with:    $(row "$with")"
echo "without: $(row "$without")"
if [ "$status" -ne 0 ]; then echo "FAIL: implicit not within 1e-5 of CVODE with the physics options on (exit $status)"; failures=$((failures + 1)); fi
if ! echo "$with" | grep -q "Physics: screening weak, partition functions on"; then
  echo "FAIL: the header does not name the physics options"; failures=$((failures + 1))
fi
steps_with=$(row "$with" | awk -F'|' '{gsub(/ /, "", $6); print $6}')
steps_without=$(row "$without" | awk -F'|' '{gsub(/ /, "", $6); print $6}')
if [ -z "$steps_with" ] || [ "$steps_with" = "$steps_without" ]; then
  echo "FAIL: the implicit steps with the physics options ($steps_with) equal those without ($steps_without): not applied"
  failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] && echo "passed" || echo "FAILED: $failures"
exit $((failures > 0))
