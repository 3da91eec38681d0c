# shellcheck shell=bash disable=SC2034  # read by slurm/common.sh
# Site settings for Frontier (HPE Cray EX; 8 MI250X GCDs per node, 56 usable cores; Slurm).
# Sourced by the slurm/ scripts (ZONEODE_SITE=frontier); never edit in place: copy to a new file
# and point ZONEODE_SITE_FILE at it. Source: the OLCF Frontier user guide,
# https://docs.olcf.ornl.gov/systems/frontier_user_guide.html
#  - "Process and Thread Mapping": one rank per GCD with 7 cores each, Slurm binding each rank to
#    the GCD closest to its cores (-c 7 --gpus-per-task=1 --gpu-bind=closest), so select_gpu.sh
#    sets nothing; the node diagram gives the GCD-to-L3-region map (site_closest_cpus).
#  - "Compiling": HIP through CMake with amdclang++ (the frontier preset); the cpe and rocm modules
#    pinned as a pair whose LLVM versions match (CCE and ROCm share LLVM: change both together,
#    from the guide's table of compatible versions).
#  - "Profiling": rocprof-compute from the rocprofiler-compute module, which needs a ROCm module
#    loaded before it and is provided for ROCm 6.3/6.4 (the build's rocm/6.2.4 has none): the
#    profile job loads rocm/6.3.1 then rocprofiler-compute (ZONEODE_PROFILE_ROCM_MODULE), the
#    order the OLCF/AMD Frontier training material uses (amd/HPCTrainingExamples: module load
#    rocm/6.3.1; module load rocprofiler-compute/3.0.0).
#  - "Compiling" / dynamic linking: a non-default cray-* or rocm version needs the same modules and
#    LD_LIBRARY_PATH=$CRAY_LD_LIBRARY_PATH:$LD_LIBRARY_PATH at run time (or an rpath build): jobs
#    load the modules recorded beside the binary by slurm/build.sh and set that path
#    (zoneode_job_environment in slurm/common.sh).
site_name=frontier
site_preset=frontier
site_backend=gpu
site_gpu_vendor=amd
site_gpus_per_node=8
site_ranks_per_node=8
site_threads=1
site_gpu_variable=none                   # Slurm's --gpu-bind=closest sets ROCR_VISIBLE_DEVICES
site_launcher=srun
site_closest_cpus=(49-55,113-119 57-63,121-127 17-23,81-87 25-31,89-95 1-7,65-71 9-15,73-79 33-39,97-103 41-47,105-111)
site_srun_flags=(-c 7 --gpus-per-task=1 --gpu-bind=closest)
site_sbatch_flags=()                     # whole nodes; the account: ZONEODE_SBATCH_FLAGS="-A ABC123"
# Frontier has no CPU partition: the report job takes one node briefly (or run scripts/report.py
# on a login node).
site_report_sbatch_flags=(--nodes=1 --time=00:10:00)
site_modules() {
  module load "${ZONEODE_CPE_MODULE:-cpe/24.11}" PrgEnv-cray craype-accel-amd-gfx90a \
    "${ZONEODE_ROCM_MODULE:-rocm/6.2.4}" cray-hdf5-parallel cmake
}
site_profiler_module() {
  case $1 in
    rocprof-compute) echo "${ZONEODE_PROFILE_ROCM_MODULE:-rocm/6.3.1} rocprofiler-compute" ;;
    rocprofv3) echo "${ZONEODE_PROFILE_ROCM_MODULE:-rocm/6.3.1}" ;;  # rocprofv3 ships with ROCm >= 6.2
  esac
}
