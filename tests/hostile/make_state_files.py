#!/usr/bin/python3
"""Hostile state files for hostile_inputs.sh (issue 11), made from a valid one with h5py.

Usage: make_state_files.py BASE.h5 FOLDER
Writes into FOLDER one file per case, each BASE with one thing wrong (or, for the huge ones, a
small file that declares a huge shape and never writes it).
"""
import shutil
import sys

import h5py
import numpy as np

base, folder = sys.argv[1], sys.argv[2]


def copy(name):
    path = f"{folder}/{name}.h5"
    shutil.copyfile(base, path)
    return h5py.File(path, "r+")


def replace_attribute(name, attribute, value, dtype=None):
    with copy(name) as f:
        del f.attrs[attribute]
        if dtype is None:
            f.attrs[attribute] = value
        else:
            f.attrs.create(attribute, value, dtype=dtype)


# Attributes of more than one element (a buffer overflow once) or of the wrong kind.
replace_attribute("step_two_elements", "outer_step", np.array([1, 1], dtype=np.int64))
replace_attribute("step_many_elements", "outer_step", np.arange(4096, dtype=np.int64))
replace_attribute("time_many_elements", "time", np.zeros(4096))
replace_attribute("hash_two_elements", "network_hash", np.array([b"0123456789abcdef"] * 2, dtype="S17"))
replace_attribute("hash_many_vlen", "network_hash", ["0123456789abcdef"] * 1000, dtype=h5py.string_dtype())
replace_attribute("step_fraction", "outer_step", 1.5)
replace_attribute("step_text", "outer_step", "1", dtype=h5py.string_dtype())

# /species/name as UTF-8 variable-length strings (h5py's default for str): must be read.
with copy("names_utf8_vlen") as f:
    names = [n.decode() for n in f["species/name"][...]]
    del f["species/name"]
    f.create_dataset("species/name", data=names, dtype=h5py.string_dtype("utf-8"))

# A file of no zones.
with copy("zero_zones") as f:
    species = f["abundances"].shape[1]
    for name in ("abundances", "temperature", "density", "energy_generation_rate", "integrator_steps", "status"):
        shape = (0, species) if name == "abundances" else (0,)
        dtype = f[name].dtype
        del f[name]
        f.create_dataset(name, shape=shape, dtype=dtype)


def declared(name, zones):
    """Every zone dataset declared with `zones` rows, chunked and never written: a few kB on disk."""
    with copy(name) as f:
        species = f["abundances"].shape[1]
        for dataset in ("abundances", "temperature", "density", "energy_generation_rate", "integrator_steps",
                        "status"):
            shape = (zones, species) if dataset == "abundances" else (zones,)
            dtype = f[dataset].dtype
            del f[dataset]
            f.create_dataset(dataset, shape=shape, dtype=dtype, chunks=(1,) + shape[1:])


declared("zones_2e31", 2**31)
declared("zones_2e59", 2**59)


def stored_externally(name, zones):
    """Every zone dataset declared with `zones` rows and stored, in sparse external raw files (no disk
    blocks): it passes the check that a dataset stores what it declares, and needs far more memory
    than any machine has (2^33 zones: 2 TB)."""
    import os
    with copy(name) as f:
        species = f["abundances"].shape[1]
        for dataset in ("abundances", "temperature", "density", "energy_generation_rate", "integrator_steps",
                        "status", "time_reached"):
            if dataset not in f:
                continue
            shape = (zones, species) if dataset == "abundances" else (zones,)
            dtype = f[dataset].dtype
            del f[dataset]
            raw = os.path.abspath(f"{folder}/{name}.{dataset}.raw")
            size = int(np.prod(shape)) * dtype.itemsize
            with open(raw, "wb") as out:
                out.truncate(size)
            f.create_dataset(dataset, shape=shape, dtype=dtype, external=[(raw, 0, size)])


stored_externally("zones_2e33_stored", 2**33)
