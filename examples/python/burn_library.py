#!/usr/bin/env python3
"""Burns a REACLIB library written by pynucastro (Library.write_to_file) through zoneode's Python module,
on the CPU or the GPU, and follows the abundances in time: a notebook user's burn (issue 41).

A few zones of an rp-process mix (X(p) 0.7, he4 0.28, c12 and o16 0.01) at T9 1.0-1.5, rho 1e6 g/cm^3,
burned over successive intervals from 1e-10 s to --end (each interval one zoneode_burn, as an
operator-split code calls it), the implicit method at rtol 1e-6. Writes OUT/abundances.csv (time, zone,
the mass fraction of every species) and, when matplotlib is there, OUT/abundances.png (the most
abundant species of the last zone against time). Exit 0 when every zone of every burn ends ok and sum X = 1
within 1e-6 in every zone at every time.

  PYTHONPATH=$PWD/python python3 examples/python/burn_library.py --backend gpu --out burn-out
  (--library/--nuclides: another library and the nuclides to keep; default the rp-z24 slice shipped in
   inputs/networks/, which is pynucastro's rp-process library format)
"""
import argparse
import os
import sys

import numpy as np

import zoneode

here = os.path.dirname(os.path.abspath(__file__))
source = os.path.normpath(os.path.join(here, "..", ".."))

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
parser.add_argument("--library", default=os.path.join(source, "inputs/networks/rp-z24.reaclib"))
parser.add_argument("--nuclides", default=os.path.join(source, "inputs/networks/rp-z24.nuclides"))
parser.add_argument("--zones", type=int, default=4)
parser.add_argument("--end", type=float, default=1.0, help="end of the burn [s]")
parser.add_argument("--intervals", type=int, default=24, help="burns, log-spaced in time")
parser.add_argument("--out", default="burn-library-out")
args = parser.parse_args()
if args.zones < 1 or args.intervals < 1 or not args.end > 1.0e-6:
    parser.error("expected --zones >= 1, --intervals >= 1 and --end > 1e-6 s (the first interval ends at 1e-6 s)")

deck = f"""network: {{source: reaclib, file: "{args.library}", nuclides_file: "{args.nuclides}"}}
integrator: {{method: implicit, schedule: adaptive, start_time: 1.0e-10, rtol: 1.0e-6, atol: 1.0e-20}}
run: {{backend: {args.backend}}}
"""
burner = zoneode.Burner(deck)
print(f"zoneode {zoneode.version()}: {len(burner.species)} species; {burner.backend}")

# The zones: T9 1.0-1.5 GK, rho 1e6 g/cm^3, the rp mix as abundances Y = X / A [mol/g].
T9 = np.linspace(1.0, 1.5, args.zones)
rho = np.full(args.zones, 1.0e6)
Y = np.zeros((args.zones, len(burner.species)))
for name, X in {"p": 0.7, "he4": 0.28, "c12": 0.01, "o16": 0.01}.items():
    index = burner.species.index(name)
    Y[:, index] = X / burner.mass_numbers[index]

times = np.concatenate([[1.0e-10], np.geomspace(1.0e-6, args.end, args.intervals)])
rows, ok = [], True
for start, end in zip(times[:-1], times[1:]):
    burner.burn(T9, rho, Y, end - start)  # in place: Y (and T9, with self-heating) are the state after it
    X = Y * burner.mass_numbers
    drift = np.abs(X.sum(axis=1) - 1.0).max()
    failed = burner.last_burn_failed
    if failed or drift > 1e-6:
        ok = False
        print(f"t = {end:.3e} s: {'failed: ' + burner.last_message if failed else ''} max |sum X - 1| {drift:.2e}")
    rows += [[end, zone, *X[zone]] for zone in range(args.zones)]

os.makedirs(args.out, exist_ok=True)
table = np.array(rows)
np.savetxt(os.path.join(args.out, "abundances.csv"), table, delimiter=",",
           header="time_s,zone," + ",".join(burner.species), comments="")
last = table[table[:, 1] == args.zones - 1]
most_abundant = np.argsort(last[-1, 2:])[::-1][:8]
print(f"after {args.end:g} s, zone {args.zones - 1} (T9 {T9[-1]:.2f}): " +
      ", ".join(f"{burner.species[i]} {last[-1, 2 + i]:.3e}" for i in most_abundant))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for i in most_abundant:
        axes.loglog(last[:, 0], np.maximum(last[:, 2 + i], 1e-30), label=burner.species[i])
    axes.set_xlabel("time [s]")
    axes.set_ylabel("mass fraction")
    axes.set_ylim(1e-8, 1.5)
    axes.set_title(f"{os.path.basename(args.library)}, T9 {T9[-1]:.2f}, rho 1e6, {args.backend}")
    axes.legend(fontsize=8)
    figure.savefig(os.path.join(args.out, "abundances.png"), dpi=120, bbox_inches="tight")
    print(f"wrote {args.out}/abundances.csv and abundances.png")
except ImportError:
    print(f"wrote {args.out}/abundances.csv (no matplotlib: no plot)")
burner.close()
print("passed" if ok else "FAILED")
sys.exit(0 if ok else 1)
