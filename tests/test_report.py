#!/usr/bin/python3
"""Tests of scripts/report.py on synthetic campaigns (numbers computed by hand here) and on the real
ladder JSON in kernels/results/. Run: /usr/bin/python3 tests/test_report.py [-v]
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
LADDER = os.path.join(SOURCE, "kernels", "results", "h200-ladder-run2.json")


def summary(ranks, zones, seconds, per_rank=None, steps=1000000, variant="none", result_hash="abc"):
    record = {"deck": "inputs/quick.yaml", "ranks": ranks, "threads": 1, "backend": "cpu", "kernel_variant": variant,
              "zones": zones, "steps": steps, "integrate_seconds": seconds, "result_hash": result_hash}
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
        self.assertIn("| 4 | 512 | 1 | 2.5 | 2500 | 3.200 | 4 | 0.800 | 1.11 |", markdown)
        self.assertIn("| 2 | 512 | 3 | 4 | 4000 | 1.905 | 2 | 0.952 | n/a |", markdown)
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


if __name__ == "__main__":
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"test_report.py: skipped: {sys.executable} has no matplotlib (apt-get install python3-matplotlib)")
        sys.exit(77)
    unittest.main()
