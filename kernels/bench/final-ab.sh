#!/usr/bin/env bash
# Two builds of `final` side by side on the GPU machine: full burns of the study's problem (h104,
# h832, h6656; needs the study's folder) and the 65,536-zone regimes (a) and (c1), the two builds
# interleaved run by run, each cell's median ns per zone-step, the ratio B / A and whether every run
# of a cell gave one result hash (a change meant to keep the bits must); then B's h104 against the
# CPU backend at 1e-12 (zoneode-compare), so that what is timed is validated in the same call.
# Implicit cells (the team kernels, `lds`; for changes meant to keep the bits, which the result
# hashes then check): rpz24-short to 1e-3 s at 2,048 zones, bdf (bdf, bdfh self-heated with the
# e-/e+ table) and Rodas3 (rod, rodh), and s150-hot at 8,192 zones (s150b bdf, s150r Rodas3).
# Usage: kernels/bench/final-ab.sh OUT BUILD_A BUILD_B   (folders holding zoneode and zoneode.bin;
#        BUILD_A also zoneode-compare)
# Environment: AB_REPS=3 (h6656: AB_REPS_6656=2), AB_CELLS="h104 h832 a c1 h6656", AB_RUN_TIMEOUT=100,
#   STUDY_DIR (else .study or ../shared/study); on the machine: LD_LIBRARY_PATH for the carried libraries.
# OUT gets ab.txt (every run, then the table).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
out=${1:?usage: kernels/bench/final-ab.sh OUT BUILD_A BUILD_B}
a=${2:?BUILD_A}
b=${3:?BUILD_B}
mkdir -p "$out" && out=$(cd "$out" && pwd)
o=$out/ab.txt
study=${STUDY_DIR:-}
for candidate in .study ../shared/study; do [ -z "$study" ] && [ -f "$candidate/study-104.yaml" ] && study=$candidate; done
[ -n "$study" ] && [ ! -f "$study/study-104.yaml" ] && study=
cells=${AB_CELLS:-h104 h832 a c1 h6656}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"; } | tee "$o"
echo "A: $a   B: $b   cells: $cells   study: ${study:-none (h* cells skipped)}" | tee -a "$o"
for n in 104 832 6656; do
  [ -n "$study" ] && python3 "$study/make_study_init.py" "$n" "$w/start-$n.h5" >/dev/null
done
deck_of() {
  case $1 in
    h104 | h832 | h6656) [ -n "$study" ] && echo "$study/study-104.yaml --set zones.from_file=$w/start-${1#h}.h5" ;;
    a) echo inputs/bench/a-s150.yaml ;;
    c1) echo inputs/bench/c1-rpz24-hot.yaml ;;
    bdf | bdfh | rod | rodh)
      local method=implicit heat=
      case $1 in bdf*) method=bdf ;; esac
      case $1 in *h) heat="--set physics.self_heating=true --set physics.eos=table" ;; esac
      echo "inputs/bench/implicit/rpz24-short.yaml --set integrator.method=$method --set integrator.schedule=adaptive" \
        "--set integrator.end_time=1e-3 --set zones.count=2048 $heat" ;;
    s150b) echo inputs/bench/implicit/s150-hot.yaml --set integrator.method=bdf --set integrator.schedule=adaptive --set zones.count=8192 ;;
    s150r) echo inputs/bench/implicit/s150-hot.yaml --set integrator.method=implicit --set integrator.schedule=adaptive --set zones.count=8192 ;;
  esac
}
kernel_of() { case $1 in h104 | h832 | h6656 | a | c1) echo final ;; *) echo lds ;; esac; }
burn() {  # NAME BUILD CELL: one run, its ns per zone-step and result hash
  local name=$1 build=$2 deck
  deck=$(deck_of "$3")
  [ -n "$deck" ] || { echo "$name skipped: no study folder"; return; }
  # shellcheck disable=SC2086
  timeout -k 5 "${AB_RUN_TIMEOUT:-100}" "$build/zoneode" $deck --quiet --force --backend gpu --kernel "$(kernel_of "$3")" \
    --set output.prefix= --summary "$w/$name.json" >"$w/$name.log" 2>&1 ||
    { echo "$name rc $? $(tail -2 "$w/$name.log" | tr '\n' ' ')"; return; }
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(sys.argv[2], '%.2f' % s['ns_per_zone_step'], s['result_hash'])" \
    "$w/$name.json" "$name"
}
for rep in $(seq 1 "${AB_REPS:-3}"); do
  for cell in $cells; do
    [ "$cell" = h6656 ] && [ "$rep" -gt "${AB_REPS_6656:-2}" ] && continue
    burn "$cell.A.$rep" "$a" "$cell" | tee -a "$o"
    burn "$cell.B.$rep" "$b" "$cell" | tee -a "$o"
  done
done
python3 - "$o" <<'PY' | tee -a "$o"
import collections, statistics, sys
times, hashes = collections.defaultdict(list), collections.defaultdict(set)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3 and f[0].count('.') == 2:
        cell, build, _ = f[0].split('.')
        times[(cell, build)].append(float(f[1]))
        hashes[cell].add(f[2])
print("cell     A median   B median    B / A   runs   result hashes")
for cell in dict.fromkeys(c for c, _ in times):
    ta, tb = times.get((cell, 'A'), []), times.get((cell, 'B'), [])
    if ta and tb:
        same = 'one (bitwise)' if len(hashes[cell]) == 1 else 'DIFFER: ' + ' '.join(sorted(hashes[cell]))
        print(f"{cell:7} {statistics.median(ta):9.2f} {statistics.median(tb):10.2f} {statistics.median(tb) / statistics.median(ta):8.3f}   {len(ta)}/{len(tb)}    {same}")
PY
if [ -n "$study" ]; then
  timeout 120 "$b/zoneode" "$study/study-104.yaml" --quiet --force --backend gpu --kernel final \
    --set zones.from_file="$w/start-104.h5" --set output.prefix="$w/v-gpu" >"$w/v-gpu.log" 2>&1
  timeout 300 "$b/zoneode" "$study/study-104.yaml" --quiet --force --backend cpu --threads "$(nproc)" \
    --set zones.from_file="$w/start-104.h5" --set output.prefix="$w/v-cpu" >"$w/v-cpu.log" 2>&1
  echo "B's h104 against the CPU backend (rtol 1e-12): $("$a/zoneode-compare" "$w/v-cpu_step000001.h5" "$w/v-gpu_step000001.h5" \
    --rtol 1e-12 --atol 1e-28 2>&1 | tail -2 | tr '\n' ' ')" | tee -a "$o"
fi
