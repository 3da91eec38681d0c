# shellcheck shell=bash disable=SC2034  # read by slurm/common.sh
# Site settings for one machine running its own Slurm (tests/slurm/local_cluster.sh): the CPU
# build, Open MPI's mpirun inside the allocation (it reads the Slurm allocation itself), no GPU.
site_name=local
site_preset=cpu
site_backend=cpu
site_ranks_per_node=${ZONEODE_RANKS_PER_NODE:-2}
site_threads=1
site_gpu_variable=none
site_launcher=mpirun
site_srun_flags=()
site_sbatch_flags=()
site_modules() { :; }
