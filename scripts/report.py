#!/usr/bin/python3
"""Scaling and ladder report from zoneode JSON summaries (slurm/scaling.sh campaigns) and the
GPU ladder's JSON (scripts/gpu-ladder.sh).

usage: scripts/report.py [CAMPAIGN_DIR | SUMMARY.json]... [--ladder LADDER.json]... [--out DIR]
                         [--mode strong|weak]

A campaign folder holds one JSON summary per finished run (zoneode --summary) and, from
slurm/scaling.sh, campaign.txt (mode, site, backend, GPU vendor), jobs.txt (every submitted job),
accounting.txt (slurm/report.sbatch: sacct or scontrol) and runs/*/jobs.txt (each attempt's exit
status); --mode, or the zone counts, decide the mode where campaign.txt is absent.
Runs on the same resources are repeats: their median time is used. With n the GPUs (GCDs on
MI250X: one per rank) or, on the CPU, the cores (ranks x threads), and n0 the smallest:
  strong (same zones):   speedup = T(n0) / T(n), efficiency = speedup / (n / n0)
  weak (zones per rank): efficiency = T(n0) / T(n), scaled speedup = efficiency * n / n0
with T the integration time (the slowest rank's). Imbalance per run is max/mean of the ranks'
integration times (integrate_seconds_per_rank; summaries written before it existed show "n/a").
Every submitted job is listed in DIR/jobs.csv and report.md: state, exit code, attempts (which
stopped with 75 and resumed), elapsed time, GPU-hours and energy where Slurm records them; jobs
without a summary are listed as failed or missing, never dropped.
Writes DIR/report.csv, DIR/jobs.csv, DIR/report.md, DIR/{strong,weak}_{time,speedup,efficiency,
imbalance}.png (log axes, ideal lines), and with --ladder DIR/ladder.csv and DIR/ladder.png. DIR
defaults to <first campaign>/report. Plots need matplotlib (Agg backend, no display); without
it the tables are written and the report says the plots were skipped.
Exit status: 0, 2 for bad input (the message names the file and key).
"""

import argparse
import csv
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_jobs  # noqa: E402  (from this folder)

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # after the backend is chosen
    import matplotlib.ticker
except ImportError:
    plt = None


class InputError(Exception):
    pass


SUMMARY_KEYS = ("ranks", "threads", "backend", "kernel_variant", "zones", "steps", "integrate_seconds")


def load_json(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror}")
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: line {error.lineno}, column {error.colno}: not JSON: {error.msg}")


def number(path, record, key, kind=float):
    if key not in record:
        raise InputError(f"{path}: key '{key}' is missing")
    try:
        value = kind(record[key])
    except (TypeError, ValueError):
        raise InputError(f"{path}: key '{key}' = {record[key]!r}: expected a number")
    if value != value or value in (float("inf"), float("-inf")):
        raise InputError(f"{path}: key '{key}' = {record[key]!r}: expected a finite number")
    return value


def load_summary(path):
    record = load_json(path)
    if not isinstance(record, dict):
        raise InputError(f"{path}: expected a JSON object (a zoneode summary)")
    run = {"file": path}
    for key in SUMMARY_KEYS:
        if key not in record:
            raise InputError(f"{path}: key '{key}' is missing (is this a zoneode --summary file?)")
    run["ranks"] = number(path, record, "ranks", int)
    run["threads"] = number(path, record, "threads", int)
    run["zones"] = number(path, record, "zones", int)
    run["steps"] = number(path, record, "steps", int)
    run["integrate_seconds"] = number(path, record, "integrate_seconds")
    if run["ranks"] < 1 or run["integrate_seconds"] <= 0:
        raise InputError(f"{path}: ranks {run['ranks']}, integrate_seconds {run['integrate_seconds']}: expected both > 0")
    run["backend"] = str(record["backend"])
    run["kernel_variant"] = str(record["kernel_variant"])
    run["deck"] = str(record.get("deck", ""))
    run["result_hash"] = str(record.get("result_hash", ""))
    run["decomposition"] = str(record.get("decomposition", "n/a"))
    run["first_outer_step"] = int(record.get("first_outer_step", 1) or 1)
    run["ns_per_zone_step"] = 1e9 * run["integrate_seconds"] / run["steps"] if run["steps"] else float("nan")
    run["zone_steps_per_second"] = run["steps"] / run["integrate_seconds"]
    per_rank = record.get("integrate_seconds_per_rank")
    if per_rank is None:
        run["rank_min"] = run["rank_mean"] = run["rank_max"] = run["imbalance"] = None
    else:
        if not isinstance(per_rank, dict):
            raise InputError(f"{path}: key 'integrate_seconds_per_rank': expected an object with min, mean, max, imbalance")
        where = f"{path}: integrate_seconds_per_rank"
        run["rank_min"] = number(where, per_rank, "min")
        run["rank_mean"] = number(where, per_rank, "mean")
        run["rank_max"] = number(where, per_rank, "max")
        # Recomputed from max and mean rather than trusted; the summary's value must agree.
        run["imbalance"] = run["rank_max"] / run["rank_mean"] if run["rank_mean"] > 0 else float("nan")
        if "imbalance" in per_rank and abs(number(where, per_rank, "imbalance") - run["imbalance"]) > 1e-9 * run["imbalance"]:
            raise InputError(f"{where}: imbalance {per_rank['imbalance']} is not max/mean = {run['imbalance']:.17g}")
    return run


def campaign_description(folder):
    """campaign.txt's words: mode, site, gpu_vendor (slurm/scaling.sh)."""
    found = {}
    description = os.path.join(folder, "campaign.txt")
    if os.path.isfile(description):
        with open(description, encoding="utf-8") as handle:
            for line in handle:
                words = line.split()
                if len(words) == 2 and words[0] == "mode":
                    found["mode"] = words[1]
                if words and words[0] == "site":
                    found.update(zip(words[0::2], words[1::2]))
    return found


def campaign_mode(folder, runs, forced):
    if forced:
        return forced
    if campaign_description(folder).get("mode") in ("strong", "weak"):
        return campaign_description(folder)["mode"]
    if len({run["zones"] for run in runs}) == 1:
        return "strong"
    if len({run["zones"] / run["ranks"] for run in runs}) == 1:
        return "weak"
    raise InputError(f"{folder}: neither the same zones (strong) nor the same zones per rank (weak) in every run, "
                     "and no campaign.txt: give --mode")


def resource_axis(folder, runs):
    """What scales: GPUs (GCDs on AMD) for the GPU backend, one per rank; cores otherwise."""
    if runs[0]["backend"] == "gpu":
        vendor = campaign_description(folder).get("gpu_vendor", "")
        return "GCDs (MI250X: one per rank)" if vendor == "amd" else "GPUs (one per rank)", lambda run: run["ranks"]
    return "CPU cores (ranks x threads)", lambda run: run["ranks"] * run["threads"]


def analyse(name, folder, runs, mode):
    """Per resource count: median time, speedup, efficiency (see the module docstring)."""
    variants = {(run["backend"], run["kernel_variant"]) for run in runs}
    if len(variants) > 1:
        raise InputError(f"{folder}: runs of different backends/variants in one campaign: {sorted(variants)}")
    for run in runs:
        expected = runs[0]["zones"] if mode == "strong" else runs[0]["zones"] * run["ranks"] / runs[0]["ranks"]
        if run["zones"] != expected:
            what = "the same zones" if mode == "strong" else "the same zones per rank"
            raise InputError(f"{run['file']}: key 'zones' = {run['zones']}: a {mode} campaign needs {what} "
                             f"({runs[0]['file']} has {runs[0]['zones']} on {runs[0]['ranks']} rank(s))")
    axis_label, resources = resource_axis(folder, runs)
    by_ranks = {}
    for run in runs:
        run["resources"] = resources(run)
        by_ranks.setdefault(run["resources"], []).append(run)
    base_ranks = min(by_ranks)
    base_time = statistics.median(run["integrate_seconds"] for run in by_ranks[base_ranks])
    points = []
    for ranks in sorted(by_ranks):
        time = statistics.median(run["integrate_seconds"] for run in by_ranks[ranks])
        scale = ranks / base_ranks
        if mode == "strong":
            speedup = base_time / time
            efficiency = speedup / scale
        else:
            efficiency = base_time / time
            speedup = efficiency * scale
        for run in by_ranks[ranks]:
            run.update(campaign=name, mode=mode, median_seconds=time, speedup=speedup, ideal_speedup=scale,
                       efficiency=efficiency, repeats=len(by_ranks[ranks]))
        points.append({"resources": ranks, "ranks": by_ranks[ranks][0]["ranks"], "seconds": time, "speedup": speedup,
                       "ideal": scale, "efficiency": efficiency})
    hashes = {run["result_hash"] for run in runs}
    note = ""
    if mode == "strong" and len(hashes) > 1:
        note = f"result hashes differ between rank counts ({len(hashes)} distinct): outputs should not depend on ranks"
    resumed = [run for run in runs if run["first_outer_step"] > 1]
    if resumed:
        note += ("; " if note else "") + (f"{len(resumed)} run(s) resumed from a checkpoint: their times cover only the "
                                          "steps after it")
    return {"name": name, "mode": mode, "points": points, "runs": runs, "note": note, "axis": axis_label,
            "variant": runs[0]["backend"] + "/" + runs[0]["kernel_variant"]}


def format_value(value, digits=4):
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


CSV_COLUMNS = ("campaign", "mode", "file", "ranks", "threads", "resources", "backend", "kernel_variant", "decomposition", "zones",
               "steps", "integrate_seconds", "median_seconds", "repeats", "ns_per_zone_step", "zone_steps_per_second",
               "speedup", "ideal_speedup", "efficiency", "rank_min", "rank_mean", "rank_max", "imbalance", "result_hash")


def write_csv(path, rows, columns):
    with open(path + ".partial", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for row in rows:
            writer.writerow(["" if row.get(key) is None else (repr(row[key]) if isinstance(row[key], float) else row[key])
                             for key in columns])
    os.replace(path + ".partial", path)


def plot_scaling(out, mode, campaigns):
    written = []
    series = [c for c in campaigns if c["mode"] == mode]
    if not series:
        return written
    panels = (("time", "integration time [s]", "seconds"),
              ("speedup", "scaled speedup" if mode == "weak" else "speedup", "speedup"),
              ("efficiency", "efficiency", "efficiency"))
    all_x = sorted({p["resources"] for c in series for p in c["points"]})
    axis_labels = sorted({c["axis"] for c in series})
    for suffix, label, key in panels:
        figure, axes = plt.subplots(figsize=(6, 4))
        for number_, campaign in enumerate(series):
            x = [p["resources"] for p in campaign["points"]]
            line, = axes.plot(x, [p[key] for p in campaign["points"]], "o-", label=f"{campaign['name']} ({campaign['variant']})")
            if key == "seconds":
                # Ideal: strong T(n0) n0 / n, weak T(n0), from each campaign's own first point.
                first = campaign["points"][0]
                ideal = [first["seconds"] * (first["resources"] / v if mode == "strong" else 1.0) for v in x]
                axes.plot(x, ideal, "--", color=line.get_color(), alpha=0.6, label="ideal" if number_ == 0 else None)
        if key == "speedup":
            axes.plot(all_x, [v / all_x[0] for v in all_x], "k--", label="ideal")
        if key == "efficiency":
            axes.axhline(1.0, color="k", linestyle="--", label="ideal")
            axes.set_ylim(bottom=0, top=max(1.1, max(p["efficiency"] for c in series for p in c["points"]) * 1.05))
        else:
            axes.set_yscale("log")
            for set_formatter in (axes.yaxis.set_major_formatter, axes.yaxis.set_minor_formatter):
                set_formatter(matplotlib.ticker.FormatStrFormatter("%g"))  # 6, not 6x10^0
        axes.set_xscale("log", base=2)
        axes.set_xticks(all_x, [str(v) for v in all_x])
        axes.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())  # y keeps its labelled minor ticks
        axes.set_xlabel(" / ".join(axis_labels))
        axes.set_ylabel(label)
        axes.set_title(f"{mode} scaling: {label}")
        axes.legend(fontsize=7)
        axes.grid(True, which="both", alpha=0.3)
        figure.tight_layout()
        path = os.path.join(out, f"{mode}_{suffix}.png")
        figure.savefig(path, dpi=100)
        plt.close(figure)
        written.append(path)
    # Imbalance per run: one bar per run, n/a runs left out (and named in the title).
    runs = [run for c in series for run in sorted(c["runs"], key=lambda r: r["ranks"])]
    measured = [run for run in runs if run["imbalance"] is not None]
    figure, axes = plt.subplots(figsize=(max(6, 0.5 * len(runs)), 4))
    # The campaign's date-time (its name's start) tells several campaigns apart.
    labels = [(f"{run['campaign'][:15]}\n" if len(series) > 1 else "") + f"r{run['ranks']}" for run in measured]
    axes.bar(range(len(measured)), [run["imbalance"] for run in measured], color="tab:orange")
    axes.set_xticks(range(len(measured)), labels, fontsize=6)
    axes.axhline(1.0, color="k", linestyle="--")
    axes.set_ylabel("max / mean rank integration time")
    missing = len(runs) - len(measured)
    axes.set_title(f"{mode} scaling: imbalance per run")
    if missing:
        axes.text(0.5, 0.75, f"{missing} run(s) without per-rank times (summaries older than issue 9)", ha="center",
                  va="center", fontsize=8, transform=axes.transAxes)
    figure.tight_layout()
    path = os.path.join(out, f"{mode}_imbalance.png")
    figure.savefig(path, dpi=100)
    plt.close(figure)
    written.append(path)
    return written


def load_ladder(path):
    records = load_json(path)
    if not isinstance(records, list) or not records:
        raise InputError(f"{path}: expected a non-empty JSON list of variants (scripts/gpu-ladder.sh ladder.json)")
    rows = []
    for index, record in enumerate(records):
        where = f"{path}: entry {index}"
        if not isinstance(record, dict) or "variant" not in record:
            raise InputError(f"{where}: key 'variant' is missing")
        ns = number(where, record, "ns_per_zone_step")  # the ladder writes numbers as strings
        rows.append({"ladder": path, "variant": str(record["variant"]), "ns_per_zone_step": ns,
                     "speedup_vs_baseline": None, "speedup_vs_cpu": None, "fraction_of_floor": None})
        for key in ("speedup_vs_cpu", "fraction_of_floor"):
            if key in record:
                rows[-1][key] = number(where, record, key)
    base = rows[0]["ns_per_zone_step"]  # the ladder's first variant (baseline)
    for row in rows:
        row["speedup_vs_baseline"] = base / row["ns_per_zone_step"]
    return rows


def plot_ladder(out, ladders):
    figure, axes = plt.subplots(figsize=(7, 4))
    width = 0.8 / len(ladders)
    for number_, rows in enumerate(ladders):
        positions = [i + number_ * width for i in range(len(rows))]
        bars = axes.bar(positions, [r["ns_per_zone_step"] for r in rows], width, label=os.path.basename(rows[0]["ladder"]))
        for bar, row in zip(bars, rows):
            axes.annotate(f"{row['speedup_vs_baseline']:.2f}x", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                          ha="center", va="bottom", fontsize=7)
    axes.set_xticks([i + 0.4 - width / 2 for i in range(len(ladders[0]))], [r["variant"] for r in ladders[0]])
    axes.set_ylabel("ns per zone-step (lower is better)")
    axes.set_title("GPU kernel ladder (labels: speedup vs the first variant)")
    axes.legend(fontsize=7)
    figure.tight_layout()
    path = os.path.join(out, "ladder.png")
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def markdown(campaigns, ladders, jobs, plots_note):
    lines = ["# zoneode report", ""]
    if plots_note:
        lines += [plots_note, ""]
    for campaign in campaigns:
        lines += [f"## {campaign['name']}: {campaign['mode']} scaling, {campaign['variant']}", "",
                  f"n = {campaign['axis']}.", ""]
        lines += ["| ranks | n | zones | repeats | time [s] | ns per zone-step | speedup | ideal | efficiency | imbalance |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for run in sorted(campaign["runs"], key=lambda r: (r["resources"], r["file"])):
            lines.append(f"| {run['ranks']} | {run['resources']} | {run['zones']} | {run['repeats']} | "
                         f"{format_value(run['integrate_seconds'])} | "
                         f"{format_value(run['ns_per_zone_step'])} | {run['speedup']:.3f} | {run['ideal_speedup']:.3g} | "
                         f"{run['efficiency']:.3f} | {format_value(run['imbalance'], 3)} |")
        if campaign["note"]:
            lines += ["", f"Note: {campaign['note']}."]
        lines.append("")
        rows = jobs.get(campaign["name"])
        if rows:
            rows, source = rows
            lines += [f"### Jobs (accounting: {source})", "",
                      "| job | ranks | status | state | exit | attempts | stopped 75, resumed | elapsed [s] | GPUs | GPU-hours | energy [J] |",
                      "|---|---|---|---|---|---|---|---|---|---|---|"]
            for row in rows:
                lines.append(f"| {row['job']} | {row['ranks']} | {row['status']} | {row.get('state') or ''} | "
                             f"{row.get('exit_code') or ''} | {row.get('attempts', '')} | {row.get('stopped_75_and_resumed', '')} | "
                             f"{format_value(row.get('elapsed_seconds'))} | {format_value(row.get('gpus'))} | "
                             f"{format_value(row.get('gpu_hours'), 3)} | {format_value(row.get('energy_joules'))} |")
            bad = [row for row in rows if not row["status"].startswith("finished")]
            lines += ["", f"Missing or failed runs: {len(bad)} of {len(rows)}" +
                      ("." if not bad else ": " + ", ".join(f"{row['job']} (r{row['ranks']}, {row['status']})" for row in bad) + "."),
                      ""]
    for rows in ladders:
        lines += [f"## GPU ladder: {rows[0]['ladder']}", "", "| variant | ns per zone-step | vs first | vs CPU | of floor |",
                  "|---|---|---|---|---|"]
        for row in rows:
            lines.append(f"| {row['variant']} | {row['ns_per_zone_step']:.4g} | {row['speedup_vs_baseline']:.2f} | "
                         f"{format_value(row['speedup_vs_cpu'], 3)} | {format_value(row['fraction_of_floor'], 3)} |")
        lines.append("")
    return "\n".join(lines)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="*", help="campaign folders or summary JSON files")
    parser.add_argument("--ladder", action="append", default=[], help="a GPU ladder JSON (scripts/gpu-ladder.sh)")
    parser.add_argument("--out", help="output folder (default <first campaign>/report)")
    parser.add_argument("--mode", choices=("strong", "weak"), help="the mode of every campaign given")
    args = parser.parse_args(argv)
    if not args.inputs and not args.ladder:
        parser.error("give at least one campaign folder, summary file or --ladder")
    try:
        groups = {}
        for item in args.inputs:
            if os.path.isdir(item):
                files = sorted(os.path.join(item, f) for f in os.listdir(item) if f.endswith(".json"))
                groups.setdefault(os.path.normpath(item), []).extend(files)
            elif os.path.isfile(item):
                groups.setdefault(os.path.dirname(os.path.normpath(item)) or ".", []).append(item)
            else:
                raise InputError(f"{item}: no such file or folder")
        campaigns, jobs = [], {}
        for folder, files in groups.items():
            runs = [load_summary(f) for f in files]
            name = os.path.basename(folder) or folder
            if runs:
                mode = campaign_mode(folder, runs, args.mode)
                campaigns.append(analyse(name, folder, runs, mode))
            jobs[name] = report_jobs.job_rows(name, folder, runs)
            if not runs and not jobs[name][0]:
                raise InputError(f"{folder}: no JSON summaries and no jobs.txt in this folder")
        ladders = [load_ladder(path) for path in args.ladder]
    except (InputError, report_jobs.AccountingError) as error:
        print(f"report.py: {error}", file=sys.stderr)
        return 2
    out = args.out or os.path.join(next(iter(groups), "."), "report")
    os.makedirs(out, exist_ok=True)
    written = []
    plots_note = "" if plt is not None else \
        f"Plots skipped: {sys.executable} has no matplotlib (tables only; set ZONEODE_PYTHON to a Python with it)."
    if campaigns:
        path = os.path.join(out, "report.csv")
        write_csv(path, [run for c in campaigns for run in sorted(c["runs"], key=lambda r: r["resources"])], CSV_COLUMNS)
        written.append(path)
        if any(rows for rows, _ in jobs.values()):
            path = os.path.join(out, "jobs.csv")
            write_csv(path, [row for rows, _ in jobs.values() for row in rows], report_jobs.JOB_COLUMNS)
            written.append(path)
        if plt is not None:
            for mode in ("strong", "weak"):
                written += plot_scaling(out, mode, campaigns)
    if ladders:
        path = os.path.join(out, "ladder.csv")
        write_csv(path, [row for rows in ladders for row in rows],
                  ("ladder", "variant", "ns_per_zone_step", "speedup_vs_baseline", "speedup_vs_cpu", "fraction_of_floor"))
        written.append(path)
        if plt is not None:
            written.append(plot_ladder(out, ladders))
    text = markdown(campaigns, ladders, jobs, plots_note)
    path = os.path.join(out, "report.md")
    with open(path + ".partial", "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
    os.replace(path + ".partial", path)
    written.append(path)
    print(text)
    print("report.py: wrote " + ", ".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
