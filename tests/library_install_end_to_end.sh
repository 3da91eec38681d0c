#!/usr/bin/env bash
# The library as a user gets it (issue 41): `cmake --install` into a temporary prefix, then the
# examples built against that prefix alone - the C++ operator-split driver as a separate CMake
# project (find_package(zoneode)), the C one through pkg-config - and run. The installed library
# must find its data under the prefix, not in the source tree.
# usage: library_install_end_to_end.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
unset ZONEODE_DATA_DIR

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for file in include/zoneode/zoneode.h share/zoneode/data/partition_functions/rt2000_frdm_rpz24.txt; do
  [ -f "$prefix/$file" ] || { echo "FAIL: $file not installed"; exit 1; }
done
config=$(find "$prefix" -name zoneodeConfig.cmake | head -1)
pc=$(find "$prefix" -name zoneode.pc | head -1)
[ -n "$config" ] && [ -n "$pc" ] || { echo "FAIL: no zoneodeConfig.cmake or zoneode.pc under $prefix"; exit 1; }

# C++: find_package against the prefix.
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S "$source_dir/examples/cpp" -B "$work/cpp" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/cpp_configure.log" || { cat "$work/cpp_configure.log"; exit 1; }
grep "zoneode 0" "$work/cpp_configure.log"
cmake --build "$work/cpp" -j 2 > "$work/cpp_build.log" || { cat "$work/cpp_build.log"; exit 1; }
"$work/cpp/column_burn" 24 6 | tee "$work/cpp_run.log"
grep -q "column_burn: OK" "$work/cpp_run.log"
data=$(grep "^data: " "$work/cpp_run.log" | cut -c7-)
case "$data" in
  "$(cd "$prefix" && pwd -P)"/*) echo "the installed library found its data under the prefix: $data" ;;
  *) echo "FAIL: the installed library's data folder is '$data', expected one under $prefix"; exit 1 ;;
esac

# The installed program finds the shipped partition table under the prefix too (issue 40: it read
# the source tree's): found beside it (bin/ -> share/zoneode/data) before the source tree's copy;
# its header names the table.
cat >"$work/pf.yaml" <<YAML
network: {source: reaclib, file: $source_dir/inputs/networks/rp-z24.reaclib, nuclides_file: $source_dir/inputs/networks/rp-z24.nuclides}
zones: {count: 2, temperature: {profile: constant, value: 1}, density: {profile: constant, value: 1e7}, composition: {p: 0.7, he4: 0.28, o16: 0.02}}
integrator: {method: asymptotic, schedule: geometric, start_time: 1.0e-12, end_time: 1.0e-11, dt_fraction: 0.1}
physics: {partition_functions: true}
YAML
"$prefix/bin/zoneode" "$work/pf.yaml" --quiet > "$work/pf.log" 2>&1 || { tail -5 "$work/pf.log"; echo "FAIL: the installed program with partition functions"; exit 1; }
table=$(grep -o "reverse rates in [^,]*rt2000_frdm_rpz24.txt" "$work/pf.log" | head -1 | sed 's/reverse rates in //')
case "$table" in
  "$(cd "$prefix" && pwd -P)"/*) echo "the installed program read the partition table under the prefix: $table" ;;
  *) echo "FAIL: the installed program's partition table is '$table', expected one under $prefix"; exit 1 ;;
esac

# C: pkg-config against the prefix.
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir zoneode)
# shellcheck disable=SC2046  # the flags are words
"${CC:-cc}" -std=c99 -Wall -Wextra -Werror "$source_dir/examples/c/burn_zone.c" -o "$work/burn_zone" \
  $(pkg-config --cflags --libs zoneode) -Wl,-rpath,"$libdir" -lm
"$work/burn_zone"
# Fortran: the module over the C API and the column driver, where a Fortran compiler is found
# (scripts/install_dependencies.sh installs gfortran; CI=true makes its absence a failure).
if command -v "${FC:-gfortran}" > /dev/null; then
  cmake -S "$source_dir/examples/fortran" -B "$work/fortran" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" > "$work/fortran_configure.log" || { cat "$work/fortran_configure.log"; exit 1; }
  cmake --build "$work/fortran" -j 2 > "$work/fortran_build.log" || { cat "$work/fortran_build.log"; exit 1; }
  "$work/fortran/column_burn_fortran" | tee "$work/fortran_run.log"
  grep -q "column_burn (Fortran): OK" "$work/fortran_run.log"
elif [ "${CI:-}" = true ]; then
  echo "FAIL: no Fortran compiler (gfortran) in CI"; exit 1
else
  echo "Fortran example skipped: no Fortran compiler (apt-get install gfortran)"
fi
echo "library_install_end_to_end: OK"
