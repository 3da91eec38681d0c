#!/usr/bin/python3
"""Accuracy against cost of every method and backend (scripts/accuracy-cost.sh runs it).

  accuracy_cost.py row CSV --case C --method M --backend B --schedule S --setting X
                       --reference REF.h5 --run RUN.h5 --summary RUN.json [--note TEXT]
      appends one row: the run's first K zones (K: the reference's zones) against the reference,
      max relative error over species with mass fraction >= 1e-8 in the reference, and the cost in
      ns per zone per burn (integrate time / zones, as the run measured it, on its threads; with
      --cpu-seconds T --cost-zones N: T / N, the CPU time of N zones on one thread, set-up excluded).
  accuracy_cost.py failed CSV --case C --method M --backend B --schedule S --setting X --note TEXT
      appends a row for a run that gave no result (timeout, refused, not run).
  accuracy_cost.py report CSV... --table OUT.md --plot OUT.png [--title TEXT]
      one markdown table (rows in case, method, backend order) and one PNG: error against ns per
      zone per burn, log-log, one line per method and backend, one panel per case.
"""
import argparse
import csv
import json
import math
import os
import sys

import h5py
import numpy as np

SIGNIFICANT = 1e-8  # mass fraction from which a species counts (the self-check's and zoneode-validate's)
FIELDS = ["case", "method", "backend", "schedule", "setting", "threads", "device", "zones_run", "zones_compared",
          "zones_ok", "failed_in_run", "max_rel_error", "worst_species", "ns_per_zone_burn", "steps_per_zone",
          "rejected_per_zone", "rhs_per_zone", "note"]


def append(path, row):
    new = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        w.writerow({k: row.get(k, "") for k in FIELDS})


def compare(reference_path, run_path):
    with h5py.File(reference_path, "r") as ref, h5py.File(run_path, "r") as run:
        A = ref["species/A"][:].astype(float)
        names = [n.decode() for n in ref["species/name"][:]]
        y_ref = ref["abundances"][:]
        k = y_ref.shape[0]
        if run["abundances"].shape[0] < k:
            raise SystemExit(f"{run_path}: {run['abundances'].shape[0]} zones, the reference has {k}")
        y = run["abundances"][:k]
        status = run["status"][:k]
        ref_status = ref["status"][:]
    if np.any(ref_status != 0):
        raise SystemExit(f"{reference_path}: reference zones not ok: {np.nonzero(ref_status)[0].tolist()}")
    ok = status == 0
    worst, worst_name = 0.0, ""
    significant = A[None, :] * y_ref >= SIGNIFICANT
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs(y - y_ref) / y_ref
    rel = np.where(significant & ok[:, None], rel, 0.0)
    rel = np.where(np.isfinite(rel), rel, np.inf)
    if ok.any():
        z, i = np.unravel_index(np.argmax(rel), rel.shape)
        worst, worst_name = float(rel[z, i]), names[i]
    return k, int(ok.sum()), worst, worst_name


def row_command(a):
    k, ok, worst, species = compare(a.reference, a.run)
    s = json.load(open(a.summary))
    zones = s["zones"]
    failed = s["failed_zones"]
    rhs = s.get("rhs_evaluations")
    if rhs is None:  # the asymptotic method: one flux evaluation per geometric step, two per adaptive attempt
        attempts = s["steps"] + s["rejected_steps"]
        rhs = attempts if a.schedule == "geometric" else 2 * attempts
    seconds = s["integrate_seconds"]
    cost_zones = zones
    if a.cpu_seconds is not None:  # CPU time of the run less that of its set-up (one thread), over cost_zones
        seconds, cost_zones = max(a.cpu_seconds, 0.0), a.cost_zones
    append(a.csv, dict(case=a.case, method=a.method, backend=a.backend, schedule=a.schedule, setting=a.setting,
                       threads=s["threads"], device=a.device or s["device"], zones_run=zones, zones_compared=k, zones_ok=ok,
                       failed_in_run=failed, max_rel_error=f"{worst:.3e}" if ok else "", worst_species=species,
                       ns_per_zone_burn=f"{1e9 * seconds / cost_zones:.4g}",
                       steps_per_zone=f"{s['steps'] / zones:.4g}", rejected_per_zone=f"{s['rejected_steps'] / zones:.4g}",
                       rhs_per_zone=f"{rhs / zones:.4g}", note=a.note or ""))


def failed_command(a):
    append(a.csv, dict(case=a.case, method=a.method, backend=a.backend, schedule=a.schedule, setting=a.setting,
                       note=a.note))


def read_rows(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            rows += list(csv.DictReader(f))
    return rows


def label(r):
    if r["method"] == "asymptotic" and r["schedule"] == "geometric":
        return f"{r['method']} geometric"
    return r["method"]


def setting_text(r):
    return ("dt " if r["schedule"] == "geometric" else "rtol ") + r["setting"] + (" t" if r["schedule"] == "geometric" else "")


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def report_command(a):
    rows = read_rows(a.csv)
    cases = list(dict.fromkeys(r["case"] for r in rows))
    order = {"asymptotic": 0, "qss2": 1, "implicit": 2, "bdf": 3}
    rows.sort(key=lambda r: (cases.index(r["case"]), order.get(r["method"], 9), r["schedule"] != "geometric",
                             r["backend"], -number(r["setting"])))
    lines = ["Generated by `validation/accuracy_cost.py report " + " ".join(os.path.basename(c) for c in a.csv) +
             "` from the rows of `scripts/accuracy-cost.sh` (CPU) and `scripts/accuracy-cost.sh --gpu` (GPU); "
             "what is measured and how: validation/README.md, \"Accuracy against cost\". Machines: " +
             "; ".join(sorted({f"{r['backend']}: {r['device']}" for r in rows if r["device"]})) + ".", "",
             f"| case | method | backend | setting | zones ok (compared) | max rel. error, X >= 1e-8 (species) | "
             f"ns per zone per burn | steps per zone | rejected | RHS per zone | note |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["zones_compared"]:
            ok = f"{r['zones_ok']}/{r['zones_compared']}" + (f", {r['failed_in_run']} of {r['zones_run']} failed in the run"
                                                             if r["failed_in_run"] not in ("", "0") else "")
            err = f"{number(r['max_rel_error']):.2g} ({r['worst_species']})" if r["max_rel_error"] else "-"
            lines.append(f"| {r['case']} | {label(r)} | {r['backend']} | {setting_text(r)} | {ok} | {err} | "
                         f"{number(r['ns_per_zone_burn']):.3g} | {number(r['steps_per_zone']):.3g} | "
                         f"{number(r['rejected_per_zone']):.3g} | {number(r['rhs_per_zone']):.3g} | {r['note']} |")
        else:
            lines.append(f"| {r['case']} | {label(r)} | {r['backend']} | {setting_text(r)} | - | - | - | - | - | - | {r['note']} |")
    with open(a.table, "w") as f:
        f.write("\n".join(lines) + "\n")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    columns = 2 if len(cases) > 1 else 1
    panels = math.ceil(len(cases) / columns)
    fig, axes = plt.subplots(panels, columns, figsize=(6.2 * columns, 4.6 * panels), squeeze=False)
    styles = {"asymptotic geometric": ("tab:gray", "s"), "asymptotic": ("tab:blue", "o"), "qss2": ("tab:orange", "^"),
              "implicit": ("tab:green", "D"), "bdf": ("tab:red", "v")}
    for n, case in enumerate(cases):
        ax = axes[n // columns][n % columns]
        groups = {}
        for r in rows:
            if r["case"] != case or not r["max_rel_error"] or r["zones_ok"] != r["zones_compared"]:
                continue
            groups.setdefault((label(r), r["backend"]), []).append(r)
        for (name, backend), group in sorted(groups.items()):
            group.sort(key=lambda r: number(r["ns_per_zone_burn"]))
            x = [number(r["ns_per_zone_burn"]) for r in group]
            y = [max(number(r["max_rel_error"]), 1e-12) for r in group]
            color, marker = styles.get(name, ("k", "x"))
            ax.loglog(x, y, marker=marker, color=color, linestyle="-" if backend.startswith("cpu") else "--",
                      label=f"{name}, {backend}")
            for r, xi, yi in zip(group, x, y):
                ax.annotate(r["setting"], (xi, yi), fontsize=6, xytext=(3, 2), textcoords="offset points")
        ax.axhline(1e-2, color="k", linewidth=0.5, linestyle=":")
        ax.set_title(case, fontsize=10)
        ax.set_xlabel("ns per zone per burn")
        ax.set_ylabel("max relative error, X >= 1e-8")
        ax.grid(True, which="both", linewidth=0.2)
        ax.legend(fontsize=7)
    missing = sorted({r["backend"] for r in rows if not r["zones_compared"] and r["note"].startswith("PLACEHOLDER")})
    for n in range(len(cases), panels * columns):
        ax = axes[n // columns][n % columns]
        ax.axis("off")
        if missing:
            ax.text(0.05, 0.5, "not measured yet (placeholders in the table):\n" + "\n".join(missing), fontsize=9)
    if a.title:
        fig.suptitle(a.title, fontsize=10)
    fig.tight_layout()
    fig.savefig(a.plot, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("row", "failed"):
        q = sub.add_parser(name)
        q.add_argument("csv")
        for key in ("case", "method", "backend", "schedule", "setting"):
            q.add_argument("--" + key, required=True)
        q.add_argument("--note", default="", required=name == "failed")
        if name == "row":
            for key in ("reference", "run", "summary"):
                q.add_argument("--" + key, required=True)
            q.add_argument("--cpu-seconds", type=float, default=None)
            q.add_argument("--cost-zones", type=int, default=0)
            q.add_argument("--device", default="")
    q = sub.add_parser("report")
    q.add_argument("csv", nargs="+")
    q.add_argument("--table", required=True)
    q.add_argument("--plot", required=True)
    q.add_argument("--title", default="")
    a = p.parse_args()
    {"row": row_command, "failed": failed_command, "report": report_command}[a.command](a)


if __name__ == "__main__":
    sys.exit(main())
