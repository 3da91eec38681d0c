#!/usr/bin/env python3
"""GPU against CPU under the adaptive schedule, where last-bit differences may flip an accept or
reject decision. Reports the zones whose accepted step counts differ, and the worst relative
abundance difference over abundances above 1e-20 mol/g and above atol, separately for those zones
and for the others. With --reference CPU2.h5 (the CPU again, rtol changed by one ulp) it also
reports the CPU's own sensitivity, the yardstick for the GPU's difference: the GPU passes when it
differs from the CPU by at most 10 x that sensitivity plus 1e-12 (and statuses agree).
Usage: compare_adaptive.py CPU.h5 GPU.h5 RTOL ATOL [--reference CPU2.h5]   (numpy, h5py)"""
import sys

import h5py
import numpy as np


def read(path):
    with h5py.File(path, "r") as f:
        steps = f["integrator_steps"][()] if "integrator_steps" in f else f["steps"][()]
        return f["abundances"][()], steps, f["status"][()]


def worst_per_zone(a, b, floor):
    big = np.maximum(np.abs(a), np.abs(b))
    rel = np.where(big > floor, np.abs(a - b) / np.maximum(big, 1e-300), 0.0)
    return rel.max(axis=1)


def describe(a, b, steps_a, steps_b, atol):
    differ = steps_a != steps_b
    text = f"{differ.sum()} of {len(differ)} zones differ in accepted steps"
    result = {}
    for name, floor in (("Y>1e-20", 1e-20), ("Y>atol", atol)):
        worst = worst_per_zone(a, b, floor)
        same = worst[~differ].max() if (~differ).any() else 0.0
        other = worst[differ].max() if differ.any() else 0.0
        result[name] = max(same, other)
        text += f"; {name}: worst rel {same:.2e} (same steps), {other:.2e} (different steps)"
    return text, result


cpu_y, cpu_steps, cpu_status = read(sys.argv[1])
gpu_y, gpu_steps, gpu_status = read(sys.argv[2])
rtol, atol = float(sys.argv[3]), float(sys.argv[4])
text, gpu_worst = describe(cpu_y, gpu_y, cpu_steps, gpu_steps, atol)
status_equal = bool((cpu_status == gpu_status).all())
print(f"gpu vs cpu: {text}; status equal: {status_equal}")
ok = status_equal
if "--reference" in sys.argv:
    ref_y, ref_steps, _ = read(sys.argv[sys.argv.index("--reference") + 1])
    ref_text, ref_worst = describe(cpu_y, ref_y, cpu_steps, ref_steps, atol)
    print(f"cpu vs cpu with rtol + 1 ulp: {ref_text}")
    for name in gpu_worst:
        ok = ok and gpu_worst[name] <= 10 * ref_worst[name] + 1e-12
print("adaptive verdict:", "ok (within 10 x the CPU's own one-ulp sensitivity)" if ok else "FAIL")
sys.exit(0 if ok else 1)
