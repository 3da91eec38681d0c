# shellcheck shell=bash disable=SC2034  # read by slurm/common.sh
# Site settings for LUMI-G (HPE Cray EX; 8 MI250X GCDs per node, 56 usable cores; Slurm).
# Sourced by the slurm/ scripts (ZONEODE_SITE=lumi); never edit in place: copy to a new file and
# point ZONEODE_SITE_FILE at it. Following docs.lumi-supercomputer.eu ("Distribution and binding"):
# one rank per GCD, each rank's GPU from SLURM_LOCALID (slurm/select_gpu.sh), and each rank on a
# core of the CCD closest to its GCD, map_cpu:49,57,17,25,1,9,33,41 (GCD 0..7).
site_name=lumi
site_preset=lumi                         # CMakePresets.json
site_backend=gpu
site_ranks_per_node=8                    # one per GCD
site_threads=1                           # host threads per rank (the GPU does the work)
site_gpu_variable=ROCR_VISIBLE_DEVICES   # what select_gpu.sh sets from SLURM_LOCALID
site_launcher=srun
# shellcheck disable=SC2054  # the commas are map_cpu's, inside one word
site_srun_flags=(--cpu-bind=map_cpu:49,57,17,25,1,9,33,41)
# Added by scaling.sh to every sbatch (the account is yours: sbatch -A project_NNNNNNNNN ...).
site_sbatch_flags=(--partition=standard-g --gpus-per-node=8 --exclusive)
site_modules() {
  module load LUMI partition/G PrgEnv-cray craype-accel-amd-gfx90a rocm cray-hdf5-parallel buildtools
}
