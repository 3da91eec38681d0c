#!/usr/bin/env bash
# The physics options on the GPU backend against the CPU backend (ctest -L gpu; scripts/gpu-physics.sh
# runs it with more zones): the rp-z24 network at rp-process conditions (inputs/bench/c2-rpz24-rp.yaml),
# asymptotic method, geometric schedule, each option alone and all together, every variant given:
#   - the CPU result with the option differs from the one without (the option acts: a check that
#     would pass vacuously otherwise);
#   - every GPU variant is within 1e-12 relative (floor 1e-28 mol/g) of the CPU on every dataset
#     (abundances, energy rate, steps, status, and T9, which self-heating changes: the GPU backend
#     must bring it back);
#   - on the adaptive schedule, weak screening (the half-step screening): within
#     scripts/compare_adaptive.py's yardstick (the CPU against itself with rtol one ulp up), since
#     accept/reject may flip on last bits.
#   - the qss2 and implicit methods: weak screening and all options together, every variant that
#     runs the method, against the CPU with the same method (PHYSICS_METHODS, default "qss2 implicit").
#   - self-heating (T9 a variable of the methods' state, src/physics/self_heating.hpp): the implicit
#     method's kernels carry it (baseline the serial method; lds, wave the team kernel's heated
#     instantiation, in the implicit:all cells at 1e-10; final takes its static choice (lds where
#     it fits) since the heated team passed on an H100 (2026-12-07), generated gives it to baseline;
#     scripts/gpu-heat-team.sh validates the team's under the implicit rule on a burn where T9
#     rises); the asymptotic and qss2 methods' GPU runs with it are refused, naming the option (their
#     team kernels do not carry T9), so those cells check the refusal instead.
# Prints one 'RESULT option variant max_rel verdict' line per cell (scripts/gpu-physics.sh reads them;
# the methods' cells are named METHOD:OPTION).
# Usage: physics_end_to_end.sh ZONEODE ZONEODE_COMPARE SOURCE_DIR "VARIANTS" [ZONES] [WORK_DIR]
# Exit 77 (skipped) when no GPU can be used. PHYSICS_FAKE_GPU=1: every "GPU" run is the CPU backend
# on one thread (a rehearsal of the script on a machine without a GPU; the differences are then 0).
# PHYSICS_SINGLE_VARIANTS="baseline final": the variants that run each option alone (default: all
# of VARIANTS; none, weak, all options together and adaptive always run on all of VARIANTS).
set -uo pipefail
zoneode=$1 compare=$2 source_dir=$3
read -r -a variants <<<"$4"
zones=${5:-64}
work=${6:-}
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
deck=$source_dir/inputs/bench/c2-rpz24-rp.yaml
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"  # check, passes, failures, mpi_flags
python=python3
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import h5py" 2>/dev/null && python=/usr/bin/python3

gpu=(--backend gpu)
[ "${PHYSICS_FAKE_GPU:-0}" = 1 ] && gpu=(--backend cpu --threads 1)
if ! "$zoneode" "$source_dir/inputs/decay_chain.yaml" --quiet "${gpu[@]}" --set zones.count=4 \
    --set output.prefix="$work/probe" >"$work/probe.log" 2>&1; then
  if grep -qi "gpuGetDeviceCount\|no GPU visible\|not built" "$work/probe.log"; then
    echo "SKIP: no usable GPU backend here: $(tail -1 "$work/probe.log")"
    exit 77
  fi
  cat "$work/probe.log"; exit 1
fi

# The worst relative difference a zoneode-compare JSON report found (max over its max_rel fields).
worst() {
  "$python" - "$1" <<'PY'
import json, sys
best = 0.0
def walk(x):
    global best
    if isinstance(x, dict):
        for k, v in x.items():
            if k == "max_rel" and isinstance(v, (int, float)):
                best = max(best, v)
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(json.load(open(sys.argv[1])))
print(f"{best:.2e}")
PY
}
run() {  # run LOG ARGS...: zoneode, exit 0 expected
  local log=$1; shift
  "$zoneode" "$@" >"$log" 2>&1
  local status=$?
  [ "$status" -eq 0 ] || { echo "  zoneode $* exited $status"; tail -5 "$log"; return 1; }
}
# against_cpu CELL VARIANT CPU_PREFIX GPU_PREFIX RTOL: the GPU's last state within RTOL (floor
# 1e-28) of the CPU's, counted as a check; prints the cell's RESULT line.
against_cpu() {
  local cell=$1 variant=$2 cpu=$3 gpu_run=$4 rtol=$5 verdict=ok
  "$compare" "${cpu}_step000001.h5" "${gpu_run}_step000001.h5" --rtol "$rtol" --atol 1e-28 --quiet \
    --json "$gpu_run-compare.json" >/dev/null 2>&1 || verdict=FAIL
  [ "$verdict" = ok ] && passes=$((passes + 1)) ||
    { echo "FAIL: $cell $variant within $rtol of the cpu"; failures=$((failures + 1)); }
  echo "RESULT $cell $variant $(worst "$gpu_run-compare.json" 2>/dev/null || echo nan) $verdict"
}
# refused CELL VARIANT LOG ARGS...: a GPU run the deck must refuse (self-heating with an explicit
# method), its message naming the option; counted as a check. The CPU rehearsal (PHYSICS_FAKE_GPU=1)
# has no such refusal: the cell is skipped there.
refused() {
  local cell=$1 variant=$2 log=$3 verdict=ok; shift 3
  if [ "${PHYSICS_FAKE_GPU:-0}" = 1 ]; then echo "RESULT $cell $variant refused skip"; return 0; fi
  local status=0
  "$zoneode" "$@" >"$log" 2>&1 || status=$?
  # Refused by the deck, before any work: exit 2 at the key (src/deck/deck.cpp, read_physics).
  if [ "$status" -ne 2 ] || ! grep -q "physics.self_heating: expected false with integrator.method" "$log"; then verdict=FAIL; fi
  [ "$verdict" = ok ] && passes=$((passes + 1)) ||
    { echo "FAIL: $cell $variant not refused with the self-heating message"; failures=$((failures + 1)); }
  echo "RESULT $cell $variant refused $verdict"
}
# An option acts when the CPU result moves by more than 1e-11 relative (neutrino losses move only the
# energy rate, by ~6e-10 over this window; a GPU that left an option out would fail the 1e-12 check).
differs() { ! "$compare" "$1" "$2" --rtol 1e-11 --atol 1e-28 --quiet >/dev/null 2>&1; }

common=("$deck" --quiet --force --set zones.count="$zones" --set integrator.schedule=geometric
        --set integrator.end_time=1e-7)
declare -A options=(
  [none]=""
  [weak]="physics.screening=weak"
  [chugunov2007]="physics.screening=chugunov2007"
  [partition_functions]="physics.partition_functions=true"
  [neutrino_losses]="physics.neutrino_losses=true"
  [self_heating]="physics.self_heating=true physics.eos=exact"
  [all]="physics.screening=chugunov2007 physics.partition_functions=true physics.neutrino_losses=true physics.self_heating=true physics.eos=exact"
)
# physics.eos=exact: the exact e-/e+ gas on both sides (with the default table the GPU reads a device
# copy of the CPU's table, src/physics/eos_table.hpp; gpu-heat-team.sh validates that), so that the
# implicit method's 1e-10 below compares the same gas (the explicit methods refuse self-heating).
for option in none weak chugunov2007 partition_functions neutrino_losses self_heating all; do
  sets=()
  for s in ${options[$option]}; do sets+=(--set "$s"); done
  # Self-heating also writes the initial state, for its T9 rise (scripts/gpu-physics.sh reports it).
  initial=(); [ "$option" = self_heating ] && initial=(--set output.initial=true)
  check "$option cpu" run "$work/$option-cpu.log" "${common[@]}" "${sets[@]}" "${initial[@]}" --threads "$(nproc)" \
    --set output.prefix="$work/$option-cpu" --summary "$work/$option-cpu.json"
  if [ "$option" != none ]; then
    check "$option changes the cpu result" differs "$work/none-cpu_step000001.h5" "$work/$option-cpu_step000001.h5"
  fi
  run_variants=("${variants[@]}")
  case $option in
    none|weak|all) ;;
    *) if [ -n "${PHYSICS_SINGLE_VARIANTS:-}" ]; then
         run_variants=()
         for v in "${variants[@]}"; do [[ " $PHYSICS_SINGLE_VARIANTS " == *" $v "* ]] && run_variants+=("$v"); done
       fi ;;
  esac
  for variant in "${run_variants[@]}"; do
    if [ "$option" = self_heating ] || [ "$option" = all ]; then  # the asymptotic method: refused
      refused "$option" "$variant" "$work/$option-$variant.log" "${common[@]}" "${sets[@]}" "${gpu[@]}" \
        --kernel "$variant" --set output.prefix="$work/$option-$variant"
      continue
    fi
    check "$option $variant runs" run "$work/$option-$variant.log" "${common[@]}" "${sets[@]}" "${gpu[@]}" \
      --kernel "$variant" --set output.prefix="$work/$option-$variant" --summary "$work/$option-$variant.json"
    against_cpu "$option" "$variant" "$work/$option-cpu" "$work/$option-$variant" 1e-12
  done
done

# The qss2 and implicit methods (their kernels' physics instantiations): weak screening (for the
# implicit method the Woodbury pair of Jacobian columns) and every option together, on every variant
# that runs the method (implicit: not tuned), each against the CPU with the same method. Tolerance:
# 1e-12 for qss2, 1e-10 for implicit (issue 17's; its team reductions and the device's exp/log round
# differently from the serial LU and sums: 1.9e-11 without options).
for method in ${PHYSICS_METHODS:-qss2 implicit}; do
  tolerance=1e-12; [ "$method" = implicit ] && tolerance=1e-10
  msets=(--set integrator.method="$method")
  check "$method none cpu" run "$work/$method-none-cpu.log" "${common[@]}" "${msets[@]}" --threads "$(nproc)" \
    --set output.prefix="$work/$method-none-cpu"
  for option in weak all; do
    sets=("${msets[@]}")
    for s in ${options[$option]}; do sets+=(--set "$s"); done
    check "$method $option cpu" run "$work/$method-$option-cpu.log" "${common[@]}" "${sets[@]}" --threads "$(nproc)" \
      --set output.prefix="$work/$method-$option-cpu"
    check "$method $option changes the cpu result" differs "$work/$method-none-cpu_step000001.h5" \
      "$work/$method-$option-cpu_step000001.h5"
    for variant in "${variants[@]}"; do
      [ "$method" = implicit ] && [ "$variant" = tuned ] && continue
      name=$method-$option-$variant
      if [ "$method" = qss2 ] && [ "$option" = all ]; then  # self-heating with qss2: refused
        refused "$method:$option" "$variant" "$work/$name.log" "${common[@]}" "${sets[@]}" "${gpu[@]}" \
          --kernel "$variant" --set output.prefix="$work/$name"
        continue
      fi
      check "$method $option $variant runs" run "$work/$name.log" "${common[@]}" "${sets[@]}" "${gpu[@]}" \
        --kernel "$variant" --set output.prefix="$work/$name" --summary "$work/$name.json"
      against_cpu "$method:$option" "$variant" "$work/$method-$option-cpu" "$work/$name" "$tolerance"
    done
  done
done

# Adaptive schedule: weak screening (self-heating with the asymptotic method is refused on the GPU).
adaptive=("$deck" --quiet --force --set zones.count="$zones" --set integrator.schedule=adaptive
          --set integrator.end_time=1e-7 --set integrator.rtol=1e-4 --set physics.screening=weak)
check "adaptive cpu" run "$work/adaptive-cpu.log" "${adaptive[@]}" --set output.prefix="$work/adaptive-cpu"
check "adaptive cpu, rtol one ulp up" run "$work/adaptive-ulp.log" "${adaptive[@]}" \
  --set integrator.rtol=1.0000000000000002e-4 --set output.prefix="$work/adaptive-ulp"
for variant in "${variants[@]}"; do
  check "adaptive $variant runs" run "$work/adaptive-$variant.log" "${adaptive[@]}" "${gpu[@]}" --kernel "$variant" \
    --set output.prefix="$work/adaptive-$variant"
  line=$("$python" "$source_dir/scripts/compare_adaptive.py" "$work/adaptive-cpu_step000001.h5" \
    "$work/adaptive-${variant}_step000001.h5" 1e-4 1e-20 --reference "$work/adaptive-ulp_step000001.h5" 2>&1)
  status=$?
  echo "  adaptive $variant: $(echo "$line" | tr '\n' ' ')"
  verdict=ok; [ "$status" -eq 0 ] || verdict=FAIL
  [ "$verdict" = ok ] && passes=$((passes + 1)) || { echo "FAIL: adaptive $variant within the yardstick"; failures=$((failures + 1)); }
  echo "RESULT adaptive $variant $(echo "$line" | sed -n 's/.*worst rel \([0-9.e+-]*\).*/\1/p' | head -1) $verdict"
done

echo "physics_end_to_end: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
