# shellcheck shell=bash
# Sourced by the end-to-end test scripts: pass/fail counting and the mpirun flags they share.
# `check NAME COMMAND...` counts COMMAND's success and prints "FAIL: NAME" otherwise; a script ends
# with its own count line and `[ "$failures" -eq 0 ]`. mpi_flags: oversubscribed (CI has 2 cores),
# and --allow-run-as-root where the tests run as root (CI containers).
failures=0
passes=0
check() {
  local name=$1; shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL: $name"; failures=$((failures + 1)); fi
}
mpi_flags=(--oversubscribe)
if [ "$(id -u)" -eq 0 ]; then mpi_flags+=(--allow-run-as-root); fi
