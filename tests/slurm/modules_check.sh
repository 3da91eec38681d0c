#!/usr/bin/env bash
# The site modules a job runs with (slurm/common.sh), against a planted module system: a `module`
# function that knows a few module names, loads them in the order given (LOADEDMODULES, as Lmod
# and Tcl modules keep it) and fails on others.
# Checks: slurm/build.sh's zoneode_build records the loaded modules beside the binary, in load
# order; a job (zoneode_job_environment) loads the recorded ones that are missing, in the recorded
# order, and says so; with all loaded it loads nothing; a recorded module that cannot be loaded,
# or no module command at all, stops it with exit 2 and the list; CRAY_LD_LIBRARY_PATH goes in
# front of LD_LIBRARY_PATH; Frontier's profiler modules come in the order OLCF requires (a ROCm
# module of 6.3 or 6.4 before rocprofiler-compute) and LUMI names a module for rocprofv3.
# No Slurm, no root. Usage: tests/slurm/modules_check.sh   Exit status: 0 passed, 1 failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
work=$(mktemp -d /tmp/zoneode-modules.XXXXXX)
trap 'rm -rf "$work"' EXIT
source tests/lib/checks.sh

# The planted module system, written to a file that each case sources.
cat >"$work/modules.sh" <<'MODULES'
module() {
  [ "$1" = load ] || return 0
  shift
  local name status=0
  for name in "$@"; do
    case $name in
      PrgEnv-cray | rocm/6.3.1 | cray-hdf5-parallel | rocprofiler-compute)
        [[ ":${LOADEDMODULES:-}:" == *":$name:"* ]] || LOADEDMODULES=${LOADEDMODULES:+$LOADEDMODULES:}$name
        echo "load $name" >>"$MODULE_LOG" ;;
      *) echo "module: unknown module $name" >&2; status=1 ;;
    esac
  done
  export LOADEDMODULES
  return $status
}
MODULES
mkdir -p "$work/build"
printf '#!/bin/sh\nexit 0\n' >"$work/build/zoneode" && chmod +x "$work/build/zoneode"
# case NAME SCRIPT: runs SCRIPT in a fresh shell with common.sh, the local site and the build.
case_run() {
  MODULE_LOG=$work/$1.log ZONEODE_SITE=local ZONEODE_BUILD_DIR=$work/build bash -c \
    "set -uo pipefail; source slurm/common.sh; zoneode_load_site; $2" >"$work/$1.out" 2>&1
}

# The build records what it was built with (cmake stubbed: the record is what is tested).
cmake() { :; }
export -f cmake
case_run build "source '$work/modules.sh'; site_modules() { module load PrgEnv-cray rocm/6.3.1 cray-hdf5-parallel; }; zoneode_build"
check "build: exit 0" test $? -eq 0
check "build: modules recorded in load order" test "$(tr '\n' ' ' <"$work/build/zoneode-modules.txt" 2>/dev/null)" = "PrgEnv-cray rocm/6.3.1 cray-hdf5-parallel "

# A job whose shell has only the first: the other two are loaded, in the recorded order.
case_run missing "source '$work/modules.sh'; LOADEDMODULES=PrgEnv-cray; zoneode_job_environment; echo \"loaded \$LOADEDMODULES\""
check "job: exit 0" test $? -eq 0
check "job: the missing modules named" grep -q "loading the build's modules not loaded here: rocm/6.3.1 cray-hdf5-parallel" "$work/missing.out"
check "job: all three loaded, in order" grep -qx "loaded PrgEnv-cray:rocm/6.3.1:cray-hdf5-parallel" "$work/missing.out"
check "job: module load given the recorded order" test "$(tr '\n' ' ' <"$work/missing.log")" = "load PrgEnv-cray load rocm/6.3.1 load cray-hdf5-parallel "

case_run all "source '$work/modules.sh'; LOADEDMODULES=PrgEnv-cray:rocm/6.3.1:cray-hdf5-parallel; zoneode_job_environment"
check "job with every module: nothing loaded" test ! -e "$work/all.log"
check "job with every module: says so" grep -q "the build's modules are loaded (3 recorded" "$work/all.out"

echo rocm/9.9 >>"$work/build/zoneode-modules.txt"
case_run unknown "source '$work/modules.sh'; LOADEDMODULES=; zoneode_job_environment; echo ran"
check "a module that cannot be loaded: exit 2" test $? -eq 2
check "a module that cannot be loaded: named" grep -q "module load could not load rocm/9.9 (recorded at build time in $work/build/zoneode-modules.txt)" "$work/unknown.out"
check "a module that cannot be loaded: nothing ran" bash -c "! grep -qx ran '$work/unknown.out'"
case_run no-module "LOADEDMODULES=; zoneode_job_environment"
check "no module command: exit 2" test $? -eq 2
check "no module command: says what to load" grep -q "the build used modules this job has not loaded (PrgEnv-cray rocm/6.3.1 cray-hdf5-parallel rocm/9.9) and there is no module command here" "$work/no-module.out"

rm "$work/build/zoneode-modules.txt"
case_run cray "CRAY_LD_LIBRARY_PATH=/opt/cray/pe/lib64 LD_LIBRARY_PATH=/usr/lib; zoneode_job_environment; echo \"path \$LD_LIBRARY_PATH\""
check "CRAY_LD_LIBRARY_PATH in front" grep -qx "path /opt/cray/pe/lib64:/usr/lib" "$work/cray.out"
case_run plain "unset CRAY_LD_LIBRARY_PATH; LD_LIBRARY_PATH=/usr/lib; zoneode_job_environment; echo \"path \$LD_LIBRARY_PATH\""
check "no record, no Cray path: nothing changed or said" test "$(cat "$work/plain.out")" = "path /usr/lib"

# The profilers' modules, in the order they are loaded (profile.sbatch: one word per module).
frontier=$(source slurm/sites/frontier.sh; site_profiler_module rocprof-compute)
check "Frontier: a ROCm 6.3/6.4 module, then rocprofiler-compute" test -n "$(grep -E '^rocm/6\.[34](\.[0-9]+)? rocprofiler-compute$' <<<"$frontier")"
lumi=$(source slurm/sites/lumi.sh; site_profiler_module rocprofv3)
# LUMI/24.03's plain rocm module is ROCm 6.0.3, without rocprofv3 (issue 40): a versioned ROCm >= 6.2.
check "LUMI: a ROCm >= 6.2 module for rocprofv3, not the stack's plain rocm" \
  test -n "$(grep -E '^rocm/(6\.([2-9]|[1-9][0-9])|[7-9]\.)' <<<"$lumi")"
echo "modules_check: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
