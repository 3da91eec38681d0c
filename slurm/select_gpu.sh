#!/usr/bin/env bash
# Gives the rank its own GPU, prints its binding, then runs the command:
#   srun ... slurm/select_gpu.sh zoneode DECK ...
# The rank's index on its node (SLURM_LOCALID under srun, OMPI_COMM_WORLD_LOCAL_RANK under
# mpirun) picks the GPU; ZONEODE_GPU_VARIABLE names what is set (ROCR_VISIBLE_DEVICES on AMD,
# CUDA_VISIBLE_DEVICES on NVIDIA, none where Slurm binds GPUs itself or there is no GPU);
# ZONEODE_GPU_MAP (optional, e.g. "4,5,2,3,6,7,0,1") maps local index i to the i-th entry.
# zoneode then sees one device and uses it (device = local rank modulo visible devices).
# The binding line (slurm/binding.sh: host, CPUs, GPU bus id, NUMA of each, closest-CPU check)
# goes to stderr unless ZONEODE_BINDING_CHECK=0.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: select_gpu.sh COMMAND [ARGS...]" >&2; exit 2; }
local_rank=${SLURM_LOCALID:-${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-0}}}
variable=${ZONEODE_GPU_VARIABLE:-ROCR_VISIBLE_DEVICES}
case $variable in
  none) ;;
  ROCR_VISIBLE_DEVICES | CUDA_VISIBLE_DEVICES | HIP_VISIBLE_DEVICES)
    gpu=$local_rank
    if [ -n "${ZONEODE_GPU_MAP:-}" ]; then
      IFS=, read -r -a map <<<"$ZONEODE_GPU_MAP"
      [ "$local_rank" -lt "${#map[@]}" ] || { echo "select_gpu.sh: local rank $local_rank but ZONEODE_GPU_MAP has ${#map[@]} entries" >&2; exit 2; }
      gpu=${map[$local_rank]}
    fi
    export "$variable=$gpu"
    # The index counts the job's GPUs (on a shared node, binding.sh maps it to the node's); where
    # Slurm binds GPUs itself (none) its ids are the node's already.
    export ZONEODE_GPU_INDEX_SCOPE=job
    ;;
  *) echo "select_gpu.sh: ZONEODE_GPU_VARIABLE=$variable: expected ROCR_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES or none" >&2; exit 2 ;;
esac
if [ "${ZONEODE_BINDING_CHECK:-1}" != 0 ]; then
  # shellcheck source=slurm/binding.sh
  source "$(dirname "$0")/binding.sh"
  zoneode_binding_line >&2 || true
fi
exec "$@"
