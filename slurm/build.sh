#!/usr/bin/env bash
# Builds zoneode for a site: loads the site's modules (where `module` exists), then configures and
# builds its CMake preset (CMakePresets.json) into build-<preset> (or ZONEODE_BUILD_DIR).
# Usage, from anywhere, on a login node (or inside a job: run.sbatch does it with ZONEODE_BUILD=1):
#   ZONEODE_SITE=lumi|frontier|generic-amd|generic-nvidia|local slurm/build.sh [-DOPTION=VALUE...]
#   e.g. ZONEODE_SITE=lumi slurm/build.sh -DCMAKE_PREFIX_PATH=$PROJECT_DIR/opt   (where yaml-cpp is)
# Extra arguments go to the configure step (cmake --preset PRESET ARGS...).
# Environment: ZONEODE_SITE / ZONEODE_SITE_FILE (slurm/common.sh), ZONEODE_BUILD_DIR,
#   ZONEODE_BUILD_JOBS (parallel compile jobs, default 8). Exit status: CMake's.
set -euo pipefail
cd "$(dirname "$0")/.."
source slurm/common.sh
zoneode_load_site
echo "build.sh: site $site_name, preset $site_preset, into $zoneode_build_dir"
zoneode_build "$@"
echo "build.sh: built $zoneode_exe"
