#!/usr/bin/env bash
# bdf against Rodas3 on the GPU, to the same error (issue 37), in one call on the GPU machine: the
# implicit ladder (scripts/gpu-implicit-ladder.sh) run for Rodas3 (its kernels lds and final) at each
# regime's rtol, then for bdf (BDF_KERNELS, default final: the team kernel where a zone's LU fits in
# LDS, else one zone per thread) at each of BDF_RTOLS, every run
# validated against the CPU backend (the implicit rule) and every regime's achieved error measured
# against the CPU implicit method at REFERENCE_RTOL. The closing table puts each bdf rtol beside
# Rodas3: us per zone, achieved error, and Rodas3's time over bdf's.
#
# Usage: scripts/gpu-bdf-ladder.sh OUT_DIR [--dry-run]
# Environment (all optional):
#   BDF_REGIMES="s150 rpz24-short"   regimes of gpu-implicit-ladder.sh
#   BDF_RTOLS="1e-6 1e-8"            bdf's rtols (Rodas3 runs at the regime's own, 1e-6)
#   BDF_KERNELS="final"              bdf's kernels (baseline: one zone per thread; lds: the team)
#   RODAS3_KERNELS="lds final"       Rodas3's kernels
#   ZONES_s150=65536 ZONES_rpz24_short=8192 CPU_ZONES_rpz24_short=256   as in gpu-implicit-ladder.sh
#   REFERENCE_RTOL=1e-10 REFERENCE_ZONES=16
#   DEADLINE_RODAS3=330 DEADLINE_BDF=120   seconds each ladder may start runs for (the first builds)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${1:?usage: scripts/gpu-bdf-ladder.sh OUT_DIR [--dry-run]}
dry=${2:-}
case $dry in ""|--dry-run) ;; *) echo "gpu-bdf-ladder.sh: unknown argument '$dry' (expected --dry-run)" >&2; exit 2 ;; esac
mkdir -p "$out"
out=$(cd "$out" && pwd)
regimes=${BDF_REGIMES:-s150 rpz24-short}
export REFERENCE_RTOL=${REFERENCE_RTOL:-1e-10} REFERENCE_ZONES=${REFERENCE_ZONES:-16}
export ZONES_s150=${ZONES_s150:-65536} ZONES_rpz24_short=${ZONES_rpz24_short:-8192}
export CPU_ZONES_rpz24_short=${CPU_ZONES_rpz24_short:-256}
for r in $regimes; do
  v=ZONES_${r//-/_}; export "${v}_bdf=${!v:-}"
  v=CPU_ZONES_${r//-/_}; [ -n "${!v:-}" ] && export "${v}_bdf=${!v}"
done
start=$SECONDS

echo "== Rodas3: $regimes"
CHECKED_KERNELS="${RODAS3_KERNELS:-lds final}" TIMED_KERNELS="${RODAS3_KERNELS:-lds final}" IMPLICIT_REGIMES="$regimes" DEADLINE=${DEADLINE_RODAS3:-330} \
  bash scripts/gpu-implicit-ladder.sh "$out/rodas3" $dry >/dev/null 2>&1
tail -n +1 "$out/rodas3/ladder.txt" 2>/dev/null || tail -20 "$out/rodas3/ladder.log"
build=${ZONEODE_BUILD_DIR:-$([ -n "$dry" ] && echo build || echo build-gpu-implicit)}
for rtol in ${BDF_RTOLS:-1e-6 1e-8}; do
  echo "== bdf at rtol $rtol"
  bdf_regimes=$(for r in $regimes; do printf '%s-bdf ' "$r"; done)
  SKIP_BUILD=1 ZONEODE_BUILD_DIR=$build CHECKED_KERNELS="${BDF_KERNELS:-final}" TIMED_KERNELS="${BDF_KERNELS:-final}" \
    IMPLICIT_REGIMES="$bdf_regimes" \
    IMPLICIT_SET="integrator.rtol=$rtol ${IMPLICIT_SET:-}" DEADLINE=${DEADLINE_BDF:-120} \
    bash scripts/gpu-implicit-ladder.sh "$out/bdf-$rtol" $dry >/dev/null 2>&1
  tail -n +1 "$out/bdf-$rtol/ladder.txt" 2>/dev/null || tail -20 "$out/bdf-$rtol/ladder.log"
done

# ---- the side-by-side: each bdf cell beside Rodas3's final (and lds) at the same regime and zones
py=python3
{
  echo
  echo "bdf against Rodas3 on the GPU, $(date -u +%F), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo 'no GPU (dry run)')"
  "$py" - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def cells(path):
    return [json.loads(l) for l in open(path) if l.strip()] if os.path.exists(path) else []
rodas = {(c["regime"], c["zones"], c["kernel"]): c for c in cells(f"{out}/rodas3/cells.jsonl")}
print(f"{'regime':<12} {'zones':>6} {'bdf kernel':>10} {'bdf rtol':>8} {'bdf us':>9} {'bdf err':>8} {'R3 final us':>11} {'R3 lds us':>9} {'R3 err':>8} {'R3/bdf':>7}  bdf validation")
for path in sorted(glob.glob(f"{out}/bdf-*/cells.jsonl")):
    rtol = os.path.basename(os.path.dirname(path))[len("bdf-"):]
    for c in cells(path):
        base = c["regime"].removesuffix("-bdf")
        f, l = rodas.get((base, c["zones"], "final")), rodas.get((base, c["zones"], "lds"))
        fmt = lambda v, p: (p % v) if v is not None else "-"
        best = min([x["us_per_zone"] for x in (f, l) if x and x["us_per_zone"]], default=None)
        ratio = best / c["us_per_zone"] if best and c["us_per_zone"] else None
        print(f"{base:<12} {c['zones']:>6} {c['kernel']:>10} {rtol:>8} {fmt(c['us_per_zone'], '%.1f'):>9} {fmt(c.get('error'), '%.1e'):>8} "
              f"{fmt(f and f['us_per_zone'], '%.1f'):>11} {fmt(l and l['us_per_zone'], '%.1f'):>9} "
              f"{fmt((f or l or {}).get('error'), '%.1e'):>8} {fmt(ratio, '%.2f'):>7}  {c['validation']}")
print("(R3: Rodas3 at the regime's rtol, 1e-6; R3/bdf: the faster Rodas3 kernel's time over bdf's; err: the achieved")
print(" error against the CPU implicit method at REFERENCE_RTOL on the first REFERENCE_ZONES zones, see gpu-implicit-ladder.sh)")
PY
  echo "== the script took $((SECONDS - start)) s"
} | tee "$out/bdf-ladder.txt"
