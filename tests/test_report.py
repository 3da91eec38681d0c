#!/usr/bin/python3
"""Tests of scripts/report.py on synthetic campaigns (numbers computed by hand here) and on the real
ladder JSON in docs/results/. Run: /usr/bin/python3 tests/test_report.py [-v]
Exits 77 (skipped) when matplotlib is not importable by this interpreter."""

import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPORT = os.path.join(SOURCE, "scripts", "report.py")
LADDER = os.path.join(SOURCE, "docs", "results", "h200-ladder-run2.json")


def summary(ranks, zones, seconds, per_rank=None, steps=1000000, variant="none", result_hash="abc", threads=1,
            backend="cpu", first_outer_step=1):
    record = {"deck": "inputs/quick.yaml", "ranks": ranks, "threads": threads, "backend": backend, "kernel_variant": variant,
              "zones": zones, "steps": steps, "integrate_seconds": seconds, "result_hash": result_hash,
              "first_outer_step": first_outer_step}
    if per_rank is not None:
        record["integrate_seconds_per_rank"] = per_rank
    return record


def write_campaign(folder, mode, records):
    os.makedirs(folder)
    if mode:
        with open(os.path.join(folder, "campaign.txt"), "w") as handle:
            handle.write(f"mode {mode}\ndeck inputs/quick.yaml\n")
    for index, record in enumerate(records):
        with open(os.path.join(folder, f"{index}-r{record['ranks']}.json"), "w") as handle:
            json.dump(record, handle)


def run_report(*args):
    return subprocess.run([sys.executable, REPORT, *args], capture_output=True, text=True)


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def read_text(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def is_png(path):
    with open(path, "rb") as handle:
        return handle.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 1000


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.TemporaryDirectory()
        self.addCleanup(self.work.cleanup)

    def path(self, *parts):
        return os.path.join(self.work.name, *parts)

    def test_strong_scaling_by_hand(self):
        # 1 rank 8 s; 2 ranks three repeats 4.4, 4.0, 4.2 (median 4.2); 4 ranks 2.5 s with per-rank times.
        per_rank = {"min": 2.0, "mean": 2.25, "max": 2.5, "imbalance": 2.5 / 2.25}
        write_campaign(self.path("strong"), "strong", [
            summary(1, 512, 8.0), summary(2, 512, 4.4), summary(2, 512, 4.0), summary(2, 512, 4.2),
            summary(4, 512, 2.5, per_rank)])
        result = run_report(self.path("strong"), "--out", self.path("out"))
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = {(int(r["ranks"]), float(r["integrate_seconds"])): r for r in read_csv(self.path("out", "report.csv"))}
        self.assertEqual(len(rows), 5)
        self.assertAlmostEqual(float(rows[(1, 8.0)]["speedup"]), 1.0, places=12)
        for seconds in (4.4, 4.0, 4.2):
            row = rows[(2, seconds)]
            self.assertAlmostEqual(float(row["median_seconds"]), 4.2, places=12)
            self.assertAlmostEqual(float(row["speedup"]), 8.0 / 4.2, places=12)
            self.assertAlmostEqual(float(row["efficiency"]), 8.0 / 4.2 / 2, places=12)
            self.assertEqual(row["repeats"], "3")
            self.assertEqual(row["imbalance"], "")  # no per-rank times: n/a, not an error
        row = rows[(4, 2.5)]
        self.assertAlmostEqual(float(row["speedup"]), 3.2, places=12)
        self.assertAlmostEqual(float(row["efficiency"]), 0.8, places=12)
        self.assertAlmostEqual(float(row["imbalance"]), 10.0 / 9.0, places=12)
        # ns per zone-step: 1e9 * 2.5 s / 1e6 steps = 2500.
        self.assertAlmostEqual(float(row["ns_per_zone_step"]), 2500.0, places=9)
        markdown = read_text(self.path("out", "report.md"))
        self.assertIn("| 4 | 4 | 512 | 1 | 2.5 | 2500 | 3.200 | 4 | 0.800 | 1.11 |", markdown)
        self.assertIn("| 2 | 2 | 512 | 3 | 4 | 4000 | 1.905 | 2 | 0.952 | n/a |", markdown)
        self.assertIn("n = CPU cores (ranks x threads).", markdown)
        for name in ("strong_time", "strong_speedup", "strong_efficiency", "strong_imbalance"):
            self.assertTrue(is_png(self.path("out", name + ".png")), name)
        self.assertFalse(os.path.exists(self.path("out", "weak_time.png")))

    def test_weak_scaling_by_hand_and_inferred_mode(self):
        # 100 zones per rank; no campaign.txt, so the mode comes from zones / ranks being constant.
        write_campaign(self.path("weak"), None, [summary(1, 100, 1.0), summary(2, 200, 1.25), summary(4, 400, 2.0)])
        result = run_report(self.path("weak"), "--out", self.path("out"))
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = {int(r["ranks"]): r for r in read_csv(self.path("out", "report.csv"))}
        self.assertEqual({r["mode"] for r in rows.values()}, {"weak"})
        self.assertAlmostEqual(float(rows[2]["efficiency"]), 0.8, places=12)
        self.assertAlmostEqual(float(rows[2]["speedup"]), 1.6, places=12)
        self.assertAlmostEqual(float(rows[4]["efficiency"]), 0.5, places=12)
        self.assertAlmostEqual(float(rows[4]["speedup"]), 2.0, places=12)
        self.assertTrue(is_png(self.path("out", "weak_efficiency.png")))

    def test_real_ladder(self):
        # The ladder script computed speedup_vs_baseline itself: the report must agree with it.
        result = run_report("--ladder", LADDER, "--out", self.path("out"))
        self.assertEqual(result.returncode, 0, result.stderr)
        original = {r["variant"]: float(r["speedup_vs_baseline"]) for r in load(LADDER)}
        rows = read_csv(self.path("out", "ladder.csv"))
        self.assertEqual([r["variant"] for r in rows], ["baseline", "lds", "wave", "tuned", "final"])
        for row in rows:
            self.assertAlmostEqual(float(row["speedup_vs_baseline"]), original[row["variant"]], places=9)
        self.assertAlmostEqual(float(rows[-1]["speedup_vs_baseline"]), 80.01696654799069 / 16.668291292865867, places=12)
        self.assertTrue(is_png(self.path("out", "ladder.png")))
        self.assertIn("| final | 16.67 | 4.80 | 43.3 | 0.318 |", read_text(self.path("out", "report.md")))

    def test_bad_inputs_exit_2_naming_file_and_key(self):
        write_campaign(self.path("mixed"), "strong", [summary(1, 512, 1.0), summary(2, 1024, 1.0)])
        result = run_report(self.path("mixed"), "--out", self.path("out"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("1-r2.json: key 'zones' = 1024: a strong campaign needs the same zones", result.stderr)

        os.makedirs(self.path("broken"))
        with open(self.path("broken", "a.json"), "w") as handle:
            handle.write('{"ranks": 1,\n "zones": }')
        result = run_report(self.path("broken"), "--out", self.path("out"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("a.json: line 2, column 11: not JSON", result.stderr)

        record = summary(1, 512, 1.0)
        del record["integrate_seconds"]
        write_campaign(self.path("missing"), "strong", [record])
        result = run_report(self.path("missing"), "--out", self.path("out"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("0-r1.json: key 'integrate_seconds' is missing", result.stderr)

        lying = summary(2, 512, 1.0, {"min": 1.0, "mean": 1.0, "max": 2.0, "imbalance": 1.0})
        write_campaign(self.path("lying"), "strong", [lying])
        result = run_report(self.path("lying"), "--out", self.path("out"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("imbalance 1.0 is not max/mean = 2", result.stderr)

        result = run_report(self.path("nowhere"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("nowhere: no such file or folder", result.stderr)


def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


class JobsAndAccountingTest(unittest.TestCase):
    """Every submitted job accounted for: sacct's (or scontrol's) records, run.sbatch's attempts."""

    def setUp(self):
        self.work = tempfile.TemporaryDirectory()
        self.addCleanup(self.work.cleanup)
        self.campaign = os.path.join(self.work.name, "20260101-000000-gpu-final-strong")
        os.makedirs(self.campaign)
        write_text(os.path.join(self.campaign, "campaign.txt"),
                   "mode strong\ndeck inputs/s150.yaml\nsite lumi backend gpu variant final threads 1 gpu_vendor amd\n")
        # 8 GCDs 10 s; 16 GCDs 6 s (stopped by USR1 and resumed); 32: cancelled while pending; 64: exit 1.
        for job, ranks, seconds in (("101", 8, 10.0), ("102", 16, 6.0)):
            with open(os.path.join(self.campaign, f"{job}-gpu-final-r{ranks}.json"), "w") as handle:
                json.dump(summary(ranks, 4096, seconds, backend="gpu", variant="final",
                                  first_outer_step=4 if job == "102" else 1), handle)
        write_text(os.path.join(self.campaign, "jobs.txt"), "101 8 1 1\n102 16 2 1\n103 32 4 1\n104 64 8 1\n")
        write_text(os.path.join(self.campaign, "runs", "101-gpu-final-r8", "jobs.txt"), "101 0 0 1000 1100 8 1 8\n")
        write_text(os.path.join(self.campaign, "runs", "102-gpu-final-r16", "jobs.txt"),
                   "102 0 75 1000 1050 16 2 16\n102 1 0 1200 1290 16 2 16\n")
        write_text(os.path.join(self.campaign, "runs", "104-gpu-final-r64", "jobs.txt"), "104 0 1 1000 1007 64 8 64\n")

    def report(self):
        result = run_report(self.campaign, "--out", os.path.join(self.campaign, "report"))
        self.assertEqual(result.returncode, 0, result.stderr)
        rows = {row["job"]: row for row in read_csv(os.path.join(self.campaign, "report", "jobs.csv"))}
        return rows, read_text(os.path.join(self.campaign, "report", "report.md"))

    def test_sacct_records_with_energy_and_a_requeued_job(self):
        # sacct -X -D -P: job 102 twice (REQUEUED, then COMPLETED): times and energy add up.
        write_text(os.path.join(self.campaign, "accounting.txt"),
                   "# source: sacct -X -D -P -o JobID,JobName,State,ExitCode,ElapsedRaw,AllocTRES,ConsumedEnergyRaw,NNodes\n"
                   "JobID|JobName|State|ExitCode|ElapsedRaw|AllocTRES|ConsumedEnergyRaw|NNodes\n"
                   "101|zoneode-strong-r8|COMPLETED|0:0|120|billing=128,cpu=128,gres/gpu=8,mem=480G,node=1|360000|1\n"
                   "102|zoneode-strong-r16|REQUEUED|75:0|60|cpu=256,gres/gpu=16,node=2|200000|2\n"
                   "102|zoneode-strong-r16|COMPLETED|0:0|100|cpu=256,gres/gpu=16,node=2|300000|2\n"
                   "103|zoneode-strong-r32|CANCELLED by 0|0:0|0|||4\n"
                   "104|zoneode-strong-r64|FAILED|1:0|9|cpu=1024,gres/gpu:mi250=64,node=8|90000|8\n")
        rows, markdown = self.report()
        self.assertEqual(sorted(rows), ["101", "102", "103", "104"])
        # 120 s x 8 GCDs = 960 GCD-seconds = 0.2667 GPU-hours.
        self.assertAlmostEqual(float(rows["101"]["gpu_hours"]), 120 * 8 / 3600, places=12)
        self.assertEqual(rows["101"]["energy_joules"], "360000")
        self.assertEqual(rows["101"]["status"], "finished")
        self.assertEqual(rows["102"]["elapsed_seconds"], "160")
        self.assertAlmostEqual(float(rows["102"]["gpu_hours"]), 160 * 16 / 3600, places=12)
        self.assertEqual(rows["102"]["energy_joules"], "500000")
        self.assertEqual((rows["102"]["attempts"], rows["102"]["stopped_75_and_resumed"]), ("2", "yes"))
        self.assertEqual(rows["103"]["status"], "missing: CANCELLED")
        self.assertEqual(rows["103"]["summary"], "")
        self.assertEqual(rows["104"]["status"], "failed: exit 1")
        self.assertEqual(rows["104"]["gpus"], "64")  # gres/gpu:TYPE=N counts too
        self.assertIn("Missing or failed runs: 2 of 4: 103 (r32, missing: CANCELLED), 104 (r64, failed: exit 1).", markdown)
        self.assertIn("| 102 | 16 | finished | COMPLETED | 0:0 | 2 | yes | 160 | 16 | 0.711 | 500000 |", markdown)
        self.assertIn("1 run(s) resumed from a checkpoint", markdown)
        self.assertIn("n = GCDs (MI250X: one per rank).", markdown)
        # Scaling uses the finished runs only: 16 GCDs against 8: speedup 10/6.
        scaling = {int(r["ranks"]): r for r in read_csv(os.path.join(self.campaign, "report", "report.csv"))}
        self.assertEqual(sorted(scaling), [8, 16])
        self.assertAlmostEqual(float(scaling[16]["speedup"]), 10.0 / 6.0, places=12)

    def test_energy_zero_is_not_recorded(self):
        # A site without energy gathering: sacct's ConsumedEnergyRaw is 0 for every job: n/a, not 0 J.
        write_text(os.path.join(self.campaign, "accounting.txt"),
                   "# source: sacct -X -D -P -o JobID,JobName,State,ExitCode,ElapsedRaw,AllocTRES,ConsumedEnergyRaw,NNodes\n"
                   "JobID|JobName|State|ExitCode|ElapsedRaw|AllocTRES|ConsumedEnergyRaw|NNodes\n"
                   "101|zoneode-strong-r8|COMPLETED|0:0|120|cpu=128,gres/gpu=8,node=1|0|1\n"
                   "102|zoneode-strong-r16|COMPLETED|0:0|100|cpu=256,gres/gpu=16,node=2|0|2\n")
        rows, markdown = self.report()
        self.assertEqual(rows["101"]["energy_joules"], "")
        self.assertIn("| 101 | 8 | finished | COMPLETED | 0:0 | 1 | no | 120 | 8 | 0.267 | n/a |", markdown)

    def test_scontrol_fallback_and_run_sbatch_times(self):
        # No accounting database: scontrol's RunTime (in seconds here), no energy; 104 has no record
        # at all, so its elapsed time comes from run.sbatch's attempt line (1007 - 1000 s).
        write_text(os.path.join(self.campaign, "accounting.txt"),
                   "# source: scontrol show job (sacct: Slurm accounting storage is disabled)\n"
                   "JobID|JobName|State|ExitCode|ElapsedRaw|AllocTRES|ConsumedEnergyRaw|NNodes\n"
                   "101|zoneode|COMPLETED|0:0|120|cpu=128,node=1,billing=128,gres/gpu=8||1\n"
                   "102|zoneode|COMPLETED|0:0|90|cpu=256,node=2,gres/gpu=16||2\n"
                   "103|zoneode|CANCELLED|0:0|0|cpu=512,node=4||4\n")
        rows, markdown = self.report()
        self.assertEqual(rows["101"]["energy_joules"], "")
        self.assertEqual(rows["101"]["elapsed_source"], "scontrol")
        self.assertEqual((rows["104"]["elapsed_seconds"], rows["104"]["elapsed_source"]), ("7", "run.sbatch"))
        self.assertAlmostEqual(float(rows["104"]["gpu_hours"]), 7 * 64 / 3600, places=12)
        self.assertIn("### Jobs (accounting: scontrol show job", markdown)

    def test_no_accounting_and_a_job_that_never_ran(self):
        os.remove(os.path.join(self.campaign, "runs", "104-gpu-final-r64", "jobs.txt"))
        rows, markdown = self.report()
        self.assertEqual(rows["104"]["status"], "missing: no run and no accounting record")
        self.assertEqual(rows["103"]["elapsed_seconds"], "")
        self.assertEqual(rows["101"]["elapsed_source"], "run.sbatch")

    def test_bad_accounting_exits_2(self):
        write_text(os.path.join(self.campaign, "accounting.txt"), "JobID|State\n101|COMPLETED\n")
        result = run_report(self.campaign, "--out", os.path.join(self.campaign, "report"))
        self.assertEqual(result.returncode, 2)
        self.assertIn("accounting.txt: line 1: header lacks 'ExitCode'", result.stderr)


class PlotTest(unittest.TestCase):
    """The figures themselves: log axes, GPUs or cores on x, ideal lines at the hand-computed values."""

    def test_strong_time_and_speedup_axes(self):
        sys.path.insert(0, os.path.dirname(REPORT))
        import report  # noqa: E402
        figures = []
        original_close = report.plt.close
        report.plt.close = figures.append
        self.addCleanup(setattr, report.plt, "close", original_close)
        runs = [report.load_summary(path) for path in self._files([(2, 8.0, 2), (4, 5.0, 2), (8, 2.5, 2)])]
        campaign = report.analyse("c", self.folder, runs, "strong")
        with tempfile.TemporaryDirectory() as out:
            report.plot_scaling(out, "strong", [campaign])
        time_axes, speedup_axes, efficiency_axes = (figure.axes[0] for figure in [f for f in figures if hasattr(f, "axes")][:3])
        self.assertEqual((time_axes.get_xscale(), time_axes.get_yscale()), ("log", "log"))
        self.assertEqual(speedup_axes.get_yscale(), "log")
        self.assertEqual(efficiency_axes.get_yscale(), "linear")
        # CPU runs: n = ranks x threads = 4, 8, 16 cores; ideal time 8 s x 4 / n.
        self.assertEqual(time_axes.get_xlabel(), "CPU cores (ranks x threads)")
        ideal = [line for line in time_axes.get_lines() if line.get_label() == "ideal"][0]
        self.assertEqual(list(ideal.get_xdata()), [4, 8, 16])
        self.assertEqual(list(ideal.get_ydata()), [8.0, 4.0, 2.0])
        measured = time_axes.get_lines()[0]
        self.assertEqual(list(measured.get_ydata()), [8.0, 5.0, 2.5])
        ideal_speedup = [line for line in speedup_axes.get_lines() if line.get_label() == "ideal"][0]
        self.assertEqual(list(ideal_speedup.get_ydata()), [1.0, 2.0, 4.0])

    def _files(self, specs):
        self.work = tempfile.TemporaryDirectory()
        self.addCleanup(self.work.cleanup)
        self.folder = self.work.name
        paths = []
        for ranks, seconds, threads in specs:
            path = os.path.join(self.folder, f"{ranks}.json")
            with open(path, "w") as handle:
                json.dump(summary(ranks, 512, seconds, threads=threads), handle)
            paths.append(path)
        return paths

    def test_without_matplotlib_tables_only(self):
        # A matplotlib that cannot be imported (planted first on the path): tables, and the report says why.
        with tempfile.TemporaryDirectory() as work:
            write_text(os.path.join(work, "fake", "matplotlib", "__init__.py"), "raise ImportError('planted')\n")
            write_campaign(os.path.join(work, "c"), "strong", [summary(1, 512, 2.0), summary(2, 512, 1.0)])
            result = subprocess.run([sys.executable, REPORT, os.path.join(work, "c"), "--out", os.path.join(work, "out")],
                                    capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.path.join(work, "fake")))
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("Plots skipped:", read_text(os.path.join(work, "out", "report.md")))
            self.assertTrue(os.path.isfile(os.path.join(work, "out", "report.csv")))
            self.assertFalse([f for f in os.listdir(os.path.join(work, "out")) if f.endswith(".png")])


if __name__ == "__main__":
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"test_report.py: skipped: {sys.executable} has no matplotlib (apt-get install python3-matplotlib)")
        sys.exit(77)
    unittest.main()
