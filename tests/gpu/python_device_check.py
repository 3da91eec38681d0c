#!/usr/bin/env python3
"""The Python module on a GPU build (issue 41): the same zones burned by the program (--backend gpu), by
the module with numpy arrays and by the module with CuPy device arrays (ZONEODE_DEVICE_MEMORY, burned in
place) give bitwise the same result hash; T9 with self-heating and every result field equal between
the two module paths. Run on a GPU machine with CuPy:

    ZONEODE_LIBRARY=BUILD/libzoneode.so PYTHONPATH=python python3 tests/gpu/python_device_check.py BUILD/zoneode .

Exit 0 when every check passed, 1 otherwise, 77 where CuPy or a GPU is missing."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import numpy as np

from python_hash import program_hash, result_hash

try:
    import cupy as cp
    cp.cuda.runtime.getDeviceCount()
except Exception as error:  # no CuPy, or no device
    print(f"python_device_check: skipped ({error})")
    sys.exit(77)

import zoneode

program, source_dir = sys.argv[1], sys.argv[2]
failures = []


def check(condition, what):
    print(("ok      " if condition else "FAILED  ") + what)
    if not condition:
        failures.append(what)


def constant(zones, T9, rho):
    return [f"zones.count={zones}", f"zones.temperature={{profile: constant, value: {T9}}}",
            f"zones.density={{profile: constant, value: {rho}}}"]


cases = [
    ("inputs/quick.yaml", 256, 2.5, 3.0e6, []),
    ("inputs/quick.yaml", 64, 2.0, 1.0e6, ["integrator.method=implicit", "integrator.schedule=adaptive",
                                         "physics.self_heating=true"]),
    ("inputs/quick.yaml", 64, 2.0, 1.0e6, ["integrator.method=implicit", "integrator.schedule=adaptive"]),
    ("inputs/bench/c2-rpz24-rp.yaml", 128, 1.2, 1.0e6, ["integrator.end_time=1.0e-6"]),
]
for deck, zones, T9_value, rho_value, extra in cases:
    overrides = ["run.backend=gpu"] + constant(zones, T9_value, rho_value) + extra
    label = f"{deck} {zones} zones {' '.join(extra)}"
    path = os.path.join(source_dir, deck)
    with zoneode.Burner(file=path, overrides=overrides) as burner:
        resolved = burner.resolved_deck
        start = float(resolved.split("start_time: ")[1].split()[0])
        end = float(resolved.split("end_time: ")[1].split()[0])
        Y0 = np.tile(burner.deck_abundances(), (zones, 1))
        # Host arrays through a GPU burner.
        Y_host, T9_host = Y0.copy(), np.full(zones, T9_value)
        _, _, results_host = burner.burn(T9_host, np.full(zones, rho_value), Y_host, end - start)
        # Device arrays: burned in place on the device.
        Y_dev, T9_dev, rho_dev = cp.asarray(Y0), cp.full(zones, T9_value), cp.full(zones, rho_value)
        _, _, results_dev = burner.burn(T9_dev, rho_dev, Y_dev, end - start)
        cp.cuda.runtime.deviceSynchronize()
        Y_back, T9_back = cp.asnumpy(Y_dev), cp.asnumpy(T9_dev)
        check((results_host["status"] == 0).all(), f"{label}: every zone ok ({burner.backend})")
        check(np.array_equal(Y_back, Y_host) and np.array_equal(T9_back, T9_host),
              f"{label}: CuPy arrays bitwise the numpy arrays' Y and T9 (max |dY| {np.abs(Y_back - Y_host).max():.2e})")
        check(results_dev.tobytes() == results_host.tobytes(), f"{label}: every result field equal")
        expected = program_hash(program, path, overrides)
        got = result_hash(Y_back, results_dev)
        check(got == expected, f"{label}: module (CuPy) hash {got}, the program's (--backend gpu) {expected}")

print(f"python_device_check: {len(failures)} failures")
sys.exit(1 if failures else 0)
