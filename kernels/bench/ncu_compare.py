#!/usr/bin/env python3
"""The regimes side by side from Nsight Compute exports (kernels/bench/profile-regimes.sh).

  ncu_compare.py DIFF_CSV REGIME:RAW_CSV:SASS_CSV:SUMMARY_JSON...

RAW_CSV is `ncu -i R --page raw --csv --print-units base`, SASS_CSV `ncu -i R --page source --csv
--print-source sass --print-units base`, SUMMARY_JSON the profiled zoneode run's --summary (zones and
steps: a zone-step is one zone advanced one step). Prints, per regime: warp instructions per
zone-step, issue-slot busy, occupancy, top stall reasons, shared-memory bank conflicts per request,
branch efficiency, the SASS instruction mix per zone-step; writes DIFF_CSV: every SASS instruction
(by address; the regimes must run the same kernel) with its executions per zone-step and stall
samples in each regime. Standard library only; column names are matched loosely because they
move between ncu versions.
"""
import csv
import json
import re
import sys

STALL_RATIO = re.compile(r"^smsp__average_warps_issue_stalled_(\w+?)_per_issue_active\.ratio$")
STALL_SAMPLE_COLUMN = re.compile(r"^(stall_\w+|smsp__pcsamp_warps_issue_stalled_\w+)$")
CLASSES = [  # SASS opcode (predicate and modifiers stripped) -> class, first match wins
    ("fp64", re.compile(r"^(DADD|DMUL|DFMA|DSETP|DMNMX|DSET|F2F|F2I|I2F)$")),
    ("mufu (rcp, exp, log)", re.compile(r"^MUFU$")),
    ("shared ld/st", re.compile(r"^(LDS|STS|LDSM|ATOMS)$")),
    ("global/local ld/st", re.compile(r"^(LDG|STG|LD|ST|LDL|STL|ATOMG|RED|LDC)$")),
    ("barrier", re.compile(r"^(BAR|BARRIER|MEMBAR|DEPBAR|WARPSYNC|NANOSLEEP)$")),
    ("shuffle/vote", re.compile(r"^(SHFL|VOTE|VOTEU|REDUX|MATCH)$")),
    ("branch/control", re.compile(r"^(BRA|BRX|BSSY|BSYNC|CALL|RET|EXIT|JMP|BREAK|BMOV|YIELD)$")),
    ("fp32", re.compile(r"^(FADD|FMUL|FFMA|FSETP|FMNMX|FSEL|FRND|FCHK)$")),
    ("int/logic/move", re.compile(r".")),
]


def number(text):
    if text is None:
        return None
    text = str(text).replace(",", "").strip()
    if text in ("", "-", "n/a", "N/A"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def read_rows(path):
    try:
        with open(path, newline="") as f:
            return list(csv.reader(f))
    except OSError:
        return []


def raw_metrics(path):
    """The first profiled kernel's metrics from --page raw --csv: {metric name: value}."""
    rows = read_rows(path)
    for i, row in enumerate(rows):
        if any("__" in cell for cell in row):  # the header: metric names have a double underscore
            header = row
            for data in rows[i + 1:]:
                if len(data) == len(header) and data and number(data[0]) is not None:
                    values = dict(zip(header, data))
                    values["_kernel"] = values.get("Kernel Name", "")
                    return values
            break
    return {}


def sass_rows(path):
    """Per-instruction rows of --page source --print-source sass --csv: (kernel, header, rows)."""
    kernel, header, out = "", None, []
    for row in read_rows(path):
        if not row:
            continue
        if row[0] == "Kernel Name" and len(row) > 1:
            kernel = row[1]
            continue
        if "Source" in row and any("Address" in c for c in row):
            header = row
            continue
        if header and len(row) == len(header):
            out.append(dict(zip(header, row)))
    return kernel, header or [], out


def column(header, *patterns):
    for pattern in patterns:
        for name in header:
            if re.search(pattern, name):
                return name
    return None


def opcode(source):
    text = re.sub(r"^@!?\w+\s+", "", source.strip())
    word = text.split(None, 1)[0] if text else ""
    return word.split(".", 1)[0].rstrip(";")


def classify(op):
    return next(name for name, pattern in CLASSES if pattern.search(op))


def analyse(spec):
    regime, raw_path, sass_path, summary_path = spec.split(":", 3)
    summary = {}
    try:
        with open(summary_path) as f:
            summary = json.load(f)
    except (OSError, ValueError):
        pass
    zone_steps = summary.get("steps") or None  # accepted steps summed over zones
    raw = raw_metrics(raw_path)
    kernel, header, rows = sass_rows(sass_path)
    address = column(header, r"^#? ?Address$", r"Address")
    executed = column(header, r"^Instructions Executed$", r"Warp.*Instructions Executed", r"Instructions Executed")
    samples = column(header, r"Warp Stall Sampling \(All", r"^# Samples$", r"Sampling Data \(All")
    stall_columns = [h for h in header if STALL_SAMPLE_COLUMN.match(h)]
    per_address, mix, mix_samples, stalls_sampled = {}, {}, {}, {}
    total_exec = total_samples = 0.0
    for row in rows:
        source = row.get("Source", "")
        n = number(row.get(executed)) or 0.0
        s = number(row.get(samples)) or 0.0
        total_exec += n
        total_samples += s
        cls = classify(opcode(source))
        mix[cls] = mix.get(cls, 0.0) + n
        mix_samples[cls] = mix_samples.get(cls, 0.0) + s
        for c in stall_columns:
            stalls_sampled[c] = stalls_sampled.get(c, 0.0) + (number(row.get(c)) or 0.0)
        per_address[row.get(address, "")] = (source.strip(), n, s)
    stall_ratios = {m.group(1): number(v) for k, v in raw.items() if (m := STALL_RATIO.match(k)) and number(v)}
    return {
        "regime": regime, "kernel": kernel or raw.get("_kernel", ""), "zones": summary.get("zones"),
        "zone_steps": zone_steps, "raw": raw, "per_address": per_address, "mix": mix, "mix_samples": mix_samples,
        "total_exec": total_exec, "total_samples": total_samples, "stall_ratios": stall_ratios,
        "stalls_sampled": stalls_sampled, "sass_columns": {"address": address, "executed": executed, "samples": samples},
    }


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def metric(raw, *names):
    for name in names:
        if number(raw.get(name)) is not None:
            return number(raw.get(name))
    return None


def report(results):
    lines = []
    names = [r["regime"] for r in results]
    width = 14
    def row(label, values):
        lines.append(f"  {label:44s}" + "".join(f"{v:>{width}s}" for v in values))
    lines.append("== regimes compared (ncu, --clock-control none; per zone-step = per zone advanced one step)")
    row("regime", names)
    row("zones x steps per zone", [f"{fmt(r['zones'], 'd')}x{fmt(ratio(r['zone_steps'], r['zones']), '.0f')}" for r in results])
    for r in results:
        r["inst"] = metric(r["raw"], "smsp__inst_executed.sum") or (r["total_exec"] or None)
        r["dur"] = metric(r["raw"], "gpu__time_duration.sum")
    row("kernel time per zone-step [ns] (profiled)", [fmt(ratio(r["dur"], r["zone_steps"]), ".2f") for r in results])
    row("warp instructions per zone-step", [fmt(ratio(r["inst"], r["zone_steps"]), ".0f") for r in results])
    row("issue slots busy [%]", [fmt(metric(r["raw"], "smsp__issue_active.avg.pct_of_peak_sustained_active",
                                            "sm__inst_issued.avg.pct_of_peak_sustained_active"), ".1f") for r in results])
    row("achieved occupancy [%]", [fmt(metric(r["raw"], "sm__warps_active.avg.pct_of_peak_sustained_active"), ".1f") for r in results])
    row("registers per thread", [fmt(metric(r["raw"], "launch__registers_per_thread"), ".0f") for r in results])
    row("active threads per warp instruction", [fmt(metric(r["raw"], "smsp__thread_inst_executed_per_inst_executed.ratio"), ".2f")
                                                for r in results])
    row("branch efficiency [%]", [fmt(metric(r["raw"], "smsp__sass_average_branch_targets_threads_uniform.pct"), ".2f") for r in results])
    row("divergent branch targets per zone-step", [fmt(ratio(metric(r["raw"], "smsp__sass_branch_targets_threads_divergent.sum"),
                                                             r["zone_steps"]), ".1f") for r in results])
    conflicts = [ratio(metric(r["raw"], "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
                       metric(r["raw"], "smsp__inst_executed_op_shared_ld.sum")) for r in results]
    row("shared-load bank conflicts per request", [fmt(c, ".2f") for c in conflicts])
    row("shared-load wavefronts per request", [fmt(ratio(metric(r["raw"], "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
                                                         metric(r["raw"], "smsp__inst_executed_op_shared_ld.sum")), ".2f") for r in results])
    row("shared-store bank conflicts per request", [fmt(ratio(metric(r["raw"], "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
                                                              metric(r["raw"], "smsp__inst_executed_op_shared_st.sum")), ".2f") for r in results])
    lines.append("  stall reasons (warps stalled per issued instruction; share of all stalls):")
    reasons = {}
    for r in results:
        for k, v in r["stall_ratios"].items():
            reasons[k] = max(reasons.get(k, 0.0), v)
    for k in sorted(reasons, key=reasons.get, reverse=True)[:8]:
        values = []
        for r in results:
            v, total = r["stall_ratios"].get(k), sum(r["stall_ratios"].values())
            values.append(f"{v:.2f} {100 * v / total:3.0f}%" if v is not None and total else "-")
        row("  " + k, values)
    if not reasons:
        lines.append("    (no smsp__average_warps_issue_stalled_* metrics in the raw pages)")
    if any(r["stalls_sampled"] for r in results):
        lines.append("  stall samples by reason (SASS source page, share of the regime's samples):")
        keys = {}
        for r in results:
            for k, v in r["stalls_sampled"].items():
                keys[k] = keys.get(k, 0.0) + v
        for k in sorted(keys, key=keys.get, reverse=True)[:8]:
            row("  " + k, [fmt(ratio(100 * r["stalls_sampled"].get(k, 0.0), sum(r["stalls_sampled"].values())), ".0f") + "%"
                           for r in results])
    lines.append("  SASS mix: warp instructions per zone-step (share of stall samples)")
    classes = [name for name, _ in CLASSES]
    for cls in classes:
        row("  " + cls, [f"{fmt(ratio(r['mix'].get(cls), r['zone_steps']), '.0f')} ({fmt(ratio(100 * r['mix_samples'].get(cls, 0), r['total_samples']), '.0f')}%)"
                         for r in results])
    for r in results:
        cols = r["sass_columns"]
        if not cols["executed"]:
            lines.append(f"  {r['regime']}: no 'Instructions Executed' column in the SASS export (columns: {cols})")
    kernels = {r["kernel"] for r in results}
    if len(kernels) > 1:
        lines.append(f"  note: the regimes ran different kernels ({'; '.join(sorted(kernels))}): the SASS join is by address anyway")
    return lines


def write_diff(results, path):
    addresses = []
    seen = set()
    for r in results:
        for a in r["per_address"]:
            if a not in seen:
                seen.add(a)
                addresses.append(a)
    base = results[0]
    rows = []
    for a in addresses:
        source = next((r["per_address"][a][0] for r in results if a in r["per_address"]), "")
        rec = {"address": a, "source": source, "class": classify(opcode(source))}
        for r in results:
            _, n, s = r["per_address"].get(a, ("", 0.0, 0.0))
            rec[f"exec_per_zone_step_{r['regime']}"] = ratio(n, r["zone_steps"])
            rec[f"stall_sample_share_{r['regime']}"] = ratio(s, r["total_samples"])
        for r in results[1:]:
            x, y = rec[f"exec_per_zone_step_{r['regime']}"], rec[f"exec_per_zone_step_{base['regime']}"]
            rec[f"delta_{r['regime']}_minus_{base['regime']}"] = None if x is None or y is None else x - y
        rows.append(rec)
    if rows:
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    lines = []
    for r in results[1:]:
        key = f"delta_{r['regime']}_minus_{base['regime']}"
        top = sorted((x for x in rows if x[key] is not None), key=lambda x: -abs(x[key]))[:8]
        if top:
            lines.append(f"  largest differences {r['regime']} - {base['regime']} (warp instructions per zone-step):")
            lines += [f"    {x['address']:>8s} {x[key]:+10.2f}  {x['source'][:70]}" for x in top]
    return lines


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    results = [analyse(spec) for spec in argv[2:]]
    lines = report(results)
    lines += write_diff(results, argv[1])
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
