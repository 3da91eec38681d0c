#!/usr/bin/env python3
"""The Python module (python/zoneode, issue 41) against the program and exact solutions.

usage: test_python_api.py ZONEODE_PROGRAM SOURCE_DIR  (with python/ on PYTHONPATH and
ZONEODE_LIBRARY naming the built libzoneode.so). Exit 77 (skipped) where numpy is missing."""
import math
import os
import sys

try:
    import numpy as np
except ImportError:
    print("test_python_api: skipped, numpy is not installed (Debian: python3-numpy)")
    sys.exit(77)

import zoneode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_hash import program_hash as _program_hash, result_hash  # noqa: E402

program, source_dir = sys.argv[1], sys.argv[2]
failures = []


def program_hash(deck, overrides):
    return _program_hash(program, deck, overrides)


def check(condition, what):
    print(("ok      " if condition else "FAILED  ") + what)
    if not condition:
        failures.append(what)


check(zoneode.api_version() == zoneode.API_VERSION, f"API version {zoneode.api_version()}, library {zoneode.library_path}")
check(zoneode.RESULT_DTYPE.itemsize == 96, f"RESULT_DTYPE is {zoneode.RESULT_DTYPE.itemsize} bytes as the C struct (96)")

# The same zones through the module and the program: bitwise (the program's result hash). Constant
# T9 and rho per deck so that the zones are known here without the program's profile generator.
for deck, zones, T9_value, rho_value, overrides in [
    ("inputs/quick.yaml", 4, 2.5, 3.0e6, ["zones.count=4", "zones.temperature={profile: constant, value: 2.5}",
                                         "zones.density={profile: constant, value: 3.0e6}"]),
    ("inputs/quick.yaml", 3, 2.0, 1.0e6, ["zones.count=3", "integrator.method=implicit",
                                         "integrator.schedule=adaptive",
                                         "zones.temperature={profile: constant, value: 2.0}",
                                         "zones.density={profile: constant, value: 1.0e6}",
                                         "physics.self_heating=true"]),
    ("inputs/decay_chain.yaml", 4, 1.0, 1.0, []),
    # A REACLIB library in pynucastro's format (rp-z24, 154 species, as pynucastro distributes it).
    ("inputs/bench/c2-rpz24-rp.yaml", 2, 1.2, 1.0e6, ["zones.count=2",
                                                     "zones.temperature={profile: constant, value: 1.2}",
                                                     "zones.density={profile: constant, value: 1.0e6}"]),
]:
    path = os.path.join(source_dir, deck)
    with zoneode.Burner(file=path, overrides=overrides) as burner:
        resolved = burner.resolved_deck
        start = float(resolved.split("start_time: ")[1].split()[0])
        end = float(resolved.split("end_time: ")[1].split()[0])
        T9, rho = np.full(zones, T9_value), np.full(zones, rho_value)
        Y = np.tile(burner.deck_abundances(), (zones, 1))
        Y_out, T9_out, results = burner.burn(T9, rho, Y, end - start)
        check(Y_out is Y and T9_out is T9, f"{deck}: burned in place")
        check(not burner.last_burn_failed and (results["status"] == 0).all(), f"{deck}: every zone ok")
        expected = program_hash(path, overrides)
        check(result_hash(Y, results) == expected,
              f"{deck} {' '.join(overrides)}: result hash {result_hash(Y, results)}, the program's {expected}")

# Device arrays (objects with __cuda_array_interface__, as CuPy's): their pointers reach zoneode_burn as
# ZONEODE_DEVICE_MEMORY. A CPU burner refuses them (UNSUPPORTED, the library's answer: the module passed
# them on); host and device arrays mixed are refused by the module. (On a GPU build with a GPU burner
# the library burns them in place: tests/gpu/api_device_memory.cpp.)
class FakeDeviceArray:
    def __init__(self, host):
        self.host = host
        self.__cuda_array_interface__ = {"shape": host.shape, "typestr": "<f8", "data": (host.ctypes.data, False),
                                         "version": 3, "strides": None}
with zoneode.Burner(file=os.path.join(source_dir, "inputs/quick.yaml")) as burner:
    T9d, rhod = FakeDeviceArray(np.full(2, 2.0)), FakeDeviceArray(np.full(2, 1e6))
    Yd = FakeDeviceArray(np.tile(burner.deck_abundances(), (2, 1)))
    try:
        burner.burn(T9d, rhod, Yd, 1e-4)
        check(False, "device arrays on a CPU burner: no error")
    except zoneode.ZoneodeError as error:
        check(error.code == -4 and "host arrays only" in str(error), f"device arrays on a CPU burner: {error}")
    try:
        burner.burn(T9d, np.full(2, 1e6), Yd, 1e-4)
        check(False, "host and device arrays mixed: no error")
    except ValueError as error:
        check("rho is a host array" in str(error), f"host and device arrays mixed: {error}")
    for label, arrays, words in [
            ("Y transposed", (T9d, rhod, FakeDeviceArray(np.zeros((burner.species_count, 2)))), "Y (16, 2): expected"),
            ("rho of another length", (T9d, FakeDeviceArray(np.full(3, 1e6)), Yd), "rho (3,): expected"),
            ("T9 2-D", (FakeDeviceArray(np.full((2, 1), 2.0)), rhod, Yd), "expected a 1-D array")]:
        try:
            burner.burn(*arrays, 1e-4)
            check(False, f"device arrays, {label}: no error")
        except ValueError as error:
            check(words in str(error), f"device arrays, {label}: {error}")

# The decay chain from deck text against its exact (Bateman) solution over 2 s.
text = ("network: {source: decay_chain, rates: [3.0, 0.7, 0.05]}\n"
        "integrator: {method: implicit, schedule: adaptive, start_time: 1.0e-6, rtol: 1.0e-8, atol: 1.0e-14}\n")
with zoneode.Burner(text) as burner:
    check(burner.species == ["x0", "x1", "x2", "x3"], f"species {burner.species}")
    Y = np.array([[1.0, 0.0, 0.0, 0.0]])
    _, _, results = burner.burn([1.0], [1.0], Y, 2.0)
    l0, l1 = 3.0, 0.7
    exact = [math.exp(-2 * l0), l0 / (l1 - l0) * (math.exp(-2 * l0) - math.exp(-2 * l1))]
    check(abs(Y[0, 0] - exact[0]) < 1e-6 * exact[0] and abs(Y[0, 1] - exact[1]) < 1e-6,
          f"decay chain x0 {Y[0, 0]:.10f} (exact {exact[0]:.10f}), x1 {Y[0, 1]:.10f} (exact {exact[1]:.10f})")
    check(abs(Y.sum() - 1.0) < 1e-12, "decay chain conserves number")
    check(results["steps"][0] > 0 and results["time_burned"][0] == (1.0e-6 + 2.0) - 1.0e-6, "work and burn time")

    # Errors: a code and a message, no exit.
    for bad, code, words in [(lambda: burner.burn([1.0], [1.0], Y, 0.0), -2, "expected a finite time > 0"),
                             (lambda: burner.burn([1.0], [1.0], np.zeros((1, 5)), 1.0), None, "expected (1, 4)"),
                             (lambda: zoneode.Burner("network: [\n"), -3, "deck text:"),
                             (lambda: zoneode.Burner(file="/nonexistent.yaml"), -3, "cannot open deck"),
                             (lambda: zoneode.Burner(text, overrides=["run.backend=gpu"]), -4, "not built")]:
        try:
            bad()
            check(False, f"error '{words}' raised")
        except zoneode.ZoneodeError as error:
            check(error.code == code and words in str(error), f"ZoneodeError {error.code}: {error}")
        except ValueError as error:
            check(code is None and words in str(error), f"ValueError: {error}")

    # A bad zone fails alone.
    Y = np.array([[1.0, 0.0, 0.0, 0.0]] * 3)
    _, _, results = burner.burn([1.0, float("nan"), 1.0], [1.0, 1.0, 1.0], Y, 2.0)
    check(burner.last_burn_failed and list(results["status"]) == [0, 5, 0] and Y[0, 0] == Y[2, 0]
          and Y[1, 0] == 1.0, f"one bad zone: statuses {list(results['status'])}: {burner.last_message}")

check(os.path.exists(os.path.join(zoneode.data_dir(), "partition_functions")), f"data folder {zoneode.data_dir()}")

if failures:
    print(f"test_python_api: {len(failures)} FAILED")
    sys.exit(1)
print("test_python_api: OK")
