"""The program's result hash (src/cli/run.cpp zone_hash) computed from the Python module's output, and the
program's own, for the tests that compare the module with the program (test_python_api.py,
gpu/python_device_check.py)."""
import json
import os
import struct
import subprocess
import tempfile


def fnv1a(data, value=1469598103934665603):
    for byte in data:
        value = ((value ^ byte) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return value


def result_hash(Y, results):
    total = 0
    for zone in range(Y.shape[0]):
        data = Y[zone].tobytes()
        data += struct.pack("<i", int(results["status"][zone])) + struct.pack("<q", int(results["steps"][zone]))
        data += struct.pack("<d", float(results["energy_rate"][zone])) + struct.pack("<q", zone)
        total = (total + fnv1a(data)) & 0xFFFFFFFFFFFFFFFF
    return f"{total:016x}"


def program_hash(program, deck, overrides):
    with tempfile.TemporaryDirectory() as folder:
        summary = os.path.join(folder, "summary.json")
        command = [program, deck, "--quiet", "--set", "run.summary=" + summary]
        for item in overrides:
            command += ["--set", item]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        with open(summary) as f:
            return json.load(f)["result_hash"]
