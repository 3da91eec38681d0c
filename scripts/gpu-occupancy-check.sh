#!/usr/bin/env bash
# final's occupancy on NVIDIA, measured against pinned launches in one call on the GPU machine (issue 38):
# the study's problem (full burns of h832 with the measured occupancy and with run.kernel_config=128x0 (4 blocks/SM by registers), outputs
# compared bitwise; h6656 measured), what the measurement chose on (a) and (b) (short burns: the summary's
# "backend chose"), then scripts/gpu-ladder.sh on (a) and (b) with final beside final[kernel_config=128x0x6]
# (6 blocks/SM, the launch before the L1 rule). Needs the study's folder (STUDY_DIR, default .study, else
# ../shared/study) and a CUDA build (built here unless SKIP_BUILD=1).
# Usage: scripts/gpu-occupancy-check.sh OUT_DIR      Environment: ZONEODE_BUILD_DIR (build-gpu-implicit)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${1:?usage: scripts/gpu-occupancy-check.sh OUT_DIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
build=${ZONEODE_BUILD_DIR:-build-gpu-implicit}
study=${STUDY_DIR:-}
for candidate in .study ../shared/study; do [ -z "$study" ] && [ -f "$candidate/study-104.yaml" ] && study=$candidate; done
[ -n "$study" ] || { echo "no study folder (.study, ../shared/study or STUDY_DIR)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name --format=csv,noheader | tee "$out/gpu.txt"
if [ -z "${SKIP_BUILD:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF -DZONEODE_KERNEL=final >"$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
  cmake --build "$build" -j "$(nproc)" --target zoneode zoneode-compare zoneode-ceilings >"$out/build.log" 2>&1 ||
    { grep -B3 -A15 -m3 error "$out/build.log" | head -60; exit 1; }
  echo "built at $SECONDS s"
fi
zoneode=$build/zoneode
notes() { python3 -c "import json, sys; s = json.load(open(sys.argv[1])); print(round(s['ns_per_zone_step'], 2), 'ns/zs;', s.get('backend_notes', '-'))" "$1" 2>&1; }
{
  for n in 832 6656; do python3 "$study/make_study_init.py" "$n" "$work/start-$n.h5" >/dev/null; done
  for cell in 832:measured 832:unbounded 6656:measured; do
    n=${cell%%:*} how=${cell#*:} extra=()
    [ "$how" = unbounded ] && extra=(--set run.kernel_config=128x0)
    timeout -k 5 90 "$zoneode" "$study/study-104.yaml" --quiet --force --backend gpu --kernel final \
      --set zones.from_file="$work/start-$n.h5" "${extra[@]}" --set output.prefix="$work/h$n-$how" --summary "$work/h$n-$how.json" \
      >"$work/h$n-$how.log" 2>&1
    echo "h$n $how: $(notes "$work/h$n-$how.json")"
  done
  echo "h832 measured against 128x0 (4 blocks/SM by registers): $("$build/zoneode-compare" "$work/h832-measured_step000001.h5" \
    "$work/h832-unbounded_step000001.h5" --rtol 0 --atol 0 2>&1 | tail -1)"
  for r in a-s150 b-s150-hot; do
    timeout -k 5 60 "$zoneode" "inputs/bench/$r.yaml" --quiet --force --backend gpu --kernel final --set integrator.end_time=1e-8 \
      --set output.prefix="$work/$r" --summary "$work/$r.json" >/dev/null 2>&1
    echo "$r (1e-8 s): $(notes "$work/$r.json")"
  done
} 2>&1 | tee "$out/study.txt"
LADDER_SKIP_BUILD=1 ZONEODE_BUILD_DIR=$build LADDER_VARIANTS=final LADDER_REGIMES="a b" \
  LADDER_SWEEPS="final:kernel_config=128x0x6" LADDER_DEADLINE_S=${LADDER_DEADLINE_S:-100} \
  timeout -k 5 "${LADDER_TIMEOUT_S:-150}" bash scripts/gpu-ladder.sh "$out/ladder" >"$out/ladder-stdout.txt" 2>&1
grep -A6 "^regime " "$out/ladder/ladder.txt"
echo "== the script took $SECONDS s"
