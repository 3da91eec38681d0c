#!/usr/bin/env python3
"""Writes a start file for zones.from_file (inputs/README.md): ZONES identical zones of one network.

usage: make_start_file.py NETWORK.znet ZONES OUT.h5 T9 RHO NAME=X [NAME=X ...]

NETWORK.znet: a zoneode network file (`zoneode network export DECK --output FILE` writes one for any
deck's network), whose species order the file follows. Every zone: T9 [GK], rho [g/cm^3] and
Y(NAME) = X / A for the mass fractions X given, every other Y 0. The fractions are taken as they
are, not normalised: a start whose fractions do not sum to 1 (the study's sums to 0.073,
inputs/bench/README.md) needs the deck's zones.mass_sum_tolerance to allow it. Needs h5py and
numpy. Exit 2 with a message for bad arguments or a name that is not among the network's species.
"""
import sys


def fail(message):
    print(f"make_start_file.py: {message}", file=sys.stderr)
    sys.exit(2)


def network_species(path):
    """(name, Z, A) of each species line of a zoneode network file, in order."""
    species, count = [], None
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        fail(f"cannot read '{path}': {e.strerror}")
    for number, line in enumerate(lines, 1):
        fields = line.split("#")[0].split() if not line.lstrip().startswith("#") else []
        if not fields:
            continue
        if count is None:
            if fields[0] == "species":
                count = int(fields[1])
            continue
        if len(species) == count:
            break
        if len(fields) != 4:
            fail(f"{path}:{number}: expected a species line (name Z A mass_excess), got '{line.strip()}'")
        species.append((fields[0], int(fields[1]), int(fields[2])))
    if count is None or len(species) != count:
        fail(f"{path}: no complete species list (a zoneode network file, inputs/network_file_format.md)")
    return species


def main(argv):
    if len(argv) < 7:
        fail("expected NETWORK.znet ZONES OUT.h5 T9 RHO NAME=X [NAME=X ...]")
    network, zones_text, out, t9_text, rho_text = argv[1:6]
    try:
        zones, t9, rho = int(zones_text), float(t9_text), float(rho_text)
    except ValueError:
        fail(f"ZONES must be an integer and T9, RHO numbers, got '{zones_text}', '{t9_text}', '{rho_text}'")
    if zones < 1 or not t9 > 0 or not rho > 0:
        fail(f"expected ZONES >= 1, T9 > 0 and RHO > 0, got {zones}, {t9}, {rho}")
    species = network_species(network)
    names = [s[0] for s in species]
    fractions = {}
    for item in argv[6:]:
        name, _, value = item.partition("=")
        if name not in names:
            fail(f"'{name}' is not a species of {network}")
        try:
            fractions[name] = float(value)
        except ValueError:
            fail(f"'{item}': expected NAME=X with X a number")
    import h5py
    import numpy as np
    y = np.array([fractions.get(name, 0.0) / a for name, _, a in species])
    with h5py.File(out, "w") as h:
        h["abundances"] = np.tile(y, (zones, 1))
        h["temperature"] = np.full(zones, t9)
        h["density"] = np.full(zones, rho)
        h.attrs["format_version"] = np.int32(3)
        group = h.create_group("species")
        group["name"] = np.array(names, dtype=h5py.string_dtype(encoding="ascii"))
        group["Z"] = np.array([s[1] for s in species], dtype=np.int32)
        group["A"] = np.array([s[2] for s in species], dtype=np.int32)
    print(f"{out}: {zones} zones of {len(names)} species, T9 {t9:g}, rho {rho:g}, mass fractions sum {sum(fractions.values()):.6g}")


if __name__ == "__main__":
    main(sys.argv)
