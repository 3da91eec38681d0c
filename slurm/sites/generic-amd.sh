# shellcheck shell=bash disable=SC2034  # read by slurm/common.sh
# Site settings for a generic AMD GPU cluster (Slurm, one rank per GPU/GCD; Open MPI or MPICH
# with Slurm's PMI). Copy to a new file for your cluster and point ZONEODE_SITE_FILE at it.
# Slurm options: https://slurm.schedmd.com/sbatch.html (--gpus-per-node), https://slurm.schedmd.com/srun.html
# (--cpu-bind=cores); GPU numbering: ROCR_VISIBLE_DEVICES
# (https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html).
site_name=generic-amd
site_preset=generic-amd
site_backend=gpu
site_gpu_vendor=amd
site_gpus_per_node=${ZONEODE_GPUS_PER_NODE:-8}
site_ranks_per_node=$site_gpus_per_node
site_threads=1
site_gpu_variable=ROCR_VISIBLE_DEVICES
site_launcher=srun
site_srun_flags=(--cpu-bind=cores)
site_sbatch_flags=(--gpus-per-node="$site_gpus_per_node")
site_report_sbatch_flags=(--ntasks=1)
site_modules() {
  # Names differ per cluster: a ROCm, an MPI, HDF5, CMake >= 3.21 and yaml-cpp (or Spack:
  # spack install zoneode +rocm amdgpu_target=gfx90a).
  module load rocm openmpi hdf5 cmake 2>/dev/null || true
}
