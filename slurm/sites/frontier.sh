# shellcheck shell=bash disable=SC2034  # read by slurm/common.sh
# Site settings for Frontier (HPE Cray EX; 8 MI250X GCDs per node, 56 usable cores; Slurm).
# Sourced by the slurm/ scripts (ZONEODE_SITE=frontier); never edit in place: copy to a new file
# and point ZONEODE_SITE_FILE at it. Following the OLCF Frontier user guide: one rank per GCD with
# 7 cores each, and Slurm binds each rank to the GCD closest to its cores (-c 7
# --gpus-per-task=1 --gpu-bind=closest), so select_gpu.sh has nothing to set.
site_name=frontier
site_preset=frontier
site_backend=gpu
site_ranks_per_node=8
site_threads=1
site_gpu_variable=none                   # Slurm's --gpu-bind=closest sets ROCR_VISIBLE_DEVICES
site_launcher=srun
site_srun_flags=(-c 7 --gpus-per-task=1 --gpu-bind=closest)
site_sbatch_flags=()                     # whole nodes; add -A PROJECT (and -p/-q as your project needs)
site_modules() {
  module load PrgEnv-cray craype-accel-amd-gfx90a rocm cray-hdf5-parallel cmake
}
