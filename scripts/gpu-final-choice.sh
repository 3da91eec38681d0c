#!/usr/bin/env bash
# final's two launch choices of 2026-12-06, measured in one GPU call (issues 38 and 36):
# 1. the explicit final's occupancy that leaves L1 to the network (kernels/asymptotic/kernel_common.hpp,
#    size_grid): the study's problem (h104, h832, h6656, where ../shared/study or .study is present) and
#    r832, final as it plans now beside final pinned to the old launch (run.kernel_config=128x0x6),
#    each validated against the CPU (scripts/gpu-ladder.sh);
# 2. the implicit final's calibrated choice among lds, wave, baseline and generated
#    (run.kernel_choice calibrated, kernels/runtime/gpu_backend.hip): final beside lds and generated
#    on the default network and s150
#    (scripts/gpu-implicit-ladder.sh, the implicit validation rule).
# Usage: scripts/gpu-final-choice.sh OUT_DIR   (about 9 minutes on an H100; every run has a timeout)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${1:?usage: scripts/gpu-final-choice.sh OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export PATH=$PATH:/usr/local/cuda/bin
build=${ZONEODE_BUILD_DIR:-build-final-choice}
start=$SECONDS
echo "== gpu-final-choice $(date -u +%FT%TZ), commit $(git rev-parse --short=12 HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo '+changes'), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
if [ -z "${SKIP_BUILD:-}" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=OFF -DZONEODE_KERNEL=final >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
  timeout 300 cmake --build "$build" -j "$(nproc)" --target zoneode zoneode-compare zoneode-ceilings >>"$out/build.log" 2>&1 ||
    { grep -B5 -A20 -m3 "error" "$out/build.log" | head -60; exit 1; }
  echo "== built in $((SECONDS - start)) s"
fi
study=
for candidate in ../shared/study shared/study .study; do [ -f "$candidate/hyp150.znet" ] && { study=$candidate; break; }; done
regimes="r832"
[ -n "$study" ] && regimes="h104 h832 h6656 r832"
export ZONEODE_KERNEL_CACHE=$out/kernel-cache
LADDER_SKIP_BUILD=1 ZONEODE_BUILD_DIR=$build LADDER_STUDY_DIR=$study LADDER_REGIMES=$regimes LADDER_VARIANTS=final \
  LADDER_SWEEPS="final:kernel_config=128x0x6" LADDER_DEADLINE_S=${STUDY_DEADLINE_S:-240} LADDER_RUN_TIMEOUT_S=90 \
  timeout 330 scripts/gpu-ladder.sh "$out/study" >"$out/study.log" 2>&1
echo "== study ladder: exit $? at $((SECONDS - start)) s"
sed -n '/^regime/,$p' "$out/study/ladder.txt" 2>/dev/null | head -30
left=$((570 - SECONDS))
if [ "$left" -gt 90 ]; then
  SKIP_BUILD=1 ZONEODE_BUILD_DIR=$build IMPLICIT_SET="run.kernel_choice=calibrated" IMPLICIT_REGIMES="${IMPLICIT_REGIMES:-default s150}" IMPLICIT_ZONES="${IMPLICIT_ZONES:-65536}" \
    TIMED_KERNELS="lds generated final" CHECKED_KERNELS="lds generated final" CPU_ZONES=512 DEADLINE=$((left - 40)) RUN_TIMEOUT=90 \
    timeout "$left" scripts/gpu-implicit-ladder.sh "$out/implicit" >"$out/implicit.log" 2>&1
  echo "== implicit ladder: exit $? at $((SECONDS - start)) s"
  sed -n '/^regime/,$p' "$out/implicit/ladder.txt" 2>/dev/null | cut -c1-200 | head -20
  tar -xzOf "$out/implicit/logs.tgz" --wildcards '*.json' 2>/dev/null | grep -o '"backend_notes": "[^"]*"' | sort | uniq -c | cut -c1-400
else
  echo "== implicit ladder: no time left ($left s)"
fi
