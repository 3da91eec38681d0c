#!/usr/bin/env bash
# Configures and builds zoneode in ./build (or $ZONEODE_BUILD_DIR); extra arguments go to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${ZONEODE_BUILD_DIR:-build}
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# ccache where installed: CI's several builds of the same sources (README, serial HDF5, presets)
# then compile each file once.
launcher=()
# Paths under the source tree are hashed relative to it (CCACHE_BASEDIR), so that the same file built
# in build/, build-serial/ and build-<preset>/ is one cache entry.
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
fi
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@"
elif [ $# -gt 0 ]; then
  cmake -S . -B "$build_dir" "$@"
fi
cmake --build "$build_dir" -j "$(nproc)"
# The Python module importable without PYTHONPATH (issue 41): a .pth file in the user's site-packages
# that names this tree's python/ folder, what `pip install --user -e` would write (Debian's pip
# refuses user installs, PEP 668). The module finds build/libzoneode.so beside itself, so only the
# default build folder is linked; the last tree built this way is the one imported.
# ZONEODE_PYTHON_LINK=0 skips it.
if [ "${ZONEODE_PYTHON_LINK:-1}" != 0 ] && [ "$build_dir" = build ] && [ -f build/libzoneode.so ] &&
  site=$(python3 -m site --user-site 2>/dev/null) && [ -n "$site" ]; then
  if mkdir -p "$site" 2>/dev/null && printf '%s\n' "$PWD/python" > "$site/zoneode.pth"; then
    echo "build.sh: python3 -c 'import zoneode' now finds $PWD/python ($site/zoneode.pth; ZONEODE_PYTHON_LINK=0 skips this)"
  else
    echo "build.sh: could not write $site/zoneode.pth; use PYTHONPATH=$PWD/python to import zoneode"
  fi
fi
