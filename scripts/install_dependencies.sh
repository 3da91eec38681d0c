#!/usr/bin/env bash
# Installs what zoneode needs from the distribution (Debian 12 / Ubuntu 22.04+), only what is
# missing. Runs apt-get as root, through sudo otherwise.
# --hip also installs Debian's HIP toolchain (hipcc, HIP 5.2), which compiles the kernels for
# gfx90a (MI250); the CPU build and the README's commands do not need it.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libyaml-cpp-dev libgtest-dev
  libomp-dev
  libopenmpi-dev openmpi-bin
  libhdf5-dev libhdf5-openmpi-dev hdf5-tools
  python3-h5py  # tests/hostile: hostile HDF5 files
  clang libclang-rt-14-dev  # the sanitizer build and the libFuzzer harnesses (.ci/run)
)
if [ "${1:-}" = "--hip" ]; then
  packages=(hipcc libamdhip64-dev rocm-device-libs)
fi

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
