#!/usr/bin/python3
"""The Spack recipe (packaging/spack/spack_repo/zoneode/packages/zoneode/package.py) without Spack,
which cannot be installed here: the recipe is imported against a small stub of Spack's package API
in its 1.x form (the build systems from spack_repo.builtin.build_systems.*, spack.package without
them) and its 0.23 form (spack.package exports them); the directives record what they are given;
define() writes -DNAME:TYPE=VALUE as Spack's CMakePackage does. Checked: the repository's 1.x
layout (spack_repo/<namespace>/packages/, repo.yaml naming that namespace), the variants,
dependencies (the compilers "c" and "cxx" among them) and conflicts; cmake_args() for CPU, ROCm
and CUDA specs; the CPU ones configure a real build of this tree here (cmake), whose cache must
then hold what the recipe asked for.
What this cannot show: that Spack's concretizer and build system accept the recipe as written.
Run: /usr/bin/python3 tests/test_spack_package.py [-v]   (ctest: spack_package if registered)"""

import os
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPOSITORY = os.path.join(SOURCE, "packaging", "spack", "spack_repo", "zoneode")
RECIPE = os.path.join(REPOSITORY, "packages", "zoneode", "package.py")


# ---- the stub of spack.package: only what the recipe uses ---------------------------------------
class Directives:
    """Class-level records the directives append to (Spack keeps them in dicts keyed by name)."""

    def __init__(self):
        self.variants, self.versions, self.depends, self.conflicts = {}, {}, [], []


RECORD = Directives()


def variant(name, default=None, description="", values=None, multi=False):
    assert description, f"variant {name}: Spack wants a description"
    RECORD.variants[name] = {"default": default, "values": values, "multi": multi}


def version(name, **kwargs):
    RECORD.versions[name] = kwargs


def depends_on(spec, when=None, type=("build", "link")):
    RECORD.depends.append((spec, when, type))


def conflicts(spec, when=None, msg=None):
    RECORD.conflicts.append((spec, when, msg))


def join_path(*parts):
    return os.path.join(*parts)


class CMakePackage:
    def define(self, name, value):
        # Spack's CMakeBuilder.define: booleans as BOOL ON/OFF, lists joined by ';', the rest STRING.
        if isinstance(value, bool):
            return f"-D{name}:BOOL={'ON' if value else 'OFF'}"
        if isinstance(value, (list, tuple)):
            value = ";".join(str(v) for v in value)
        return f"-D{name}:STRING={value}"

    def define_from_variant(self, name, variant_name):
        value = self.spec.variants[variant_name].value
        return self.define(name, value if isinstance(value, bool) else list(value))


class CudaPackage:  # Spack's mix-in: +cuda and cuda_arch
    pass


class ROCmPackage:  # Spack's mix-in: +rocm and amdgpu_target
    pass


def _declare_mixin_variants():
    variant("cuda", default=False, description="Build with CUDA")
    variant("cuda_arch", default="none", multi=True, description="CUDA architecture")
    variant("rocm", default=False, description="Enable ROCm support")
    variant("amdgpu_target", default="none", multi=True, description="AMD GPU architecture")


class Value:
    def __init__(self, value):
        self.value = value


class Spec:
    """zoneode's spec: variants by name; spec['llvm-amdgpu'].prefix.bin; satisfies('+x' / '~x')."""

    def __init__(self, **variants):
        self.values = {"mpi": True, "tests": False, "library": True, "cuda": False, "rocm": False, "cuda_arch": ("none",),
                       "amdgpu_target": ("none",)}
        self.values.update(variants)
        self.variants = {name: Value(value) for name, value in self.values.items()}

    def satisfies(self, text):
        assert text[0] in "+~" and text[1:] in self.values, f"unexpected constraint {text!r}"
        return self.values[text[1:]] == (text[0] == "+")

    def __contains__(self, text):
        return self.satisfies(text)

    def __getitem__(self, name):
        return types.SimpleNamespace(prefix=types.SimpleNamespace(bin=f"/spack/opt/{name}/bin"))


def load_recipe(api="1"):
    """Imports the recipe against the stub of Spack's API: "1" (Spack 1.x) or "0.23"."""
    global RECORD
    RECORD = Directives()
    for name in [name for name in sys.modules if name == "spack" or name.startswith(("spack.", "spack_repo"))]:
        del sys.modules[name]
    stub = types.ModuleType("spack.package")
    exported = ["variant", "version", "depends_on", "conflicts", "join_path"]
    build_systems = {"cmake": "CMakePackage", "cuda": "CudaPackage", "rocm": "ROCmPackage"}
    if api == "0.23":
        exported += build_systems.values()
    else:
        for package in ("spack_repo", "spack_repo.builtin", "spack_repo.builtin.build_systems"):
            sys.modules[package] = types.ModuleType(package)
        for module, name in build_systems.items():
            sys.modules[f"spack_repo.builtin.build_systems.{module}"] = types.ModuleType(module)
            setattr(sys.modules[f"spack_repo.builtin.build_systems.{module}"], name, globals()[name])
    for name in exported:
        setattr(stub, name, globals()[name])
    stub.__all__ = list(exported)
    sys.modules["spack"] = types.ModuleType("spack")
    sys.modules["spack.package"] = stub
    _declare_mixin_variants()
    namespace = {}
    with open(RECIPE, encoding="utf-8") as handle:
        exec(compile(handle.read(), RECIPE, "exec"), namespace)
    return namespace["Zoneode"]


def cmake_args(recipe, **variants):
    package = recipe()
    package.spec = Spec(**variants)
    return package.cmake_args()


class SpackRecipeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.recipe = load_recipe()

    def test_spack_1_repository_layout(self):
        # spack_repo/<namespace>/repo.yaml names the namespace of its folder, API v2 (Spack 1.x).
        with open(os.path.join(REPOSITORY, "repo.yaml"), encoding="utf-8") as handle:
            lines = [line.split("#")[0].strip() for line in handle]
        self.assertIn("namespace: " + os.path.basename(REPOSITORY), lines)
        self.assertIn("api: v2.0", lines)
        self.assertEqual(os.path.basename(os.path.dirname(REPOSITORY)), "spack_repo")

    def test_both_apis_give_the_same_recipe(self):
        # 1.x: the build systems come from spack_repo (a stub spack.package without them would
        # leave CMakePackage undefined); 0.23: from spack.package.
        for api in ("1", "0.23"):
            recipe = load_recipe(api)
            self.assertTrue(issubclass(recipe, CMakePackage), api)
            self.assertEqual(cmake_args(recipe), cmake_args(self.recipe), api)
        type(self).recipe = load_recipe("1")

    def test_variants_dependencies_conflicts(self):
        self.assertEqual(self.recipe.__name__, "Zoneode")
        self.assertIn(("c", None, "build"), RECORD.depends)
        self.assertIn(("cxx", None, "build"), RECORD.depends)
        for name in ("mpi", "tests", "library", "cuda", "rocm", "cuda_arch", "amdgpu_target"):
            self.assertIn(name, RECORD.variants)
        self.assertTrue(RECORD.variants["mpi"]["default"])
        self.assertFalse(RECORD.variants["tests"]["default"])
        self.assertTrue(RECORD.variants["library"]["default"])
        self.assertIn("main", RECORD.versions)
        specs = {(spec, when) for spec, when, _ in RECORD.depends}
        for expected in (("cmake@3.21:", None), ("mpi", None), ("yaml-cpp@0.7:", None), ("hdf5+mpi", "+mpi"),
                         ("hdf5~mpi", "~mpi"), ("googletest", "+tests"), ("hip", "+rocm")):
            self.assertIn(expected, specs)
        self.assertIn(("+cuda", "+rocm"), {(spec, when) for spec, when, _ in RECORD.conflicts})

    def test_cmake_arguments(self):
        self.assertEqual(cmake_args(self.recipe),
                         ["-DZONEODE_TESTS:BOOL=OFF", "-DZONEODE_LIBRARY:BOOL=ON", "-DZONEODE_HDF5:STRING=PARALLEL",
                          "-DZONEODE_GPU:STRING=OFF"])
        self.assertIn("-DZONEODE_LIBRARY:BOOL=OFF", cmake_args(self.recipe, library=False))
        self.assertIn("-DZONEODE_LIBRARY:BOOL=ON", cmake_args(self.recipe, cuda=True, cuda_arch=("90",)))
        self.assertIn("-DZONEODE_HDF5:STRING=SERIAL", cmake_args(self.recipe, mpi=False))
        self.assertIn("-DZONEODE_TESTS:BOOL=ON", cmake_args(self.recipe, tests=True))
        rocm = cmake_args(self.recipe, rocm=True, amdgpu_target=("gfx90a", "gfx942"))
        self.assertIn("-DZONEODE_GPU:STRING=HIP", rocm)
        self.assertIn("-DCMAKE_HIP_ARCHITECTURES:STRING=gfx90a;gfx942", rocm)
        self.assertIn("-DCMAKE_HIP_COMPILER:STRING=/spack/opt/llvm-amdgpu/bin/clang++", rocm)
        cuda = cmake_args(self.recipe, cuda=True, cuda_arch=("90",))
        self.assertEqual(cuda[-2:], ["-DZONEODE_GPU:STRING=CUDA", "-DCMAKE_CUDA_ARCHITECTURES:STRING=90"])

    def test_cpu_arguments_configure_this_tree(self):
        cmake = shutil.which("cmake")
        if not cmake:
            self.skipTest("no cmake")
        for variants, hdf5 in (({"mpi": True}, "PARALLEL"), ({"mpi": False}, "SERIAL")):
            with tempfile.TemporaryDirectory() as build:
                result = subprocess.run([cmake, "-S", SOURCE, "-B", build, *cmake_args(self.recipe, **variants)],
                                        capture_output=True, text=True)
                self.assertEqual(result.returncode, 0, result.stdout[-2000:] + result.stderr[-2000:])
                with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as handle:
                    cache = handle.read()
                self.assertIn(f"ZONEODE_HDF5:STRING={hdf5}", cache)
                self.assertIn("ZONEODE_TESTS:BOOL=OFF", cache)
                self.assertIn("ZONEODE_LIBRARY:BOOL=ON", cache)
                self.assertIn("ZONEODE_GPU:STRING=OFF", cache)
                self.assertIn(f"ZONEODE_HDF5       = {hdf5} -> {hdf5}", result.stdout)


class ConfigureMessagesTest(unittest.TestCase):
    """What a site build meets first (CMakeLists.txt): tests follow GoogleTest's presence, and a
    missing yaml-cpp or HDF5 is named with its module and Spack package. A missing package is
    planted with CMAKE_DISABLE_FIND_PACKAGE_<name>."""

    def configure(self, *options):
        cmake = shutil.which("cmake")
        if not cmake:
            self.skipTest("no cmake")
        with tempfile.TemporaryDirectory() as build:
            result = subprocess.run([cmake, "-S", SOURCE, "-B", build, *options], capture_output=True, text=True)
            cache = ""
            if os.path.isfile(os.path.join(build, "CMakeCache.txt")):
                with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as handle:
                    cache = handle.read()
        # CMake wraps and indents message() text: compare with the whitespace collapsed.
        return result.returncode, " ".join((result.stdout + result.stderr).split()), cache

    def test_tests_follow_googletest(self):
        status, output, cache = self.configure()
        self.assertEqual(status, 0, output[-2000:])
        self.assertIn("ZONEODE_TESTS:BOOL=ON", cache)
        status, output, cache = self.configure("-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON")
        self.assertEqual(status, 0, output[-2000:])
        self.assertIn("ZONEODE_TESTS:BOOL=OFF", cache)
        self.assertIn("GoogleTest not found: ZONEODE_TESTS=OFF (Debian: libgtest-dev; Spack: googletest", output)
        status, output, _ = self.configure("-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON", "-DZONEODE_TESTS=ON")
        self.assertNotEqual(status, 0)
        self.assertIn("ZONEODE_TESTS=ON but GoogleTest was not found", output)

    def test_missing_yaml_cpp_and_hdf5_named(self):
        status, output, _ = self.configure("-DCMAKE_DISABLE_FIND_PACKAGE_yaml-cpp=ON")
        self.assertNotEqual(status, 0)
        self.assertIn("yaml-cpp not found. Debian/Ubuntu: apt-get install libyaml-cpp-dev; Spack: spack install yaml-cpp", output)
        status, output, _ = self.configure("-DCMAKE_DISABLE_FIND_PACKAGE_HDF5=ON")
        self.assertNotEqual(status, 0)
        self.assertIn("HDF5 (C) not found. Cray (LUMI, Frontier): module load cray-hdf5-parallel", output)
        self.assertIn("Spack: spack install hdf5+mpi", output)


if __name__ == "__main__":
    unittest.main()
