#!/usr/bin/env python3
"""GPU against CPU under the adaptive schedule, where last-bit differences may flip an accept or
reject decision: counts the zones whose integrator step counts differ, and reports the worst
relative abundance difference (over abundances above 1e-20 mol/g) separately for those zones and
for the others. Usage: compare_adaptive.py CPU.h5 GPU.h5 RTOL   (needs numpy and h5py)"""
import sys

import h5py
import numpy as np


def read(path):
    with h5py.File(path, "r") as f:
        steps = f["integrator_steps"][()] if "integrator_steps" in f else f["steps"][()]
        return f["abundances"][()], steps, f["status"][()]


cpu_y, cpu_steps, cpu_status = read(sys.argv[1])
gpu_y, gpu_steps, gpu_status = read(sys.argv[2])
rtol = float(sys.argv[3])
significant = np.maximum(np.abs(cpu_y), np.abs(gpu_y)) > 1e-20
rel = np.where(significant, np.abs(cpu_y - gpu_y) / np.maximum(np.maximum(np.abs(cpu_y), np.abs(gpu_y)), 1e-300), 0.0)
worst = rel.max(axis=1)
differ = cpu_steps != gpu_steps
same = ~differ
worst_differ = worst[differ].max() if differ.any() else 0.0
worst_same = worst[same].max() if same.any() else 0.0
ok = worst_differ <= 10 * rtol and worst_same <= 1e-9 and (cpu_status == gpu_status).all()
print(f"adaptive: {differ.sum()} of {len(differ)} zones took a different number of steps "
      f"(worst rel {worst_differ:.2e}, bound 10 x rtol = {10 * rtol:.0e}); the others worst rel {worst_same:.2e} "
      f"(bound 1e-9); status equal: {(cpu_status == gpu_status).all()} -> {'ok' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
