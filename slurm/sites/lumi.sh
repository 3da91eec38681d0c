# shellcheck shell=bash disable=SC2034  # read by slurm/common.sh
# Site settings for LUMI-G (HPE Cray EX; 8 MI250X GCDs per node, 56 usable cores; Slurm).
# Sourced by the slurm/ scripts (ZONEODE_SITE=lumi); never edit in place: copy to a new file and
# point ZONEODE_SITE_FILE at it. Sources (LUMI documentation):
#  [B] https://docs.lumi-supercomputer.eu/runjobs/scheduled-jobs/distribution-binding/
#      one rank per GCD, ROCR_VISIBLE_DEVICES=$SLURM_LOCALID, map_cpu:49,57,17,25,1,9,33,41 (the
#      first usable core of the CCD closest to GCD 0..7); "for full node allocation only":
#      standard-g, or another partition with --exclusive.
#  [P] https://docs.lumi-supercomputer.eu/runjobs/scheduled-jobs/partitions/
#      standard-g: whole nodes; small-g: shared nodes; small: CPU nodes (the report job).
#  [M] https://docs.lumi-supercomputer.eu/development/compiling/prgenv/ and
#      https://docs.lumi-supercomputer.eu/runjobs/lumi_env/softwarestacks/
#      a versioned stack (LUMI/24.03 or LUMI/25.03), partition/G, PrgEnv-cray with the Cray
#      wrappers cc/CC, craype-accel-amd-gfx90a, rocm. Dynamically linked Cray libraries need the
#      same modules in the job and LD_LIBRARY_PATH=${CRAY_LD_LIBRARY_PATH}:${LD_LIBRARY_PATH} (or an
#      rpath build): jobs load the modules recorded beside the binary by slurm/build.sh and set
#      that path (zoneode_job_environment in slurm/common.sh).
#  [T] https://lumi-supercomputer.github.io/LUMI-training-materials/2day-20260422/202-Binding/
#      GCD-to-CCD map of a LUMI-G node (site_closest_cpus below).
site_name=lumi
site_preset=lumi                         # CMakePresets.json: CC/cc wrappers, HIP for gfx90a
site_backend=gpu
site_gpu_vendor=amd
site_gpus_per_node=8                     # GCDs [B]
site_ranks_per_node=8                    # one per GCD
site_threads=1                           # host threads per rank (the GPU does the work)
site_gpu_variable=ROCR_VISIBLE_DEVICES   # what select_gpu.sh sets from SLURM_LOCALID [B]
site_launcher=srun
# The CPUs of the CCD closest to GCD 0..7 (cores and their second hardware threads) [B, T]:
# what the binding check (slurm/binding.sh) holds each rank to.
site_closest_cpus=(49-55,113-119 57-63,121-127 17-23,81-87 25-31,89-95 1-7,65-71 9-15,73-79 33-39,97-103 41-47,105-111)
# map_cpu works on whole nodes only [B]: standard-g, or --exclusive. Inside a shared small-g job
# the ranks are bound to cores, and the binding check says which rank is far from its GCD.
# shellcheck disable=SC2054  # the commas are map_cpu's, inside one word
site_srun_flags=(--cpu-bind=map_cpu:49,57,17,25,1,9,33,41)
if [ -n "${SLURM_JOB_ID:-}" ] && [ "${SLURM_JOB_PARTITION:-}" != standard-g ] &&
   ! scontrol show job "$SLURM_JOB_ID" 2>/dev/null | grep -q 'OverSubscribe=NO'; then
  site_srun_flags=(--cpu-bind=cores)
  echo "lumi.sh: partition ${SLURM_JOB_PARTITION:-?} without --exclusive: map_cpu binding needs whole nodes (docs: distribution-binding); binding to cores" >&2
fi
# Added to every job by scaling.sh (the account is yours: ZONEODE_SBATCH_FLAGS="-A project_NNNNNNNNN") [P].
site_sbatch_flags=(--partition=standard-g --gpus-per-node=8 --exclusive)
site_report_sbatch_flags=(--partition=small --ntasks=1 --time=00:15:00)   # a CPU node for report.py [P]
site_modules() {
  # [M]; versions overridable, e.g. ZONEODE_LUMI_STACK=LUMI/25.03 ZONEODE_ROCM_MODULE=rocm/6.3.4
  module load "${ZONEODE_LUMI_STACK:-LUMI/24.03}" partition/G PrgEnv-cray craype-accel-amd-gfx90a \
    "${ZONEODE_ROCM_MODULE:-rocm}" cray-hdf5-parallel buildtools
}
# Where a profiler is not on the PATH after site_modules: the module that has it (profile.sbatch).
# LUMI's system ROCm is 6.3.x: rocprofv3 without rocpd; rocprof-compute from the -extra module.
site_profiler_module() {
  case $1 in
    rocprof-compute) echo "${ZONEODE_ROCPROF_COMPUTE_MODULE:-rocm/6.3.4-extra}" ;;
    # rocprofv3 comes with ROCm >= 6.2 (ROCprofiler-SDK). The default stack's rocm module
    # (LUMI/24.03: ROCm 6.0.3) has none, so where the build's ROCm lacks it the job loads the
    # system ROCm's module; the profiled binary then runs on ROCm 6.3's runtime.
    rocprofv3) echo "${ZONEODE_PROFILE_ROCM_MODULE:-rocm/6.3.4}" ;;
  esac
}
