#!/usr/bin/env bash
# End-to-end checks of the zoneode executable: exit codes, error messages, thread independence,
# network export round trip. Usage: cli_end_to_end.sh ZONEODE SOURCE_DIR [REACLIB_DATA]
# REACLIB_DATA (CMake's ZONEODE_REACLIB_DATA) holds rp-z12.reaclib; without it the REACLIB deck is
# skipped, unless CI=true, where a missing library is a failure.
set -uo pipefail
zoneode=$1
source_dir=$2
reaclib_data=${3:-$source_dir/../shared/reaclib}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$(dirname "${BASH_SOURCE[0]}")/lib/checks.sh"  # check, passes, failures, mpi_flags
run() {  # run EXPECTED_STATUS OUTFILE ARGS...: runs zoneode, true when the exit status matches
  local expected=$1 out=$2; shift 2
  "$zoneode" "$@" >"$out" 2>&1
  local status=$?
  [ "$status" -eq "$expected" ] || { echo "  zoneode $* exited $status, expected $expected"; tail -5 "$out"; return 1; }
}
json_value() {  # json_value FILE KEY: a top-level scalar of the JSON summary
  sed -n "s/^  \"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1"
}

check "help exits 0" run 0 "$work/help.txt" --help
check "help lists usage" grep -q "zoneode network info DECK" "$work/help.txt"
check "version" run 0 "$work/version.txt" --version
check "no deck is a usage error" run 2 "$work/none.txt"
check "unknown option" run 2 "$work/opt.txt" --frobnicate "$source_dir/inputs/quick.yaml"
check "unknown option named" grep -q "unknown option '--frobnicate'" "$work/opt.txt"
check "missing deck" run 2 "$work/missing.txt" "$work/nope.yaml"
check "missing deck named" grep -q "cannot open deck '$work/nope.yaml'" "$work/missing.txt"

# Output folders are created when missing; one that cannot be is a clear error.
check "nested output folder created" run 0 "$work/nested.txt" "$source_dir/inputs/decay_chain.yaml" --quiet \
  --set output.prefix="$work/new/deeper/run" --summary "$work/other/summary.json"
check "nested output written" test -f "$work/new/deeper/run_step000001.h5" -a -f "$work/other/summary.json"
touch "$work/afile"
check "output folder under a file" run 2 "$work/underfile.txt" "$source_dir/inputs/decay_chain.yaml" --quiet \
  --set output.prefix="$work/afile/run"
check "output folder error says why" grep -q "cannot create the output folder '$work/afile'" "$work/underfile.txt"

# Hostile input refused before any work (issue 11): an option's value that is missing or is the
# next option, a deck that is no regular file, a step fraction that cannot advance time, and an
# outer-step count beyond the bound.
check "--summary followed by an option" run 2 "$work/sumq.txt" "$source_dir/inputs/quick.yaml" --summary --quiet
check "--summary names the option it got" grep -q "needs a value, got the option '--quiet'" "$work/sumq.txt"
check "no file named --quiet" test ! -e ./--quiet
check "--restart with an empty value" run 2 "$work/restart-empty.txt" "$source_dir/inputs/quick.yaml" --restart ''
check "--restart empty named" grep -q "restart needs a value, got ''" "$work/restart-empty.txt"
mkfifo "$work/fifo.yaml"
fifo_refused() { timeout 10 "$zoneode" "$work/fifo.yaml" >"$work/fifo.txt" 2>&1; [ $? -eq 2 ]; }
check "a FIFO deck is refused at once" fifo_refused
check "FIFO named" grep -q "is not a regular file" "$work/fifo.txt"
check "dt_fraction that cannot advance" run 2 "$work/dtf.txt" "$source_dir/inputs/quick.yaml" --set integrator.dt_fraction=1e-300
check "dt_fraction bound named" grep -q "dt_fraction.*1e-12" "$work/dtf.txt"
check "steps.count beyond the bound" run 2 "$work/steps.txt" "$source_dir/inputs/quick.yaml" --set steps.count=1000000000000
check "steps.count named" grep -q "count" "$work/steps.txt"

# A bad value names file, line, column and key.
sed 's/count: 512/count: -4/' "$source_dir/inputs/quick.yaml" >"$work/bad.yaml"
check "bad deck value" run 2 "$work/bad.txt" "$work/bad.yaml"
check "bad deck value located" grep -q "bad.yaml:8:10: zones.count: expected an integer >= 1, got -4" "$work/bad.txt"
check "bad override" run 2 "$work/badset.txt" "$source_dir/inputs/quick.yaml" --set integrator.end_time=never
check "bad override named" grep -q -- "--set integrator.end_time=never: integrator.end_time: expected a number > 0" "$work/badset.txt"

# The quick deck at 1 and 2 threads: bitwise the same results (hash over every Y, step count).
quick=("$source_dir/inputs/quick.yaml" --set zones.count=64 --quiet)
check "quick 1 thread" run 0 "$work/q1.txt" "${quick[@]}" --threads 1 --summary "$work/q1.json"
check "quick 2 threads" run 0 "$work/q2.txt" "${quick[@]}" --threads 2 --summary "$work/q2.json"
h1=$(json_value "$work/q1.json" result_hash)
h2=$(json_value "$work/q2.json" result_hash)
check "result hash present" test -n "$h1"
check "threads do not change results ($h1 vs $h2)" test "$h1" = "$h2"
check "threads recorded" test "$(json_value "$work/q2.json" threads)" = 2
check "override echoed" grep -q "command line overrides the deck: zones.count=64" "$work/q1.txt"
check "zone count" test "$(json_value "$work/q1.json" zones)" = 64
check "no failed zones" test "$(json_value "$work/q1.json" failed_zones)" = 0

# Network info and export; running from the exported file reproduces the generator's results.
check "network info" run 0 "$work/info.txt" network info "$source_dir/inputs/default.yaml"
check "info counts" grep -q "100 species" "$work/info.txt"
check "export" run 0 "$work/export.txt" network export "$source_dir/inputs/quick.yaml" --output "$work/net.txt"
check "export refuses to overwrite" run 2 "$work/export2.txt" network export "$source_dir/inputs/quick.yaml" --output "$work/net.txt"
check "export --force" run 0 "$work/export3.txt" network export "$source_dir/inputs/quick.yaml" --output "$work/net.txt" --force
# q_values: header takes the file's Q values as written: the generator's own (its beta+ decays take
# Q_EC - 2 m_e c^2, and it sums an exchange's masses in its own order), so the results are its
# bit for bit; the default, masses, recomputes them (network/q_values.hpp).
sed -e 's/source: generator/source: file\n  q_values: header/' -e "s#preset: s16#file: $work/net.txt#" \
  "$source_dir/inputs/quick.yaml" >"$work/fromfile.yaml"
check "run from the exported file" run 0 "$work/qf.txt" "$work/fromfile.yaml" --set zones.count=64 --quiet \
  --threads 2 --summary "$work/qf.json"
check "file network gives the same results" test "$(json_value "$work/qf.json" result_hash)" = "$h1"
sed -e '/q_values: header/d' "$work/fromfile.yaml" >"$work/fromfile_masses.yaml"
check "run from the exported file, Q from masses" run 0 "$work/qm.txt" "$work/fromfile_masses.yaml" --set zones.count=64 \
  --quiet --threads 2

# A zone that fails (mass drift beyond a tiny bound) gives exit status 3 and is counted.
check "failed zones exit 3" run 3 "$work/fail.txt" "${quick[@]}" --set integrator.max_mass_drift=1e-15 \
  --summary "$work/fail.json"
check "failed zones counted" test "$(json_value "$work/fail.json" failed_zones)" -gt 0
# renormalize does not hide a failure: x0 -> x1 at k dt > 1 creates up to 3.4e-3 of the mass per
# step and 8.5e-3 in all (tests/test_step_control.cpp); the drift checked is the compounded one.
chain_drift=("$source_dir/inputs/decay_chain.yaml" --quiet --set 'network.rates=[2.0]' --set integrator.schedule=geometric
             --set integrator.start_time=0.1 --set integrator.dt_fraction=0.3 --set integrator.max_mass_drift=5e-3)
check "drifting zone exits 3" run 3 "$work/drift.txt" "${chain_drift[@]}"
check "drifting zone exits 3 with renormalize" run 3 "$work/drift_renorm.txt" "${chain_drift[@]}" \
  --set integrator.renormalize=true

# Every shipped small deck runs clean (the REACLIB one needs ../shared beside the checkout).
check "decay chain deck" run 0 "$work/chain.txt" "$source_dir/inputs/decay_chain.yaml" --quiet
for deck in s150 s365; do
  check "$deck deck (64 zones)" run 0 "$work/$deck.txt" "$source_dir/inputs/$deck.yaml" --quiet --set zones.count=64
done
if [ -f "$reaclib_data/rp-z12.reaclib" ] && [ -f "$reaclib_data/rp-z12.nuclides" ]; then
  check "REACLIB deck" run 0 "$work/rp.txt" "$source_dir/inputs/reaclib_rp.yaml" --quiet \
    --set "network.file=$reaclib_data/rp-z12.reaclib" --set "network.nuclides_file=$reaclib_data/rp-z12.nuclides"
  check "REACLIB deck network" grep -q "42 species, 176 reactions" "$work/rp.txt"
elif [ "${CI:-}" = true ]; then
  check "REACLIB data in $reaclib_data (ZONEODE_REACLIB_DATA; CI=true needs it)" false
else
  echo "note: no rp-z12.reaclib in $reaclib_data (ZONEODE_REACLIB_DATA), REACLIB deck not run"
fi

# Unknown names never fall back to a default: they are deck errors (exit 2) naming the key.
check "unknown network source" run 2 "$work/source.txt" "${quick[@]}" --set network.source=magic
check "unknown network source names the key" grep -q "network.source: expected one of" "$work/source.txt"
check "unknown profile" run 2 "$work/profile.txt" "${quick[@]}" --set zones.density.profile=spiral
check "unknown profile names the key" grep -q "zones.density.profile: expected one of" "$work/profile.txt"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
