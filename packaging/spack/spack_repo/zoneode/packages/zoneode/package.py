# A Spack recipe for zoneode (https://spack.readthedocs.io/en/latest/packaging_guide_creation.html),
# in a package repository of the Spack 1.x layout, spack_repo/zoneode/packages/zoneode/ (namespace
# zoneode, repo.yaml beside). slurm/README.md, "Building with Spack", has the commands:
#   Spack 1.x:   spack repo add packaging/spack/spack_repo/zoneode
#   Spack 0.23:  spack repo create ~/zoneode-repo && cp -r packaging/spack/spack_repo/zoneode/packages/zoneode \
#                  ~/zoneode-repo/packages/ && spack repo add ~/zoneode-repo
#   spack install zoneode +rocm amdgpu_target=gfx90a      # LUMI, Frontier (with the site's Spack config)
#   spack install zoneode +cuda cuda_arch=90              # NVIDIA H100/H200
# HIP is Spack's rocm variant (ROCmPackage: +rocm, amdgpu_target); CUDA is CudaPackage's.
# Tested here against a stub of Spack's package API, in its 1.x and 0.23 forms
# (tests/test_spack_package.py), not by Spack.

from spack.package import *

try:
    # Spack 1.x: the build systems live in the builtin repository (spack/spack-packages), no
    # longer in spack.package.
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
    from spack_repo.builtin.build_systems.rocm import ROCmPackage
except ImportError:  # Spack 0.x: spack.package exports them
    pass


class Zoneode(CMakePackage, CudaPackage, ROCmPackage):
    """Stiff nuclear reaction network integrated in every zone of a mesh: MPI over zones, OpenMP
    or GPU (HIP, CUDA) within a rank, YAML decks, HDF5 state files."""

    # zoneode has no public address yet: point these at your clone (git also takes file:///path).
    homepage = "https://example.invalid/zoneode"
    git = "https://example.invalid/zoneode.git"

    version("main", branch="main")

    variant("mpi", default=True,
            description="Parallel HDF5 (collective writes); ~mpi: serial HDF5, ranks write in turn. MPI itself is always needed")
    variant("tests", default=False, description="Build the GoogleTest suite (ctest)")
    # On by default for every backend: a simulation code that installs zoneode with Spack wants the
    # burner (CMake's own default is off in GPU builds, where a plain build is for the program).
    variant("library", default=True,
            description="Install libzoneode, its C header, Fortran and Python modules and the package config "
                        "(with +cuda/+rocm the burner also takes device arrays)")

    # Spack 1.x treats compilers as dependencies: every language the build compiles is declared.
    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.21:", type="build")
    depends_on("mpi")
    depends_on("yaml-cpp@0.7:")
    depends_on("hdf5+mpi", when="+mpi")
    depends_on("hdf5~mpi", when="~mpi")
    depends_on("googletest", type=("build", "link"), when="+tests")
    depends_on("hip", when="+rocm")
    depends_on("llvm-amdgpu", when="+rocm")

    conflicts("+cuda", when="+rocm", msg="one GPU backend per build: +cuda or +rocm")
    conflicts("amdgpu_target=none", when="+rocm", msg="name the GPU: amdgpu_target=gfx90a (MI250X), gfx942 (MI300)")
    conflicts("cuda_arch=none", when="+cuda", msg="name the GPU: cuda_arch=90 (H100/H200), 80 (A100)")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("ZONEODE_TESTS", "tests"),
            self.define_from_variant("ZONEODE_LIBRARY", "library"),
            self.define("ZONEODE_HDF5", "PARALLEL" if spec.satisfies("+mpi") else "SERIAL"),
        ]
        if spec.satisfies("+rocm"):
            args += [
                self.define("ZONEODE_GPU", "HIP"),
                self.define("CMAKE_HIP_ARCHITECTURES", list(spec.variants["amdgpu_target"].value)),
                # CMake's HIP language with ROCm's clang (the hipcc wrapper is not needed).
                self.define("CMAKE_HIP_COMPILER", join_path(spec["llvm-amdgpu"].prefix.bin, "clang++")),
            ]
        elif spec.satisfies("+cuda"):
            args += [
                self.define("ZONEODE_GPU", "CUDA"),
                self.define("CMAKE_CUDA_ARCHITECTURES", list(spec.variants["cuda_arch"].value)),
            ]
        else:
            args.append(self.define("ZONEODE_GPU", "OFF"))
        return args
