#!/usr/bin/env python3
"""Writes nubase2020_masses.txt from NUBASE2020's nubase_4.mas20 (ground states only).

Usage: make_mass_table.py NUBASE_4_MAS20 > nubase2020_masses.txt
Columns of the source (its own header): 1-3 A, 5-7 Z, 8 i (0 = ground state), 19-31 mass excess
[keV] with '#' where it comes from systematics. Each value is copied as written.
"""
import sys


def main(path):
    rows = []
    with open(path) as source:
        for line in source:
            if line.startswith('#') or len(line) < 31:
                continue
            A = int(line[0:3])
            Z = int(line[4:7])
            state = line[7]
            if state != '0':
                continue
            field = line[18:31].strip()
            estimated = field.endswith('#')
            value = field.rstrip('#')
            float(value)  # a number, or this fails
            rows.append((Z, A, value, estimated))
    rows.sort()
    print("# Atomic mass excesses of nuclear ground states [keV], NUBASE2020: F.G. Kondev, M. Wang,")
    print("# W.J. Huang, S. Naimi and G. Audi, Chinese Physics C 45, 030001 (2021), file nubase_4.mas20,")
    print("# every ground state (isomer digit 0), values copied as written. README.md beside this file.")
    print("# Z A mass_excess_keV estimated(1 = from systematics, '#' in NUBASE)")
    for Z, A, value, estimated in rows:
        print(f"{Z} {A} {value} {1 if estimated else 0}")


if __name__ == '__main__':
    main(sys.argv[1])
