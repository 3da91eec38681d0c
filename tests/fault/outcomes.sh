#!/usr/bin/env bash
# Counts the outcomes that hostile_inputs.sh and fault_tests.sh record with ZONEODE_OUTCOMES=FILE,
# by class, for the closing notes of issues 11 and 18 (tests/README.md): any binary, an old one included.
# Usage: outcomes.sh FILE
#   hostile lines "CASE STATUS pass|fail"; fault lines "CASE STATUS EXPECTED" or "CASE killed N/M".
# Classes: exit 2 with the checked message (clean error), exit 2 otherwise (message without file or
# key, or over 400 characters), exit 1, crash (a signal: status >= 125 other than 124), hang
# (timeout: 124), silently accepted (0 where an error was due); a fault run as specified (the
# expected status); a kill: every file with a final name complete or not.
set -euo pipefail
awk '
  function class(status) {
    if (status == 124) return "hang (timeout)"
    if (status >= 125) return "crash (signal, status " status ")"
    if (status == 0) return "silently accepted (exit 0)"
    return "exit " status
  }
  $2 == "killed" {
    split($3, n, "/"); kills++
    if (n[1] == n[2]) intact++; else corrupt++
    next
  }
  # Issue 18 and 31 cases (tests/hostile/files_and_outputs.sh, tests/fault/ranks_disagree.sh, the
  # SIGINT case of tests/signal_end_to_end.sh), named i18_CLASS_CASE or i31_CLASS_CASE: counted by
  # issue and class, apart.
  $1 ~ /^setup_/ { next }  # set-up runs of those scripts: no fault
  $1 ~ /^i(18|31)_/ {
    split($1, part, "_"); c18 = substr(part[1], 2) " " part[2]
    ok = ($3 == "pass" || $3 == $2)
    n18[c18]++; if (ok) pass18[c18]++
    else { how = class($2); if ($2 == 2) how = "exit 2, another message"; fail18[c18 ": " how]++ }
    next
  }
  $3 == "pass" || $3 == "fail" {
    hostile++
    c = class($2)
    if ($2 == 2) c = $3 == "pass" ? "clean error (exit 2, file and key named)" : "exit 2, message unclear (no file/key, or over 400 chars)"
    if ($1 ~ /^compare_/ && $3 == "pass") c = "zoneode-compare: difference or error (exit 1 or 2)"
    h[c]++
    next
  }
  NF == 3 && ($1 == "ref" || $1 == "killref") { next }  # the reference runs: no fault
  NF == 3 {
    faults++
    f[$2 == $3 ? "as specified (exit " $3 ")" : class($2) " where " $3 " was due"]++
  }
  END {
    printf "hostile inputs: %d\n", hostile
    for (c in h) printf "  %4d  %s\n", h[c], c
    printf "faulty runs: %d\n", faults
    for (c in f) printf "  %4d  %s\n", f[c], c
    if (kills) printf "kill -9: %d (every final-named file complete: %d, a file incomplete: %d)\n", kills, intact, corrupt
    for (c in n18) printf "issue %-11s %3d cases, %3d as specified\n", c, n18[c], pass18[c] + 0
    for (c in fail18) printf "  not as specified, %s: %d\n", c, fail18[c]
  }
' "$1"
