# shellcheck shell=bash disable=SC2034  # read by slurm/common.sh
# Site settings for one machine running its own Slurm (slurm/README.md "A local Slurm from
# scratch"; tests/slurm/local_cluster.sh): the CPU build, no GPU, srun with PMIx (Debian's Open MPI
# is built with PMIx and Slurm's mpi_pmix plugin serves it), so that signals reach the ranks as on
# the real sites (scancel --signal=USR1 JOB without --batch included).
site_name=local
site_preset=cpu
site_backend=cpu
site_gpu_vendor=none
site_gpus_per_node=0
site_ranks_per_node=$(nproc 2>/dev/null || echo 1)   # one rank per CPU of this machine
site_threads=1
site_gpu_variable=none
site_launcher=srun
site_srun_flags=(--mpi=pmix)
site_sbatch_flags=()
site_report_sbatch_flags=(--ntasks=1)
site_modules() { :; }
