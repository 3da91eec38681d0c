#!/usr/bin/env bash
# Installs what zoneode needs from the distribution (Debian 12 / Ubuntu 22.04+), only what is
# missing. Runs apt-get as root, through sudo otherwise. libsundials-dev (CVODE) builds
# zoneode-validate, the implicit method's reference (validation/README.md).
# --hip also installs Debian's HIP toolchain (hipcc, HIP 5.2), which compiles the kernels for
# gfx90a (MI250); the CPU build and the README's commands do not need it.
# --slurm installs Debian's Slurm (slurmctld, slurmd, munge) for tests/slurm_end_to_end.sh, and
# matplotlib and numpy for Debian's /usr/bin/python3 (scripts/report.py), and ccache (CI's preset builds).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ccache
  libyaml-cpp-dev libgtest-dev
  libomp-dev
  libopenmpi-dev openmpi-bin
  libhdf5-dev libhdf5-openmpi-dev hdf5-tools
  libsundials-dev
  python3-h5py  # tests/hostile (hostile HDF5 files) and tests/self_check_end_to_end.py
  clang libclang-rt-14-dev  # the sanitizer build and the libFuzzer harnesses (.ci/run)
  gfortran python3-numpy  # the library's Fortran example and Python module (tests/library_install_end_to_end.sh, test_python_api.py)
)
case "${1:-}" in
  --hip) packages=(hipcc libamdhip64-dev rocm-device-libs) ;;
  --slurm) packages=(slurmctld slurmd slurm-client munge python3-matplotlib python3-numpy ccache) ;;
  "") ;;
  *) echo "install_dependencies: unknown option '$1' (--hip or --slurm)" >&2; exit 2 ;;
esac

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_dependencies: everything is installed"
  exit 0
fi
echo "install_dependencies: installing ${missing[*]}"
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install_dependencies: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  as_root=(sudo)
fi
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
