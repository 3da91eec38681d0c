#!/usr/bin/env bash
# `python3 -c "import zoneode"` with no PYTHONPATH after ./scripts/build.sh (issue 41): the zoneode.pth
# that build.sh writes into the user's site-packages names this tree's python/ folder, and the module
# imported from any folder is this tree's, loading this build's library. Skipped (77) where build.sh
# did not link this tree (a plain cmake build, another build folder, ZONEODE_PYTHON_LINK=0) or
# python3 has no numpy. Usage: tests/python_import_check.sh SOURCE_DIR BUILD_DIR
set -u
source_dir=$(cd "$1" && pwd -P)
build_dir=$(cd "$2" && pwd -P)
py=/usr/bin/python3
$py -c 'import numpy' 2>/dev/null || { echo "skipped: python3 has no numpy"; exit 77; }
[ "$build_dir" = "$source_dir/build" ] || { echo "skipped: the build folder is not $source_dir/build"; exit 77; }
site=$($py -m site --user-site) || { echo "FAIL: python3 -m site --user-site"; exit 1; }
pth=$site/zoneode.pth
if [ ! -f "$pth" ] || [ "$(cat "$pth")" != "$source_dir/python" ]; then
  echo "skipped: $pth does not name $source_dir/python (build with ./scripts/build.sh)"
  exit 77
fi
out=$(cd / && env -u PYTHONPATH -u ZONEODE_LIBRARY -u ZONEODE_BUILD_DIR $py -c \
  'import os, zoneode; print(os.path.realpath(zoneode.__file__)); print(os.path.realpath(zoneode.library_path)); print(zoneode.api_version())' 2>&1) ||
  { echo "FAIL: import zoneode from / without PYTHONPATH: $out"; exit 1; }
module=$(sed -n 1p <<<"$out") library=$(sed -n 2p <<<"$out") version=$(sed -n 3p <<<"$out")
fail=0
[ "$module" = "$source_dir/python/zoneode/__init__.py" ] || { echo "FAIL: imported $module, not this tree's"; fail=1; }
[ "$library" = "$(realpath "$build_dir/libzoneode.so")" ] || { echo "FAIL: loaded $library, not $build_dir/libzoneode.so"; fail=1; }
[[ $version =~ ^[0-9]+$ ]] || { echo "FAIL: api_version() gave '$version'"; fail=1; }
[ $fail = 0 ] && echo "ok: import zoneode from / gives $module (library $library, API $version)"
exit $fail
