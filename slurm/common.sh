# shellcheck shell=bash disable=SC2154  # site_* come from the site file
# Shared by the slurm/ scripts (sourced, not run): site selection, the build, the launch line.
# Environment read here (all optional except ZONEODE_SITE):
#   ZONEODE_SITE        lumi | frontier | generic-amd | generic-nvidia | local  (slurm/sites/NAME.sh)
#   ZONEODE_SITE_FILE   a site file of your own instead (copy one of slurm/sites/ and edit the copy)
#   ZONEODE_BUILD_DIR   the build to run (default build-<the site's CMake preset>)
#   ZONEODE_BACKEND     cpu | gpu (default: the site's)
#   ZONEODE_KERNEL      GPU kernel variant (default final); ignored by the CPU backend
#   ZONEODE_THREADS     OpenMP threads per rank (default: the site's, or SLURM_CPUS_PER_TASK on the CPU)
#   ZONEODE_MPIRUN_FLAGS extra mpirun flags (site_launcher=mpirun), ZONEODE_SRUN_FLAGS extra srun flags

zoneode_die() {  # zoneode_die STATUS MESSAGE
  echo "$(basename "$0"): $2" >&2
  exit "$1"
}

# Loads the site file: site_name, site_preset, site_backend, site_ranks_per_node, site_threads,
# site_gpu_variable, site_launcher, site_srun_flags, site_sbatch_flags, site_modules.
zoneode_load_site() {
  local file=${ZONEODE_SITE_FILE:-}
  if [ -z "$file" ]; then
    [ -n "${ZONEODE_SITE:-}" ] || zoneode_die 2 "ZONEODE_SITE is not set: expected lumi, frontier, generic-amd, generic-nvidia or local (or ZONEODE_SITE_FILE=your copy of one of slurm/sites/)"
    file=slurm/sites/${ZONEODE_SITE}.sh
    [ -f "$file" ] || zoneode_die 2 "ZONEODE_SITE=$ZONEODE_SITE: no $file; expected lumi, frontier, generic-amd, generic-nvidia or local"
  fi
  [ -f "$file" ] || zoneode_die 2 "ZONEODE_SITE_FILE=$file: no such file"
  # shellcheck source=/dev/null
  source "$file"
  local key
  for key in site_name site_preset site_backend site_ranks_per_node site_threads site_gpu_variable site_launcher; do
    [ -n "${!key:-}" ] || zoneode_die 2 "$file: $key is not set"
  done
  case $site_launcher in srun | mpirun) ;; *) zoneode_die 2 "$file: site_launcher=$site_launcher: expected srun or mpirun" ;; esac
  zoneode_backend=${ZONEODE_BACKEND:-$site_backend}
  case $zoneode_backend in cpu | gpu) ;; *) zoneode_die 2 "ZONEODE_BACKEND=$zoneode_backend: expected cpu or gpu" ;; esac
  # The variant names the outputs; the CPU backend has none.
  if [ "$zoneode_backend" = gpu ]; then zoneode_variant=${ZONEODE_KERNEL:-final}; else zoneode_variant=none; fi
  case $zoneode_variant in none | baseline | lds | wave | tuned | final) ;;
    *) zoneode_die 2 "ZONEODE_KERNEL=$zoneode_variant: expected baseline, lds, wave, tuned or final" ;;
  esac
  if [ "$zoneode_backend" = cpu ]; then
    zoneode_threads=${ZONEODE_THREADS:-${SLURM_CPUS_PER_TASK:-$site_threads}}
  else
    zoneode_threads=${ZONEODE_THREADS:-$site_threads}
  fi
  zoneode_build_dir=${ZONEODE_BUILD_DIR:-build-$site_preset}
  zoneode_exe=$zoneode_build_dir/zoneode
}

# Configures and builds the site's CMake preset (CMakePresets.json) with the site's modules.
zoneode_build() {
  if command -v module >/dev/null 2>&1; then site_modules; fi
  cmake --preset "$site_preset" -B "$zoneode_build_dir" && cmake --build "$zoneode_build_dir" -j "${ZONEODE_BUILD_JOBS:-8}"
}

zoneode_check_exe() {
  [ -x "$zoneode_exe" ] || zoneode_die 2 "no zoneode at $zoneode_exe: build it first (ZONEODE_SITE=$site_name slurm/build.sh, i.e. cmake --preset $site_preset && cmake --build --preset $site_preset), or set ZONEODE_BUILD_DIR"
}

# zoneode_launch_line RANKS: sets the array launch_line, the command that starts RANKS ranks of
# what follows it, each through select_gpu.sh (which sets the rank's GPU and execs).
zoneode_launch_line() {
  local ranks=$1
  export ZONEODE_GPU_VARIABLE=$site_gpu_variable OMP_NUM_THREADS=$zoneode_threads
  if [ "$site_launcher" = srun ]; then
    # shellcheck disable=SC2206
    launch_line=(srun --ntasks="$ranks" "${site_srun_flags[@]}" ${ZONEODE_SRUN_FLAGS:-} slurm/select_gpu.sh)
  else
    launch_line=(mpirun -n "$ranks")
    # root in containers and CI; more ranks than the allocation's slots on small machines
    if [ "$(id -u)" -eq 0 ]; then launch_line+=(--allow-run-as-root); fi
    # shellcheck disable=SC2206
    launch_line+=(--oversubscribe -x OMP_NUM_THREADS -x ZONEODE_GPU_VARIABLE ${ZONEODE_MPIRUN_FLAGS:-} slurm/select_gpu.sh)
  fi
}
