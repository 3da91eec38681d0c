"""zoneode's burner from Python: ctypes over libzoneode (include/zoneode/zoneode.h) and numpy arrays.

    import numpy as np, zoneode
    burner = zoneode.Burner(file="inputs/quick.yaml")
    Y, T9, results = burner.burn(T9, rho, Y, dt=1e-4)

Y is [zone][species] in mol/g (mass fraction X = A Y: burner.mass_numbers), T9 in GK, rho in g/cm^3.
The arrays are updated in place when they are float64, C-ordered and writable (otherwise a copy is
burned and returned). Errors raise zoneode.ZoneodeError (code and message); a burn in which some
zones failed returns normally with their status in results["status"] (burner.last_burn_failed says so).

The library is found, in this order: $ZONEODE_LIBRARY (a path to libzoneode.so); the build tree beside
this package (python/../build, or $ZONEODE_BUILD_DIR); an installed prefix (lib/ three levels up from
lib/zoneode/python/zoneode); the system's loader (ldconfig, LD_LIBRARY_PATH).
"""
import ctypes
import ctypes.util
import os
import pathlib

import numpy as np

__all__ = ["Burner", "ZoneodeError", "RESULT_DTYPE", "ZONE_STATUS", "library_path", "api_version", "version",
           "data_dir"]

API_VERSION = 1  # the ZONEODE_API_VERSION this module speaks

OK, ZONES_FAILED = 0, 1
HOST_MEMORY, DEVICE_MEMORY = 0, 1
ZONE_STATUS = {0: "ok", 1: "non_finite", 2: "mass_drift", 3: "max_steps", 4: "step_underflow", 5: "bad_input"}

# zoneode_zone_result, field for field (tests/test_python_api.py checks its size against the C struct's).
RESULT_DTYPE = np.dtype([
    ("status", np.int32), ("reserved", np.int32),
    ("steps", np.int64), ("rejected_steps", np.int64), ("rhs_evaluations", np.int64),
    ("jacobian_evaluations", np.int64), ("factorizations", np.int64),
    ("energy_released", np.float64), ("energy_rate", np.float64), ("time_burned", np.float64),
    ("final_T9", np.float64), ("mass_fraction_sum", np.float64), ("max_mass_drift", np.float64),
], align=True)


class ZoneodeError(RuntimeError):
    """A zoneode call that returned an error: .code is its ZONEODE_ERROR_* (negative)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def _candidates():
    if os.environ.get("ZONEODE_LIBRARY"):
        yield pathlib.Path(os.environ["ZONEODE_LIBRARY"])
        return
    here = pathlib.Path(__file__).resolve().parent
    build = os.environ.get("ZONEODE_BUILD_DIR")
    yield (pathlib.Path(build) if build else here.parent.parent / "build") / "libzoneode.so"
    yield here.parent.parent.parent / "libzoneode.so"  # <prefix>/lib/zoneode/python/zoneode -> <prefix>/lib
    found = ctypes.util.find_library("zoneode")
    if found:
        yield pathlib.Path(found)


def _load():
    tried = []
    for path in _candidates():
        tried.append(str(path))
        if path.is_absolute() and not path.exists():
            continue
        try:
            return ctypes.CDLL(str(path)), str(path)
        except OSError as error:
            tried[-1] += f" ({error})"
    raise ImportError("zoneode: libzoneode.so not found; build it (./scripts/build.sh) or set ZONEODE_LIBRARY. "
                      "Tried: " + "; ".join(tried))


_lib, library_path = _load()

_c_int, _c_double, _c_char_p = ctypes.c_int, ctypes.c_double, ctypes.c_char_p
_burner_p = ctypes.c_void_p
_double_p = ctypes.POINTER(ctypes.c_double)
_signatures = {
    "zoneode_api_version": (_c_int, []),
    "zoneode_version": (_c_char_p, []),
    "zoneode_last_error": (_c_char_p, []),
    "zoneode_data_dir": (_c_char_p, []),
    "zoneode_burner_create_from_text": (_c_int, [_c_char_p, ctypes.POINTER(_c_char_p), _c_int,
                                                 ctypes.POINTER(_burner_p)]),
    "zoneode_burner_create_from_file": (_c_int, [_c_char_p, ctypes.POINTER(_c_char_p), _c_int,
                                                 ctypes.POINTER(_burner_p)]),
    "zoneode_burner_destroy": (None, [_burner_p]),
    "zoneode_burner_species_count": (_c_int, [_burner_p, ctypes.POINTER(_c_int)]),
    "zoneode_burner_species_name": (_c_int, [_burner_p, _c_int, ctypes.POINTER(_c_char_p)]),
    "zoneode_burner_species_nucleons": (_c_int, [_burner_p, _c_int, ctypes.POINTER(_c_int),
                                                 ctypes.POINTER(_c_int)]),
    "zoneode_burner_deck": (_c_int, [_burner_p, ctypes.POINTER(_c_char_p)]),
    "zoneode_burner_backend": (_c_int, [_burner_p, ctypes.POINTER(_c_char_p)]),
    "zoneode_burner_deck_abundances": (_c_int, [_burner_p, _c_int, _double_p]),
    "zoneode_burn": (_c_int, [_burner_p, ctypes.c_int64, _c_int, _c_double, _double_p, _double_p, _double_p,
                              ctypes.c_void_p, _c_int]),
}
for _name, (_restype, _argtypes) in _signatures.items():
    _function = getattr(_lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes

if _lib.zoneode_api_version() != API_VERSION:
    raise ImportError(f"zoneode: {library_path} speaks API {_lib.zoneode_api_version()}, this module {API_VERSION}")


def api_version():
    return _lib.zoneode_api_version()


def version():
    return _lib.zoneode_version().decode()


def data_dir():
    """The shipped data folder the library found ("" for none)."""
    return _lib.zoneode_data_dir().decode()


def _check(code):
    if code < 0:
        raise ZoneodeError(code, _lib.zoneode_last_error().decode(errors="replace"))
    return code


def _pointer(array):
    return array.ctypes.data_as(_double_p)


class Burner:
    """A burner made from a zoneode deck: YAML text (`deck`) or a file (`file`), with "section.key=value"
    `overrides` as the program's --set. Its network and integrator come from the deck; zones from burn()."""

    def __init__(self, deck=None, *, file=None, overrides=()):
        if (deck is None) == (file is None):
            raise ValueError("zoneode.Burner: give the deck text or file=, one of them")
        items = [str(item).encode() for item in overrides]
        array = (_c_char_p * max(1, len(items)))(*items)
        handle = _burner_p()
        if file is not None:
            code = _lib.zoneode_burner_create_from_file(os.fsencode(file), array, len(items), ctypes.byref(handle))
        else:
            code = _lib.zoneode_burner_create_from_text(deck.encode(), array, len(items), ctypes.byref(handle))
        _check(code)
        self._handle = handle
        count = _c_int()
        _check(_lib.zoneode_burner_species_count(handle, ctypes.byref(count)))
        self.species_count = count.value
        names, mass_numbers, charges = [], [], []
        for index in range(count.value):
            name, A, Z = _c_char_p(), _c_int(), _c_int()
            _check(_lib.zoneode_burner_species_name(handle, index, ctypes.byref(name)))
            _check(_lib.zoneode_burner_species_nucleons(handle, index, ctypes.byref(A), ctypes.byref(Z)))
            names.append(name.value.decode())
            mass_numbers.append(A.value)
            charges.append(Z.value)
        self.species = names
        self.mass_numbers = np.array(mass_numbers, dtype=np.int64)
        self.charges = np.array(charges, dtype=np.int64)
        self.last_burn_failed = False
        self.last_message = ""

    def close(self):
        if getattr(self, "_handle", None):
            _lib.zoneode_burner_destroy(self._handle)
            self._handle = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if not self._handle:
            raise ZoneodeError(-1, "zoneode.Burner: closed")
        return self._handle

    @property
    def resolved_deck(self):
        text = _c_char_p()
        _check(_lib.zoneode_burner_deck(self._live(), ctypes.byref(text)))
        return text.value.decode()

    @property
    def backend(self):
        text = _c_char_p()
        _check(_lib.zoneode_burner_backend(self._live(), ctypes.byref(text)))
        return text.value.decode()

    def deck_abundances(self):
        """Y [mol/g] of the deck's zones.composition (the program's initial zones)."""
        Y = np.empty(self.species_count)
        _check(_lib.zoneode_burner_deck_abundances(self._live(), self.species_count, _pointer(Y)))
        return Y

    def burn(self, T9, rho, Y, dt):
        """Burns len(T9) zones over dt [s]. Returns (Y, T9, results): Y [zones, species] after the burn,
        T9 after it (changed only with physics.self_heating), results a RESULT_DTYPE array per zone.
        GPU arrays (CuPy, or any object with __cuda_array_interface__: float64, C-ordered) are burned in
        place on the device with a burner made with run.backend: gpu (ZONEODE_DEVICE_MEMORY, no copy)."""
        if any(hasattr(array, "__cuda_array_interface__") for array in (T9, rho, Y)):
            return self._burn_device(T9, rho, Y, dt)
        T9 = np.require(np.atleast_1d(T9), np.float64, ["C_CONTIGUOUS", "WRITEABLE", "ALIGNED"])
        rho = np.require(np.atleast_1d(rho), np.float64, ["C_CONTIGUOUS", "ALIGNED"])
        zones = T9.shape[0]
        Y = np.require(Y, np.float64, ["C_CONTIGUOUS", "WRITEABLE", "ALIGNED"])
        if T9.ndim != 1 or rho.shape != T9.shape:
            raise ValueError(f"zoneode.Burner.burn: T9 {T9.shape} and rho {rho.shape}: expected two 1-D arrays "
                             "of the same length")
        if Y.size != zones * self.species_count or (Y.ndim == 2 and Y.shape[0] != zones):
            raise ValueError(f"zoneode.Burner.burn: Y {Y.shape}: expected ({zones}, {self.species_count}) "
                             "([zone][species])")
        return Y, T9, self._call_burn(zones, dt, (_pointer(T9), _pointer(rho), _pointer(Y)), HOST_MEMORY)

    def _call_burn(self, zones, dt, pointers, memory):
        """zoneode_burn on (T9, rho, Y) pointers in `memory`; the results array, last_burn_failed and
        last_message set from its code."""
        results = np.zeros(zones, dtype=RESULT_DTYPE)
        code = _check(_lib.zoneode_burn(self._live(), zones, self.species_count, float(dt), *pointers,
                                        results.ctypes.data_as(ctypes.c_void_p), memory))
        self.last_burn_failed = code == ZONES_FAILED
        self.last_message = _lib.zoneode_last_error().decode(errors="replace") if self.last_burn_failed else ""
        return results

    def _burn_device(self, T9, rho, Y, dt):
        """burn() on device arrays: their pointers go to the library as they are (all three must be), the
        same shapes as on the host (T9 and rho 1-D of one length, Y (zones, species) or flat), writable,
        unmasked. zoneode's kernels run on the legacy default stream: work queued on another stream
        (CuPy's non-default streams) must be complete before the call."""
        def interface_of(array, name):
            interface = getattr(array, "__cuda_array_interface__", None)
            if interface is None:
                raise ValueError(f"zoneode.Burner.burn: {name} is a host array while another is a device array: "
                                 "expected T9, rho and Y all on the device (or all on the host)")
            return interface

        def pointer(interface, name, shape, writable):
            dims, strides = tuple(interface["shape"]), interface.get("strides")
            c_ordered = strides is None or tuple(strides) == tuple(8 * int(np.prod(dims[k + 1:])) for k in range(len(dims)))
            if np.dtype(interface["typestr"]) != np.float64 or not c_ordered:
                raise ValueError(f"zoneode.Burner.burn: {name} ({interface['typestr']}, strides {strides}): "
                                 "expected float64, C-ordered")
            if dims not in shape:
                raise ValueError(f"zoneode.Burner.burn: {name} {dims}: expected {' or '.join(map(str, shape))}")
            if interface.get("mask") is not None or (writable and interface["data"][1]):
                raise ValueError(f"zoneode.Burner.burn: {name}: expected an unmasked{', writable' if writable else ''} array")
            return ctypes.cast(interface["data"][0], _double_p)

        T9_i, rho_i, Y_i = interface_of(T9, "T9"), interface_of(rho, "rho"), interface_of(Y, "Y")
        if len(T9_i["shape"]) != 1:
            raise ValueError(f"zoneode.Burner.burn: T9 {tuple(T9_i['shape'])}: expected a 1-D array")
        zones = int(T9_i["shape"][0])
        S = self.species_count
        pointers = (pointer(T9_i, "T9", [(zones,)], True), pointer(rho_i, "rho", [(zones,)], False),
                    pointer(Y_i, "Y", [(zones, S), (zones * S,)], True))
        return Y, T9, self._call_burn(zones, dt, pointers, DEVICE_MEMORY)
