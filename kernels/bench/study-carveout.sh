#!/usr/bin/env bash
# Issue 38's open question, one GPU call: why the study's network (hyp150) costs 2.1x the generated
# s150 in `final` at 832 zones. The hypothesis (kernels/EXPERIMENTS.md, "The study's network"):
# six 128-thread blocks per SM need 198.8 KiB of shared memory for hyp150 (193.9 KiB for s150), over
# the H100's 196 KiB carve-out step, which leaves 28 KiB of L1 for hyp150's 47.6 KiB step block.
# Times `final` (unchecked: a cost experiment) on hyp150, s150 (d832) and s150r (r832) at 832 zones,
# each with the default launch (128x0x6) and with 5 blocks per SM (128x0x5, under 196 KiB).
# Usage: kernels/bench/study-carveout.sh BUILD_DIR STUDY_DIR OUT_DIR (STUDY_DIR: ../shared/study)
set -uo pipefail
build=${1:?usage: BUILD_DIR STUDY_DIR OUT_DIR} study=${2:?} out=${3:?}
mkdir -p "$out"
py=python3
"$py" "$study/make_study_init.py" 832 "$out/h832.h5" "$study/hyp150.znet" >/dev/null
"$build/zoneode" network export inputs/bench/d-s150-co-104.yaml --set network.preset=s150r --output "$out/s150r.znet" >/dev/null 2>&1
"$py" scripts/make_start_file.py "$out/s150r.znet" 832 "$out/r832.h5" 5 1e8 c12=0.04166 o16=0.03125 >/dev/null
run() {  # NAME DECK ARGS...
  local name=$1; shift
  timeout 120 "$build/zoneode" "$@" --backend gpu --kernel final --quiet --force --set output.prefix="$out/$name" \
    --summary "$out/$name.json" >"$out/$name.log" 2>&1
  echo "$name: exit $?, $("$py" -c "import json; s=json.load(open('$out/$name.json')); print(f\"{s['ns_per_zone_step']:.2f} ns per zone-step\")" 2>/dev/null || echo -); $(grep -o 'rank 0 -> .*' "$out/$name.log" | head -1 | cut -c60-260)"
}
for config in "" 128x0x5 128x0x6; do
  set_config=()
  [ -n "$config" ] && set_config=(--set run.kernel_config="$config")
  run "h832${config:+-$config}" "$study/study-104.yaml" --set zones.from_file="$out/h832.h5" "${set_config[@]}"
  run "d832${config:+-$config}" inputs/bench/d-s150-co-104.yaml --set zones.count=832 "${set_config[@]}"
  run "r832${config:+-$config}" inputs/bench/r-s150r-study-832.yaml --set zones.from_file="$out/r832.h5" "${set_config[@]}"
done
