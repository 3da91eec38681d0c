# shellcheck shell=bash
# The binding check (sourced by slurm/select_gpu.sh, in every rank, after its GPU is chosen):
# one line per rank on stderr,
#   binding: rank R (local L) host H cpus LIST (NUMA n) gpu I bus DDDD:BB:DD.F (NUMA m) closest cpus C: ok
# and "MISMATCH: ..." instead of "ok" when the rank's CPUs are not those closest to its GPU: the
# site's list of closest CPUs per GPU index when it has one (site_closest_cpus: LUMI's and
# Frontier's CCD per GCD), else the GPU's NUMA node. Read from sysfs (ZONEODE_SYSFS, default
# /sys, so that a test can plant a node's layout): the rank's CPUs from /proc/self/status,
# AMD GPUs from the KFD topology (the ROCm runtime's numbering), NVIDIA ones from nvidia-smi.

# zoneode_cpulist_expand "0-3,8": 0 1 2 3 8
zoneode_cpulist_expand() {
  local part out=()
  for part in ${1//,/ }; do
    if [[ $part =~ ^([0-9]+)-([0-9]+)$ ]]; then
      out+=($(seq "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"))
    elif [[ $part =~ ^[0-9]+$ ]]; then
      out+=("$part")
    fi
  done
  echo "${out[*]}"
}

# zoneode_numa_of_cpus "CPU...": the NUMA nodes holding these CPUs, comma-separated.
zoneode_numa_of_cpus() {
  local sys=${ZONEODE_SYSFS:-/sys} dir node cpus found=()
  for dir in "$sys"/devices/system/node/node[0-9]*; do
    [ -f "$dir/cpulist" ] || continue
    node=${dir##*/node}
    cpus=" $(zoneode_cpulist_expand "$(cat "$dir/cpulist")") "
    local cpu
    for cpu in $1; do
      if [[ $cpus == *" $cpu "* ]]; then found+=("$node"); break; fi
    done
  done
  local IFS=,
  echo "${found[*]:-?}"
}

# zoneode_gpu_bus VENDOR INDEX: the PCI address of GPU INDEX as the runtime numbers them.
zoneode_gpu_bus() {
  local vendor=$1 index=$2 sys=${ZONEODE_SYSFS:-/sys}
  if [ "$vendor" = amd ]; then
    local node properties simd location domain gpu=0
    # KFD nodes in numeric order; GPU nodes are those with SIMDs (CPU nodes have none).
    for node in $(ls "$sys/class/kfd/kfd/topology/nodes" 2>/dev/null | sort -n); do
      properties=$sys/class/kfd/kfd/topology/nodes/$node/properties
      simd=$(sed -n 's/^simd_count //p' "$properties" 2>/dev/null)
      [ "${simd:-0}" -gt 0 ] || continue
      if [ "$gpu" -eq "$index" ]; then
        location=$(sed -n 's/^location_id //p' "$properties")
        domain=$(sed -n 's/^domain //p' "$properties")
        printf '%04x:%02x:%02x.%x\n' "${domain:-0}" $((location >> 8)) $(((location >> 3) & 31)) $((location & 7))
        return 0
      fi
      gpu=$((gpu + 1))
    done
  elif [ "$vendor" = nvidia ] && command -v nvidia-smi >/dev/null 2>&1; then
    local bus
    bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i "$index" 2>/dev/null | head -n 1)
    # 00000000:3B:00.0 -> 0000:3b:00.0, as sysfs names it
    [ -n "$bus" ] && { bus=${bus,,}; echo "${bus: -12}"; return 0; }
  fi
  return 1
}

zoneode_binding_line() {
  local sys=${ZONEODE_SYSFS:-/sys} rank=${SLURM_PROCID:-${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}}
  local local_rank=${SLURM_LOCALID:-${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-0}}}
  local cpus allowed numa gpu= bus= gpu_numa= verdict=ok closest=
  allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "${ZONEODE_PROC_STATUS:-/proc/self/status}")
  cpus=$(zoneode_cpulist_expand "$allowed")
  numa=$(zoneode_numa_of_cpus "$cpus")
  local line="binding: rank $rank (local $local_rank) host $(hostname -s) cpus $allowed (NUMA $numa)"
  local vendor=${ZONEODE_GPU_VENDOR:-none}
  if [ "$vendor" != none ]; then
    # The first device the rank sees, in the runtime's numbering of the node's GPUs.
    gpu=${ROCR_VISIBLE_DEVICES:-${CUDA_VISIBLE_DEVICES:-${HIP_VISIBLE_DEVICES:-}}}
    gpu=${gpu%%,*}
  fi
  if [ -z "$gpu" ]; then
    echo "$line gpu none"
    return 0
  fi
  # Where select_gpu.sh chose it (ZONEODE_GPU_INDEX_SCOPE=job) the index counts the job's GPUs; on
  # a node shared with other jobs (LUMI's small-g, dev-g) the job's GPU i is the node's GPU
  # SLURM_STEP_GPUS[i] (SLURM_JOB_GPUS in the batch step), which the sysfs and closest-CPU lookups
  # below need. Where Slurm bound the GPU itself (Frontier's --gpu-bind=closest) the id is the
  # node's already: mapping it again flagged false MISMATCH lines on shared nodes (issue 40).
  local node_gpus=() job_gpu=$gpu
  [ "${ZONEODE_GPU_INDEX_SCOPE:-}" = job ] && IFS=, read -r -a node_gpus <<<"${SLURM_STEP_GPUS:-${SLURM_JOB_GPUS:-}}"
  if [[ $gpu =~ ^[0-9]+$ ]] && [ "$gpu" -lt "${#node_gpus[@]}" ] && [[ ${node_gpus[$gpu]} =~ ^[0-9]+$ ]]; then
    gpu=${node_gpus[$gpu]}
    [ "$gpu" = "$job_gpu" ] || line+=" job gpu $job_gpu ="
  fi
  if bus=$(zoneode_gpu_bus "$vendor" "$gpu"); then
    gpu_numa=$(cat "$sys/bus/pci/devices/$bus/numa_node" 2>/dev/null || echo '?')
    line+=" gpu $gpu bus $bus (NUMA $gpu_numa)"
  else
    line+=" gpu $gpu bus ? (not found in sysfs)"
  fi
  read -r -a closest_list <<<"${ZONEODE_CLOSEST_CPUS:-}"
  if [ "$gpu" -lt "${#closest_list[@]}" ] 2>/dev/null; then
    closest=${closest_list[$gpu]}
    local allowed_set=" $(zoneode_cpulist_expand "$closest") " cpu
    for cpu in $cpus; do
      [[ $allowed_set == *" $cpu "* ]] || { verdict="MISMATCH: CPU $cpu is not among GPU $gpu's closest CPUs $closest"; break; }
    done
    line+=" closest cpus $closest"
  elif [ -n "$gpu_numa" ] && [ "$gpu_numa" != '?' ] && [ "$gpu_numa" != -1 ]; then
    [ "$numa" = "$gpu_numa" ] || verdict="MISMATCH: the rank's CPUs are on NUMA $numa, GPU $gpu on NUMA $gpu_numa"
  else
    verdict="unchecked (no closest-CPU list and no GPU NUMA node)"
  fi
  echo "$line: $verdict"
}
