#!/usr/bin/env bash
# The binding check of slurm/select_gpu.sh (slurm/binding.sh) against a planted LUMI-G node: a
# sysfs tree with the node's 4 NUMA domains (16 cores each, their second hardware threads 64 up)
# and 8 GCDs (KFD topology: a CPU node, then the GPU nodes with their PCI addresses and NUMA
# domains as LUMI documents them), and a rank's CPU list in a planted /proc status file.
# Checks: each of the 8 ranks bound as LUMI's map_cpu says (slurm/sites/lumi.sh) is on its GCD's
# closest CCD (ok); a rank on a core of another CCD is flagged (MISMATCH), with the CCD list and
# with only the NUMA domains to go by; the bus id and NUMA are printed; no GPU: "gpu none".
# No Slurm, no root. Usage: tests/slurm/binding_check.sh   Exit status: 0 passed, 1 failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
work=$(mktemp -d /tmp/zoneode-binding.XXXXXX)
trap 'rm -rf "$work"' EXIT
sys=$work/sys
numa_cpus=("0-15,64-79" "16-31,80-95" "32-47,96-111" "48-63,112-127")
for node in 0 1 2 3; do
  mkdir -p "$sys/devices/system/node/node$node"
  echo "${numa_cpus[$node]}" >"$sys/devices/system/node/node$node/cpulist"
done
# GCD i: PCI bus and NUMA domain (the CCD closest to GCD 0 is cores 48-55, on NUMA 3; ...).
buses=(c1 c6 c9 ce d1 d6 d9 de)
gcd_numa=(3 3 1 1 0 0 2 2)
mkdir -p "$sys/class/kfd/kfd/topology/nodes/0"
printf 'cpu_cores_count 64\nsimd_count 0\nlocation_id 0\ndomain 0\n' >"$sys/class/kfd/kfd/topology/nodes/0/properties"
for gcd in 0 1 2 3 4 5 6 7; do
  node=$((gcd + 1))
  mkdir -p "$sys/class/kfd/kfd/topology/nodes/$node" "$sys/bus/pci/devices/0000:${buses[$gcd]}:00.0"
  printf 'cpu_cores_count 0\nsimd_count 440\nlocation_id %d\ndomain 0\n' $((16#${buses[$gcd]} << 8)) \
    >"$sys/class/kfd/kfd/topology/nodes/$node/properties"
  echo "${gcd_numa[$gcd]}" >"$sys/bus/pci/devices/0000:${buses[$gcd]}:00.0/numa_node"
done

failures=0 passes=0
expect() {  # expect NAME PATTERN OUTPUT
  if grep -qE -- "$2" <<<"$3"; then passes=$((passes + 1)); else echo "FAIL: $1: '$3' does not match '$2'"; failures=$((failures + 1)); fi
}
rank_line() {  # rank_line LOCAL_RANK CPUS CLOSEST_LIST: the binding line select_gpu.sh prints
  printf 'Name:\tzoneode\nCpus_allowed_list:\t%s\n' "$2" >"$work/status"
  ZONEODE_SYSFS=$sys ZONEODE_PROC_STATUS=$work/status ZONEODE_GPU_VENDOR=amd ZONEODE_GPU_VARIABLE=ROCR_VISIBLE_DEVICES \
    ZONEODE_CLOSEST_CPUS="$3" SLURM_LOCALID=$1 SLURM_PROCID=$1 slurm/select_gpu.sh true 2>&1
}
# shellcheck source=slurm/sites/lumi.sh
closest=$(unset SLURM_JOB_ID; source slurm/sites/lumi.sh; echo "${site_closest_cpus[*]}")
map=$(unset SLURM_JOB_ID; source slurm/sites/lumi.sh; echo "${site_srun_flags[0]#--cpu-bind=map_cpu:}")
IFS=, read -r -a map_cpu <<<"$map"
for rank in 0 1 2 3 4 5 6 7; do
  out=$(rank_line "$rank" "${map_cpu[$rank]}" "$closest")
  expect "LUMI map_cpu rank $rank on its GCD's CCD" "^binding: rank $rank \(local $rank\) host .* cpus ${map_cpu[$rank]} \(NUMA ${gcd_numa[$rank]}\) gpu $rank bus 0000:${buses[$rank]}:00.0 \(NUMA ${gcd_numa[$rank]}\) closest cpus [0-9,-]+: ok$" "$out"
  out=$(rank_line "$rank" "${map_cpu[$rank]}" "")
  expect "rank $rank without a CCD list: NUMA agrees" ": ok$" "$out"
done
# A job on a shared node (LUMI small-g, dev-g) holding the node's GCDs 4 and 5: its GPU 1 is the
# node's GCD 5, whose closest CCD the rank is bound to.
out=$(SLURM_STEP_GPUS=4,5 rank_line 1 "${map_cpu[5]}" "$closest")
expect "shared node: job GPU 1 is the node's GCD 5" "cpus ${map_cpu[5]} \(NUMA ${gcd_numa[5]}\) job gpu 1 = gpu 5 bus 0000:${buses[5]}:00.0 \(NUMA ${gcd_numa[5]}\) closest cpus 9-15,73-79: ok$" "$out"
out=$(SLURM_STEP_GPUS=4,5 rank_line 1 "${map_cpu[1]}" "$closest")
expect "shared node: a rank on the node's GCD 1's CCD flagged" "MISMATCH: CPU ${map_cpu[1]} is not among GPU 5's closest CPUs" "$out"
# Frontier on a shared node: Slurm binds the GPUs itself (--gpu-bind=closest; select_gpu.sh sets
# nothing) and its ids are the node's: a job holding the node's GCDs 1 and 3, the rank given GCD 1
# and bound to its CCD, is ok (mapping 1 through SLURM_STEP_GPUS again gave GCD 3: a false MISMATCH).
printf 'Name:\tzoneode\nCpus_allowed_list:\t%s\n' "${map_cpu[1]}" >"$work/status"
out=$(ZONEODE_SYSFS=$sys ZONEODE_PROC_STATUS=$work/status ZONEODE_GPU_VENDOR=amd ZONEODE_GPU_VARIABLE=none \
  ROCR_VISIBLE_DEVICES=1 SLURM_STEP_GPUS=1,3 ZONEODE_CLOSEST_CPUS="$closest" SLURM_LOCALID=0 SLURM_PROCID=0 \
  slurm/select_gpu.sh true 2>&1)
expect "Slurm-bound GPU on a shared node: the node's id as it is" "cpus ${map_cpu[1]} \(NUMA ${gcd_numa[1]}\) gpu 1 bus 0000:${buses[1]}:00.0 \(NUMA ${gcd_numa[1]}\) closest cpus [0-9,-]+: ok$" "$out"
out=$(rank_line 0 1 "$closest")
expect "GCD 0 on core 1 (CCD 0) flagged" "MISMATCH: CPU 1 is not among GPU 0's closest CPUs 49-55,113-119$" "$out"
out=$(rank_line 0 48-55 "$closest")
expect "core 48 (reserved on LUMI) is outside the list" "MISMATCH: CPU 48 " "$out"
out=$(rank_line 0 1 "")
expect "GCD 0 on core 1, NUMA only: flagged" "cpus 1 \(NUMA 0\) gpu 0 bus 0000:c1:00.0 \(NUMA 3\): MISMATCH: the rank's CPUs are on NUMA 0, GPU 0 on NUMA 3$" "$out"
out=$(ZONEODE_GPU_VARIABLE=none ZONEODE_GPU_VENDOR=none ZONEODE_SYSFS=$sys SLURM_PROCID=3 SLURM_LOCALID=1 slurm/select_gpu.sh true 2>&1)
expect "no GPU" "^binding: rank 3 \(local 1\) host .* gpu none$" "$out"
out=$(ZONEODE_BINDING_CHECK=0 ZONEODE_GPU_VARIABLE=none slurm/select_gpu.sh echo ran 2>&1)
expect "ZONEODE_BINDING_CHECK=0: no line, the command runs" "^ran$" "$out"
echo "binding_check: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
