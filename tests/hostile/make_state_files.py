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


# ---- Issue 18: files that were read silently or with an unclear message ----
def replace_dataset(name, dataset, make):
    """BASE with /dataset replaced by whatever make(f, values) creates."""
    with copy(name) as f:
        values = f[dataset][...]
        del f[dataset]
        make(f, values)


replace_attribute("version_99", "format_version", np.int32(99))
with copy("no_version") as f:
    del f.attrs["format_version"]
with copy("no_outer_step") as f:
    del f.attrs["outer_step"]
# Zone 0's abundances in mol/cm^3 (Y rho, rho 1e6): sum A*Y = 1e6.
with copy("mass_sum_1e6") as f:
    f["abundances"][0, :] = f["abundances"][0, :] * 1.0e6
with copy("mass_sum_1p5") as f:
    f["abundances"][0, :] = f["abundances"][0, :] * 1.5
replace_dataset("abundances_int64", "abundances", lambda f, v: f.create_dataset("abundances", data=v.astype(np.int64)))
replace_dataset("abundances_float32", "abundances", lambda f, v: f.create_dataset("abundances", data=v.astype(np.float32)))
replace_dataset("abundances_group", "abundances", lambda f, v: f.create_group("abundances"))


def soft_loop(f, values):
    f["abundances"] = h5py.SoftLink("/loop")
    f["loop"] = h5py.SoftLink("/abundances")


replace_dataset("abundances_soft_loop", "abundances", soft_loop)
replace_dataset("abundances_external_missing", "abundances",
                lambda f, v: f.__setitem__("abundances", h5py.ExternalLink("no_such_file.h5", "/abundances")))


def virtual_missing(f, values):
    layout = h5py.VirtualLayout(shape=values.shape, dtype=values.dtype)
    layout[...] = h5py.VirtualSource("no_such_source.h5", "abundances", shape=values.shape)
    f.create_virtual_dataset("abundances", layout)


replace_dataset("abundances_virtual_missing", "abundances", virtual_missing)


def virtual_present(f, values):
    """A virtual dataset whose source exists: read as any other."""
    source = f"{folder}/virtual_source.h5"
    with h5py.File(source, "w") as s:
        s.create_dataset("abundances", data=values)
    layout = h5py.VirtualLayout(shape=values.shape, dtype=values.dtype)
    layout[...] = h5py.VirtualSource("virtual_source.h5", "abundances", shape=values.shape)
    f.create_virtual_dataset("abundances", layout)


replace_dataset("abundances_virtual_present", "abundances", virtual_present)
