# shellcheck shell=bash disable=SC2034  # read by slurm/common.sh
# Site settings for a generic NVIDIA GPU cluster (Slurm, one rank per GPU). Copy to a new file for
# your cluster and point ZONEODE_SITE_FILE at it.
# Slurm options: https://slurm.schedmd.com/sbatch.html (--gpus-per-node), https://slurm.schedmd.com/srun.html
# (--cpu-bind=cores, --mpi); GPU numbering: CUDA_VISIBLE_DEVICES (https://docs.nvidia.com/cuda/cuda-c-programming-guide/#env-vars).
site_name=generic-nvidia
site_preset=generic-nvidia
site_backend=gpu
site_gpu_vendor=nvidia
site_gpus_per_node=${ZONEODE_GPUS_PER_NODE:-4}
site_ranks_per_node=$site_gpus_per_node          # one rank per GPU: never more ranks than GPUs on a node
site_threads=1
site_gpu_variable=CUDA_VISIBLE_DEVICES
site_launcher=srun
site_srun_flags=(--cpu-bind=cores)
site_sbatch_flags=(--gpus-per-node="$site_gpus_per_node")
site_report_sbatch_flags=(--ntasks=1)            # add a CPU partition: ZONEODE_REPORT_SBATCH_FLAGS
site_modules() {
  # Names differ per cluster: CUDA (nvcc), an MPI, HDF5, CMake >= 3.21 and yaml-cpp (or Spack:
  # spack install zoneode +cuda, packaging/spack/spack_repo/zoneode/packages/zoneode/package.py).
  module load cuda openmpi hdf5 cmake 2>/dev/null || true
}
