# shellcheck shell=bash disable=SC2034  # read by slurm/common.sh
# Site settings for a generic AMD GPU cluster (Slurm, one rank per GPU/GCD; Open MPI or MPICH
# with Slurm's PMI). Copy to a new file for your cluster and point ZONEODE_SITE_FILE at it.
site_name=generic-amd
site_preset=generic-amd
site_backend=gpu
site_ranks_per_node=${ZONEODE_GPUS_PER_NODE:-8}
site_threads=1
site_gpu_variable=ROCR_VISIBLE_DEVICES
site_launcher=srun
site_srun_flags=(--cpu-bind=cores)
site_sbatch_flags=(--gpus-per-node="${ZONEODE_GPUS_PER_NODE:-8}")
site_modules() {
  # Names differ per cluster: a ROCm, an MPI, HDF5, CMake >= 3.21 and yaml-cpp.
  module load rocm openmpi hdf5 cmake 2>/dev/null || true
}
