#!/usr/bin/env bash
# Every GPU measurement and check of a session, in two calls on the GPU machine that share one
# build (device time is scarce: one build, no idle machine between the calls):
#   scripts/gpu-all.sh ladder OUT   builds build-gpu (CUDA, every variant, tests, resource report),
#                                   then the kernel ladder on every regime (scripts/gpu-ladder.sh)
#   scripts/gpu-all.sh checks OUT   on that build: ctest -L gpu, the implicit method
#                                   (scripts/gpu-implicit-ladder.sh, two regimes), the physics options
#                                   (scripts/gpu-physics.sh), the accuracy-cost GPU rows
#                                   (scripts/accuracy-cost.sh --gpu), compute-sanitizer memcheck of
#                                   the new kernels, and the multi-rank plumbing (scripts/gpu-scaling.sh)
# Each part has a time budget (seconds, environment: BUDGET_<PART>) so that a call ends with its
# tables; SKIP_PARTS="implicit scaling ..." leaves parts out (a call that re-measures only what
# changed). OUT gets at most 8 files: summary.txt (every table), one folder's tarball per part.
# ZONEODE_COMMIT names the commit in the logs (the machine's copy of the tree has no .git).
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: scripts/gpu-all.sh ladder|checks OUT}
out=${2:-${OUT:?usage: scripts/gpu-all.sh ladder|checks OUT}}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export ZONEODE_BUILD_DIR=build-gpu PATH=$PATH:/usr/local/cuda/bin
build=$ZONEODE_BUILD_DIR cores=$(nproc) t0=$SECONDS
summary=$out/summary.txt
log() { echo "$*" | tee -a "$summary"; }
# part NAME BUDGET_S COMMAND...: runs one part under its budget, its output kept in OUT/NAME.log
part() {
  local name=$1 budget=$2; shift 2
  [[ " ${SKIP_PARTS:-} " == *" ${name%%-*} "* ]] && { log "== $name skipped (SKIP_PARTS)"; return 0; }
  log "== $name (budget ${budget} s, at $((SECONDS - t0)) s)"
  timeout --kill-after=10 "$budget" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  [ $rc -eq 124 ] && log "   $name stopped at its budget"
  log "   $name exit $rc after $((SECONDS - t0)) s"
  return 0
}
log "== gpu-all $what $(date -u +%FT%TZ), commit ${ZONEODE_COMMIT:-unknown}, $cores cores, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"

case $what in
  ladder)
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZONEODE_GPU=CUDA -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DCMAKE_CUDA_FLAGS=-lineinfo -DZONEODE_KERNEL=all -DZONEODE_HDF5=SERIAL -DZONEODE_TESTS=ON \
      -DZONEODE_GPU_RESOURCE_REPORT=ON >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
    cmake --build "$build" -j "$cores" --target zoneode zoneode-compare zoneode-ceilings zoneode_gpu_tests \
      >"$build/build-report.log" 2>&1 || { grep -B5 -A20 -m3 " error" "$build/build-report.log" | head -60; exit 1; }
    log "built in $((SECONDS - t0)) s"
    grep -E "Compiling entry|registers|spill" "$build/build-report.log" | sed 's/ptxas info *: //' | paste - - - \
      >"$out/resources-sm90.txt" || true
    LADDER_SKIP_BUILD=1 LADDER_DEADLINE_S=${BUDGET_LADDER_CELLS:-300} scripts/gpu-ladder.sh "$out/ladder" \
      >"$out/ladder.log" 2>&1
    log "ladder exit $? after $((SECONDS - t0)) s"
    sed -n '/^== the ladder/,$p' "$out/ladder/ladder.txt" >>"$summary" 2>/dev/null
    [ -f kernels/bench/ladder_report.py ] && python3 kernels/bench/ladder_report.py markdown "$out/ladder/ladder.json" \
      >"$out/ladder.md" 2>/dev/null
    (cd "$out/ladder" && tar czf "$out/ladder.tgz" . && cd "$out" && rm -rf "$out/ladder")
    ;;
  checks)
    [ -x "$build/zoneode" ] || { log "no $build/zoneode: run the ladder part first"; exit 1; }
    # gpu_physics repeats what scripts/gpu-physics.sh validates below (and times)
    part ctest-gpu "${BUDGET_CTEST:-150}" ctest --test-dir "$build" -L gpu -E gpu_physics --output-on-failure
    grep -E "tests passed|tests failed|Passed|Failed|\*\*\*" "$out/ctest-gpu.log" | tail -6 | tee -a "$summary"
    part implicit "${BUDGET_IMPLICIT:-200}" env SKIP_BUILD=1 ZONEODE_BUILD_DIR="$build" DEADLINE=170 \
      IMPLICIT_REGIMES="s150 default" IMPLICIT_ZONES=65536 scripts/gpu-implicit-ladder.sh "$out/implicit"
    tail -12 "$out/implicit/ladder.txt" 2>/dev/null | tee -a "$summary"
    if [ -x scripts/gpu-physics.sh ]; then
      part physics "${BUDGET_PHYSICS:-100}" env GPU_PHYSICS_SKIP_BUILD=1 scripts/gpu-physics.sh "$out/physics"
      tail -20 "$out/physics.log" | tee -a "$summary"
    fi
    part accuracy "${BUDGET_ACCURACY:-110}" scripts/accuracy-cost.sh --gpu --out "$out/accuracy" \
      --cases "default rp-short" --deadline 80
    tail -12 "$out/accuracy.log" | tee -a "$summary"
    if command -v compute-sanitizer >/dev/null; then
      # SPEC: variant, method, physics (plain, or the physics instantiation with weak screening, and
      # self-heating with the implicit method: the explicit ones refuse it on the GPU); MEMCHECK_SPECS
      # overrides the list.
      for spec in ${MEMCHECK_SPECS:-final:asymptotic:plain final:qss2:plain lds:implicit:plain baseline:implicit:plain}; do
        IFS=: read -r variant method physics <<<"$spec"
        extra=(); [ "$physics" = physics ] && extra=(--set physics.screening=weak)
        [ "$physics" = physics ] && [ "$method" = implicit ] && extra+=(--set physics.self_heating=true)
        # zoneode.bin, the program itself, not the static launcher zoneode (docs/USAGE.md).
        part "memcheck-$variant-$method-$physics" 60 compute-sanitizer --tool memcheck --error-exitcode 9 \
          "$build/zoneode.bin" inputs/quick.yaml --quiet --set zones.count=64 --set integrator.end_time=1e-6 --backend gpu \
          --kernel "$variant" --set integrator.method="$method" "${extra[@]}"
        grep -E "ERROR SUMMARY|exit" "$out/memcheck-$variant-$method-$physics.log" | tail -1 |
          sed "s/^/   memcheck $variant $method $physics: /" | tee -a "$summary"
      done
    fi
    if [ -x scripts/gpu-scaling.sh ]; then
      part scaling "${BUDGET_SCALING:-150}" scripts/gpu-scaling.sh plumbing "$out/scaling"
      tail -15 "$out/scaling.log" | tee -a "$summary"
    fi
    for d in implicit physics accuracy scaling; do
      [ -d "$out/$d" ] && (cd "$out" && tar czf "$d.tgz" "$d" && rm -rf "$d")
    done
    (cd "$out" && tar czf logs.tgz ./*.log && rm -f ./*.log)
    ;;
  *) echo "gpu-all.sh: '$what': expected ladder or checks" >&2; exit 2 ;;
esac
log "== gpu-all $what done after $((SECONDS - t0)) s"
