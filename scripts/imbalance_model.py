#!/usr/bin/python3
"""The load balance of `count` and `cost` decompositions, from the state files of one run.

Usage: /usr/bin/python3 scripts/imbalance_model.py PREFIX RANKS
(PREFIX_stepNNNNNN.h5 of a run that wrote every outer step, e.g. `--set output.prefix=PREFIX`).

Takes each zone's /integrator_steps per outer step as its cost and prints, per outer step, the
max/mean of the ranks' summed cost with equal-count blocks and with blocks cut by the previous
step's cost (as zones.decomposition: cost does; rejected steps, which zoneode adds to the cost,
are not in the files), and the sum over outer steps of the largest rank's cost for both: the
work of the slowest rank, whose ratio is the speedup that perfect timing would show.
Needs numpy and h5py (Debian: python3-numpy python3-h5py).
"""
import glob
import sys

import h5py
import numpy as np


def cuts_by(costs, ranks):
    """Cut r at the zone whose cost prefix is closest to r/ranks of the total (lower on a tie)."""
    prefix = np.concatenate([[0], np.cumsum(costs)])
    total = prefix[-1]
    cuts = [0]
    for r in range(1, ranks):
        target = total * r / ranks
        j = int(np.searchsorted(prefix, target))
        cuts.append(j - 1 if target - prefix[j - 1] <= prefix[j] - target else j)
    cuts.append(len(costs))
    for r in range(1, ranks):  # every rank keeps a zone
        cuts[r] = max(cuts[r], cuts[r - 1] + 1)
    for r in range(ranks - 1, 0, -1):
        cuts[r] = min(cuts[r], cuts[r + 1] - 1)
    return cuts


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    prefix, ranks = sys.argv[1], int(sys.argv[2])
    files = [f for f in sorted(glob.glob(prefix + "_step*.h5")) if not f.endswith("_step000000.h5")]
    if not files:
        sys.exit(f"no {prefix}_stepNNNNNN.h5 files")
    costs = [np.maximum(h5py.File(f, "r")["integrator_steps"][:].astype(float), 1) for f in files]
    zones = len(costs[0])
    count_cuts = cuts_by(np.ones(zones), ranks)
    cost_cuts = count_cuts
    slowest_count = slowest_cost = 0.0
    for step, cost in enumerate(costs, start=1):
        by_count = np.array([cost[count_cuts[r]:count_cuts[r + 1]].sum() for r in range(ranks)])
        by_cost = np.array([cost[cost_cuts[r]:cost_cuts[r + 1]].sum() for r in range(ranks)])
        slowest_count += by_count.max()
        slowest_cost += by_cost.max()
        print(f"outer step {step}: imbalance count {by_count.max() / by_count.mean():.3f}, "
              f"cost {by_cost.max() / by_cost.mean():.3f} (cuts {cost_cuts})")
        cost_cuts = cuts_by(cost, ranks)
    print(f"slowest rank's steps over the run: count {slowest_count:.0f}, cost {slowest_cost:.0f}: "
          f"{slowest_count / slowest_cost:.3f}x")


if __name__ == "__main__":
    main()
