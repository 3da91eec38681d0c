#!/usr/bin/python3
"""How the adaptive schedule's error falls with rtol, for several atol: the measurement behind the
default `integrator.atol` (validation/README.md, "Choosing the default atol").

For each case (a deck with --set overrides, a few zones), it runs the asymptotic method with the
adaptive schedule at every (atol, rtol) pair and compares the final abundances with a tight
reference: Richardson extrapolation of the geometric schedule (first order) at dt fractions f and
f/2, R = 2 Y(f/2) - Y(f). The reference's own error is estimated from a second extrapolation at
f/2 and f/4 and printed beside it; a table is trustworthy where its errors are well above that.

Error: the largest relative error |Y - Y_ref| / Y_ref over every zone and every species holding
a mass fraction X_ref = A Y_ref of at least --significant (1e-6). Zones whose status is not ok
are reported as such instead of an error.

Usage: /usr/bin/python3 validation/atol_sweep.py [--zoneode build/zoneode] [--cases reaclib,quick,default]
       [--jobs 2] [--work DIR]   (numpy, h5py; the reaclib case needs ../shared/reaclib)
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name: (deck, overrides, reference dt fraction f, end of the burn for the table's title)
CASES = {
    "reaclib": ("inputs/reaclib_rp.yaml",
                ["zones.count=1", "zones.density={profile: constant, value: 1.0e5}"], 4e-6),
    "quick": ("inputs/quick.yaml", ["zones.count=8"], 4e-6),
    "default": ("inputs/default.yaml", ["zones.count=4", "integrator.method=asymptotic"], 1e-5),
}
ATOLS = [1e-12, 1e-14, 1e-16, 1e-20]
RTOLS = [1e-3, 1e-4, 1e-5, 1e-6]


def run(zoneode, deck, overrides, work, tag):
    """Runs zoneode once; returns (Y [zones][species], A [species], status [zones], accepted steps)."""
    prefix = os.path.join(work, tag)
    args = [zoneode, os.path.join(REPO, deck), "--quiet", "--force", "--threads", "1",
            "--set", f"output.prefix={prefix}", "--summary", prefix + ".json"]
    for o in overrides:
        args += ["--set", o]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode not in (0, 3):
        sys.exit(f"{' '.join(args)}\nexit {done.returncode}\n{done.stderr}")
    with h5py.File(prefix + "_step000001.h5", "r") as f:
        return (f["abundances"][()], f["species/A"][()], f["status"][()],
                int(f["integrator_steps"][()].sum()))


def max_relative_error(Y, Y_ref, A, significant):
    mask = (Y_ref * A[None, :]) >= significant
    return float(np.max(np.abs(Y[mask] - Y_ref[mask]) / Y_ref[mask]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoneode", default=os.path.join(REPO, "build", "zoneode"))
    parser.add_argument("--cases", default="reaclib,quick,default")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--significant", type=float, default=1e-6)
    parser.add_argument("--work", default=None, help="folder for the runs (default: a temporary one)")
    parser.add_argument("--json", default=None, help="also write the measured numbers here")
    opts = parser.parse_args()
    work = opts.work or tempfile.mkdtemp(prefix="atol_sweep.")
    os.makedirs(work, exist_ok=True)
    results = {}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs)
    for case in opts.cases.split(","):
        deck, base, f = CASES[case]
        base = base + ["integrator.max_steps=100000000", "integrator.max_mass_drift=1e-2"]
        geometric = base + ["integrator.schedule=geometric"]
        jobs = {}
        for k, frac in enumerate((f, f / 2, f / 4)):
            jobs[("ref", k)] = pool.submit(run, opts.zoneode, deck, geometric + [f"integrator.dt_fraction={frac}"],
                                           work, f"{case}_ref{k}")
        for atol in ATOLS:
            for rtol in RTOLS:
                jobs[(atol, rtol)] = pool.submit(
                    run, opts.zoneode, deck,
                    base + ["integrator.schedule=adaptive", f"integrator.atol={atol}", f"integrator.rtol={rtol}"],
                    work, f"{case}_a{atol:g}_r{rtol:g}")
        refs = [jobs[("ref", k)].result() for k in range(3)]
        for k, (_, _, status, _) in enumerate(refs):
            if (status != 0).any():
                sys.exit(f"{case}: reference run {k} has failed zones: {status}")
        A = refs[0][1]
        ref = 2 * refs[1][0] - refs[0][0]
        ref_check = 2 * refs[2][0] - refs[1][0]
        ref_error = max_relative_error(ref, ref_check, A, opts.significant)
        plain_error = max_relative_error(refs[2][0], ref_check, A, opts.significant)
        print(f"\n## {case}: {deck} {' '.join(base[:-2])}")
        print(f"reference: geometric f = {f:g}, {f/2:g} extrapolated; against f/2, f/4 extrapolated: "
              f"{ref_error:.1e} (the plain f/4 run: {plain_error:.1e}); {refs[2][3]} steps at f/4")
        print("| atol \\ rtol | " + " | ".join(f"{r:g}" for r in RTOLS) + " |")
        print("|---|" + "---|" * len(RTOLS))
        table = {}
        for atol in ATOLS:
            cells = []
            for rtol in RTOLS:
                Y, _, status, steps = jobs[(atol, rtol)].result()
                if (status != 0).any():
                    cells.append(f"fails ({int((status != 0).sum())} zones)")
                    table[f"{atol:g},{rtol:g}"] = {"failed_zones": int((status != 0).sum()), "steps": steps}
                else:
                    err = max_relative_error(Y, ref, A, opts.significant)
                    cells.append(f"{err:.1e} ({steps})")
                    table[f"{atol:g},{rtol:g}"] = {"error": err, "steps": steps}
            print(f"| {atol:g} | " + " | ".join(cells) + " |")
        results[case] = {"reference_error": ref_error, "table": table}
        sys.stdout.flush()
    print("\ncells: max relative error over significant abundances (accepted steps summed over zones)")
    if opts.json:
        with open(opts.json, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
