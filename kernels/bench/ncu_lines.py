#!/usr/bin/env python3
"""Where a kernel's time goes, per CUDA source line, from an Nsight Compute source export.

  ncu -i REPORT.ncu-rep --page source --csv --print-source cuda,sass --print-units base > SRC.csv
  kernels/bench/ncu_lines.py SRC.csv [LINES]

The report needs the SourceCounters section and a -lineinfo build (-DCMAKE_CUDA_FLAGS=-lineinfo).
Prints the total instructions executed and warp stall samples, then the LINES (45) lines with the
most stall samples: file:line, instructions executed, share of all stall samples, the three largest
stall reasons, the source text; then every line above 0.1% of the samples, file by file, in line
order (the phases of a step read top to bottom). Standard library only. Used for the implicit team
kernel's profile of 2026-12-06 (docs/results/h100-session-2026-12-06-late.txt) and the latency
path's (kernels/bench/study-latency.sh writes the CSV)."""
import collections
import csv
import sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
top = int(sys.argv[2]) if len(sys.argv) > 2 else 45
INSTRUCTIONS, SAMPLES = "Instructions Executed", "Warp Stall Sampling (All Samples)"
per_line = collections.defaultdict(collections.Counter)
text, total = {}, collections.Counter()
current_file, header = None, None
with open(sys.argv[1], newline="") as handle:
    for row in csv.reader(handle):
        if not row:
            continue
        if row[0] == "File Path":  # a new source file's block
            current_file = row[1]
            continue
        if row[0] == "Line No":
            header = row
            continue
        if header is None or row[0] == "Function Name":
            continue
        try:
            line = int(row[0])  # CUDA lines; SASS rows start with an address
        except ValueError:
            continue
        key = (current_file.split("/")[-1], line)
        text[key] = row[1][:90]
        values = dict(zip(header, row))
        for name, value in values.items():
            if name in (INSTRUCTIONS, SAMPLES) or (name.startswith("stall_") and "Not Issued" not in name):
                try:
                    number = float(value or 0)
                except ValueError:
                    continue
                per_line[key][name] += number
                if name in (INSTRUCTIONS, SAMPLES):
                    total[name] += number
samples = total[SAMPLES] or 1.0
print(f"total instructions executed {total[INSTRUCTIONS]:.4g}, warp stall samples {total[SAMPLES]:.0f}")
for key, counts in sorted(per_line.items(), key=lambda item: -item[1][SAMPLES])[:top]:
    reasons = sorted(((v, k) for k, v in counts.items() if k.startswith("stall_")), reverse=True)[:3]
    print(f"{key[0]}:{key[1]:<5} inst {counts[INSTRUCTIONS] / 1e6:9.2f}M stall {100 * counts[SAMPLES] / samples:5.1f}%  "
          + " ".join(f"{k[6:]}={int(v)}" for v, k in reasons) + " | " + text[key])
print("=====")
by_file = collections.defaultdict(list)
for key, counts in per_line.items():
    share = 100 * counts[SAMPLES] / samples
    if share > 0.1:
        by_file[key[0]].append((key[1], share, counts[INSTRUCTIONS] / 1e6, text[key][:70]))
for name, lines in by_file.items():
    for line, share, instructions, source in sorted(lines):
        print(f"{name}:{line:<5} {share:5.1f}% {instructions:9.1f}M  {source}")
