#!/usr/bin/env bash
# Reproduces the accuracy-versus-cost tables of validation/README.md: every shipped deck and the
# REACLIB slice at T9 0.4 / rho 1e5 and T9 0.8 / rho 1e6 (10 s, p 0.7, he4 0.28, c12 and o16
# 0.01), each against a tight CVODE reference, on one thread.
#   ./scripts/validate_cvode.sh [BUILD_DIR] [ZONES] > tables.md      (defaults: build, 4)
# Needs zoneode-validate (a build that found SUNDIALS: libsundials-dev) and, for the REACLIB
# cases, the slice in ../shared/reaclib (the deck's path).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
zones="${2:-4}"
validate="$build/zoneode-validate"
[ -x "$validate" ] || { echo "validate_cvode: no $validate (configure with SUNDIALS installed)" >&2; exit 2; }
export OMP_NUM_THREADS=1
cd "$root"
for deck in quick default s150 s365 decay_chain; do
  "$validate" "inputs/$deck.yaml" --zones "$zones" --label "$deck.yaml" 2>/dev/null
done
reaclib=(--set integrator.end_time=10 --set zones.composition.c12=0.01 --set zones.composition.o16=0.01
         --set zones.count=1 --zones 1)
"$validate" inputs/reaclib_rp.yaml "${reaclib[@]}" --set zones.temperature.value=0.4 --set zones.density.value=1e5 \
  --label "reaclib_rp.yaml, T9 0.4, rho 1e5" 2>/dev/null
"$validate" inputs/reaclib_rp.yaml "${reaclib[@]}" --set zones.temperature.value=0.8 --set zones.density.value=1e6 \
  --label "reaclib_rp.yaml, T9 0.8, rho 1e6" 2>/dev/null
