#!/usr/bin/env bash
# Hostile input (issue 11): every case is refused with exit 2 and a message naming the file (and
# line or dataset) and the key, within a time limit; none crashes, hangs or is silently accepted.
# Usage: hostile_inputs.sh ZONEODE ZONEODE_COMPARE SOURCE_DIR [PYTHON]
# The HDF5 cases are made with h5py (make_state_files.py); without it they are skipped, unless
# CI=true, where that is a failure. With ZONEODE_OUTCOMES=FILE each hostile case also appends
# "CASE EXIT_STATUS pass|fail" to FILE, to count outcomes by class for any binary, an old one
# included (tests/fault/outcomes.sh).
set -uo pipefail
zoneode=$1
compare=$2
source_dir=$3
python=${4:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"  # check, passes, failures, mpi_flags
cd "$work" || exit 1
limit_s=30  # per command: a hang is a failure, not a stuck test

outcome() {  # outcome CASE STATUS RESULT: for ZONEODE_OUTCOMES
  [ -n "${ZONEODE_OUTCOMES:-}" ] && echo "$1 $2 $3" >>"$ZONEODE_OUTCOMES"
  [ "$3" = pass ]
}
quietly() {  # quietly COMMAND...: runs it with a time limit, output shown only on failure
  timeout "$limit_s" "$@" >quiet.log 2>&1 || { echo "  $(printf '%.200s' "$*") exited $?"; tail -5 quiet.log; return 1; }
}
# refused LOG PATTERN ARGS...: zoneode exits 2 within the limit and LOG matches PATTERN (grep -E).
refused() {
  local log=$1 pattern=$2; shift 2
  timeout "$limit_s" "$zoneode" "$@" >"$log" 2>&1
  local status=$?
  if [ "$status" -ne 2 ]; then
    echo "  zoneode $(printf '%.200s' "$*") exited $status, expected 2"; tail -c 600 "$log"; echo
    outcome "${log%.log}" "$status" fail; return 1
  fi
  grep -qE -- "$pattern" "$log" || { echo "  message does not match '$pattern':"; tail -c 600 "$log"; echo
                                     outcome "${log%.log}" "$status" fail; return 1; }
  # One short message: a bad value is quoted in part, never whole.
  local longest; longest=$(awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' "$log")
  [ "$longest" -le 400 ] || { echo "  a message line of $longest characters"; outcome "${log%.log}" "$status" fail; return 1; }
  outcome "${log%.log}" "$status" pass
}

deck="$source_dir/inputs/quick.yaml"
small=(--quiet --set zones.count=8 --set integrator.end_time=1e-4)

# ---- The deck ----
# A key given twice: yaml-cpp kept the first silently.
sed 's/^  seed: 1$/  seed: 1\n  count: 9/' "$deck" >dup.yaml
check "duplicate key refused" refused dup.log "dup.yaml:10:3: zones.count: given twice \(first at line 8\)" dup.yaml --quiet
# A second document after '---' or '...': never parsed before, garbage included.
{ cat "$deck"; printf -- '---\nzones: {count: -1}\n'; } >doc2.yaml
check "second document refused" refused doc2.log "doc2.yaml:2[0-9]:[0-9]+: a second YAML document" doc2.yaml --quiet
{ cat "$deck"; printf -- '...\n]]] garbage\n'; } >docend.yaml
check "garbage after '...' refused" refused docend.log "docend.yaml:[0-9]+:[0-9]+: (YAML syntax error|a second YAML document)" docend.yaml --quiet
# A tag is never read.
sed 's/count: 512/count: !!str 512/' "$deck" >tag.yaml
check "tag refused" refused tag.log "tag.yaml:8:10: zones.count: tag 'tag:yaml.org,2002:str' is not read" tag.yaml --quiet
# A NUL byte in a scalar was dropped.
sed 's/preset: s16/preset: s1\x006/' "$deck" >nul.yaml
check "NUL byte refused" refused nul.log "nul.yaml:6:13: a NUL byte" nul.yaml --quiet
# A deck cut in its last line, leaving a bare known key, ran with the default.
{ cat "$deck"; printf '  max_steps:\n'; } >cut.yaml
check "bare key refused" refused cut.log "cut.yaml:21:3: integrator.max_steps: expected a value, got nothing" cut.yaml --quiet
# A key that is no name: "bad conversion", with neither file nor key.
sed 's/^  seed: 1$/  seed: 1\n  [a, b]: 1/' "$deck" >listkey.yaml
check "non-scalar key refused" refused listkey.log "listkey.yaml:10:3: zones: expected a key name, got a list" listkey.yaml --quiet
# --set with an empty last key part was read as the section itself, and the error blamed the deck.
check "--set zones.=5 refused" refused setdot.log "^zoneode: --set zones\.=5: expected section.key=value, got an empty key part" "$deck" --set zones.=5
check "--set .zones=5 refused" refused setdot2.log "^zoneode: --set \.zones=5: .*empty key part" "$deck" --set .zones=5
# An unknown key set on the command line is the option's fault, not the deck's.
check "--set nosuch.key named" refused nosuch.log "^zoneode: --set nosuch\.key=1: unknown key 'nosuch'" "$deck" --set nosuch.key=1
# A bad value of 5 MB is quoted in part (refused() checks the line length).
awk '/preset: s16/ { printf "  preset: "; for (i = 0; i < 5000000; ++i) printf "x"; print ""; next } { print }' \
  "$deck" >bigvalue.yaml
check "5 MB value quoted in part" refused bigvalue.log "network.preset: expected one of .*, got 'x{80}\.\.\. \(5000000 bytes\)'" bigvalue.yaml --quiet
# A composition map of 40k entries was read in O(N^2) (over 20 s before the first entry was refused).
# Timed against a 4k-entry map, so that a slow machine or a sanitizer build does not matter:
# linear reading takes about 10 times as long for 10 times the entries, quadratic about 100 times.
composition_deck() {  # composition_deck ENTRIES FRACTION FILE: ENTRIES x FRACTION = 1
  { sed '/^  composition:/,$d' "$deck"; echo "  composition:"; seq 1 "$1" | sed "s/^/    x/; s/$/: $2/"
    sed -n '/^integrator:/,$p' "$deck"; } >"$3"
}
composition_deck 4000 0.00025 map4k.yaml
composition_deck 40000 0.000025 bigmap.yaml
start=$(date +%s.%N)
check "4k-entry composition refused" refused map4k.log "map4k.yaml:1[0-9]:[0-9]+: zones.composition.x1: expected a species of network" map4k.yaml --quiet
small_s=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
check "40k-entry composition refused" refused bigmap.log "bigmap.yaml:1[0-9]:[0-9]+: zones.composition.x1: expected a species of network" bigmap.yaml --quiet
big_s=$(echo "$(date +%s.%N) - $start" | bc)
check "40k entries in under 40 times the time of 4k ($big_s s vs $small_s s)" test "$(echo "$big_s < 40 * $small_s + 0.5" | bc)" -eq 1

# ---- Network readers: a bad value of 5 MB is quoted in part (REACLIB, nuclide list, network file),
# as the deck's are; the messages echoed the whole line (refused() checks the line length).
x5mb() { head -c 5000000 /dev/zero | tr '\0' x; }
network_deck() {  # network_deck FILE NETWORK: quick.yaml with another network section
  { echo "network: $2"; sed -n '/^zones:/,$p' "$deck"; } >"$1"
}
{ x5mb; echo; } >chapter.reaclib
network_deck chapter.yaml "{source: reaclib, file: chapter.reaclib, nuclides: [he4, c12]}"
check "REACLIB 5 MB chapter line quoted in part" refused chapter.log \
  "chapter\.reaclib:1: chapter line 'x{80}\.\.\. \(5000000 bytes\)' is not a chapter number" chapter.yaml --quiet
coefficients=' 0.000000e+00 0.000000e+00 0.000000e+00 0.000000e+00'
{ printf '1\n%5s%-5s%-5s%20s%8s%-4s%s%s%3s%s' '' he4 c12 '' '' test n ' ' '' 1.0; x5mb; printf '\n%s\n%s\n' "$coefficients" "${coefficients:0:39}"; } >qvalue.reaclib
network_deck qvalue.yaml "{source: reaclib, file: qvalue.reaclib, nuclides: [he4, c12]}"
check "REACLIB 5 MB Q value quoted in part" refused qvalue.log \
  "qvalue\.reaclib:2: Q value '1\.0x{77}\.\.\. \(5000003 bytes\)' is not a number" qvalue.yaml --quiet
{ echo he4; x5mb; echo; } >keep.nuclides
network_deck keep.yaml "{source: reaclib, file: chapter.reaclib, nuclides_file: keep.nuclides}"
check "nuclide list 5 MB name quoted in part" refused keep.log \
  "keep\.nuclides:2: 'x{80}\.\.\. \(5000000 bytes\)' is not a nuclide name" keep.yaml --quiet
network_file="$source_dir/tests/fuzz/seeds/network_file/quick.network"  # its line 5: "n 0 1 8.07..."
{ x5mb; echo; tail -n +2 "$network_file"; } >magic.network
network_deck magic.yaml "{source: file, file: magic.network}"
check "network file 5 MB magic line quoted in part" refused magic.log \
  "magic\.network:1: bad magic line 'x{80}\.\.\. \(5000000 bytes\)'" magic.yaml --quiet
{ head -n 4 "$network_file"; printf 'n 0'; x5mb; sed -n '5s/^n 0//p' "$network_file"; tail -n +6 "$network_file"; } >number.network
network_deck number.yaml "{source: file, file: number.network}"
check "network file 5 MB number quoted in part" refused number.log \
  "number\.network:5: bad number '0x{79}\.\.\. \(5000001 bytes\)' for Z" number.yaml --quiet
{ x5mb; echo; } >x5mb.txt
awk 'NR == FNR { x = $0; next } /^reaction / && !done { sub(/ -> /, " n" x " -> "); done = 1 } { print }' \
  x5mb.txt "$network_file" >species.network
network_deck species.yaml "{source: file, file: species.network}"
check "network file 5 MB species name quoted in part" refused species.log \
  "species\.network:[0-9]+: unknown species 'nx{79}\.\.\. \(5000001 bytes\)'" species.yaml --quiet

# A zone count too large to hold: was std::bad_alloc, exit 1, no key named (or, below the address
# space but beyond the memory, the OOM killer mid-run). Refused before any work or file: no folder made.
check "4e12 zones refused (--set)" refused count.log "^zoneode: --set zones\.count=4000000000000: zones\.count: 4000000000000 zones need [0-9]+ bytes of memory \([0-9]+ bytes per zone.*\), more than .*; at most [0-9]+ zones fit" \
  "$deck" --quiet --set zones.count=4000000000000 --set output.prefix="$work/count_out/run"
check "4e12 zones: no output folder made" test ! -e "$work/count_out"
sed 's/count: 512/count: 4000000000000/' "$deck" >count.yaml
check "4e12 zones refused (deck)" refused count2.log "^zoneode: count\.yaml:8:10: zones\.count: 4000000000000 zones need [0-9]+ bytes" count.yaml --quiet
# Under ulimit -v (skipped where the binary cannot run under one, as with AddressSanitizer): beyond
# it, refused before allocating; just below it, the allocation fails and names the key too.
if (ulimit -v 3000000 && "$zoneode" "$deck" "${small[@]}" >/dev/null 2>&1) 2>/dev/null; then
  refused_3gb() { (ulimit -v 3000000 && refused "$@"); }
  check "20M zones over ulimit -v refused" refused_3gb ulimit.log "zones\.count: 20000000 zones need [0-9]+ bytes of memory .*more than RLIMIT_AS" \
    "$deck" --quiet --set zones.count=20000000
  check "12M zones under ulimit -v refused" refused_3gb ulimit2.log "zones\.count: 12000000 zones(: cannot allocate| need .*more than RLIMIT_AS)" \
    "$deck" --quiet --set zones.count=12000000 --set integrator.end_time=1.1e-10
else
  echo "ulimit -v: skipped (the binary does not run under one)"
fi

# ---- State files (HDF5) ----
have_h5py=0
"$python" -c "import h5py" 2>/dev/null && have_h5py=1
if [ "$have_h5py" -eq 0 ]; then
  echo "no h5py for $python: the HDF5 cases are skipped"
  [ "${CI:-}" = true ] && { echo "FAIL: CI needs python3-h5py (scripts/install_dependencies.sh)"; failures=$((failures + 1)); }
else
  steps=(--set steps.count=2 --set output.prefix="$work/base")
  check "base run" quietly "$zoneode" "$deck" "${small[@]}" "${steps[@]}"
  check "hostile files made" "$python" "$source_dir/tests/hostile/make_state_files.py" base_step000001.h5 "$work"
  restart=("$deck" "${small[@]}" --set steps.count=2 --set output.prefix="$work/again" --force --restart)
  # Attributes of more than one element overflowed a buffer (SIGSEGV, SIGABRT); 1.5 or [1, 1] read as step 1.
  check "outer_step [1,1]" refused s2.log "step_two_elements.h5: attribute outer_step: expected one integer, got 2 values" "${restart[@]}" step_two_elements.h5
  check "outer_step [4096]" refused s4096.log "step_many_elements.h5: attribute outer_step: expected one integer, got 4096 values" "${restart[@]}" step_many_elements.h5
  check "time [4096]" refused t4096.log "time_many_elements.h5: attribute time: expected one number, got 4096 values" "${restart[@]}" time_many_elements.h5
  check "network_hash [2]" refused h2.log "hash_two_elements.h5: attribute network_hash: holds 2 value\(s\), expected 1" "${restart[@]}" hash_two_elements.h5
  check "network_hash [1000] vlen" refused h1000.log "hash_many_vlen.h5: attribute network_hash: holds 1000 value\(s\), expected 1" "${restart[@]}" hash_many_vlen.h5
  check "outer_step 1.5" refused s15.log "step_fraction.h5: attribute outer_step: expected one integer, got a floating-point value" "${restart[@]}" step_fraction.h5
  check "outer_step '1'" refused stext.log "step_text.h5: attribute outer_step: expected one integer, got a string value" "${restart[@]}" step_text.h5
  # UTF-8 variable-length species names (h5py's default) are read, by zoneode and zoneode-compare.
  check "UTF-8 names restart" quietly "$zoneode" "${restart[@]}" names_utf8_vlen.h5
  check "UTF-8 names compare" quietly "$compare" base_step000001.h5 names_utf8_vlen.h5 --quiet
  # Zones from a file: none, 2^31 declared and never written (ran on), 2^59 (bad_alloc, exit 1).
  printf 'network: {source: generator, preset: s16}\nzones: {from_file: base_step000001.h5}\nintegrator: {end_time: 1.0e-4}\n' >from.yaml
  check "from_file works" quietly "$zoneode" from.yaml --quiet
  check "0 zones named" refused zero.log "zones.from_file: '$work/zero_zones.h5' holds no zones" from.yaml --quiet --set zones.from_file=zero_zones.h5
  check "2^31 zones refused" refused z31.log "zones_2e31.h5: /abundances: declares \[2147483648\]\[16\] \(274877906944 bytes\) but stores 0 bytes" from.yaml --quiet --set zones.from_file=zones_2e31.h5
  check "2^59 zones refused" refused z59.log "zones_2e59.h5: /abundances: declares \[576460752303423488\]\[16\] \(over 2\^64 bytes\)" from.yaml --quiet --set zones.from_file=zones_2e59.h5
  check "2^31 zones restart refused" refused z31r.log "zones_2e31.h5: /abundances: declares" "${restart[@]}" zones_2e31.h5
  # 2^33 zones stored (sparse external raw files): past that check, more than any machine's memory.
  check "2^33 stored zones refused" refused z33.log "zones\.from_file: '.*zones_2e33_stored\.h5': /abundances: 8589934592 zones need [0-9]+ bytes of memory" \
    from.yaml --quiet --set zones.from_file=zones_2e33_stored.h5
  check "2^33 stored zones restart refused" refused z33r.log "^zoneode: --restart: 'zones_2e33_stored\.h5': /abundances: 8589934592 zones need" \
    "${restart[@]}" zones_2e33_stored.h5 --set zones.count=8589934592
  # zoneode-compare: the element count of [2^59][16] overflowed, then it looped for ever.
  compare_refuses() {
    timeout "$limit_s" "$compare" zones_2e59.h5 zones_2e59.h5 --quiet >cmp59.log 2>&1
    local status=$?
    [ "$status" -eq 2 ] && grep -q "zones_2e59.h5: /abundances: declares" cmp59.log || { echo "  exit $status"; cat cmp59.log
                                                                                      outcome compare_2e59 "$status" fail; return 1; }
    outcome compare_2e59 "$status" pass
  }
  check "compare [2^59][16] refused at once" compare_refuses
  # Every hostile file through zoneode-compare: a difference or an error, never a crash or a hang.
  for file in step_two_elements step_many_elements time_many_elements hash_two_elements hash_many_vlen step_fraction \
              step_text zero_zones zones_2e31; do
    compare_ends() {
      timeout "$limit_s" "$compare" base_step000001.h5 "$1.h5" --quiet >/dev/null 2>&1
      local status=$?
      [ "$status" -eq 1 ] || [ "$status" -eq 2 ] || { echo "  zoneode-compare on $1.h5 exited $status"
                                                       outcome "compare_$1" "$status" fail; return 1; }
      outcome "compare_$1" "$status" pass
    }
    check "compare $file ends with 1 or 2" compare_ends "$file"
  done
fi

echo "hostile_inputs: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
