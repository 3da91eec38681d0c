#!/usr/bin/env bash
# Submits a scaling campaign: slurm/run.sbatch jobs for each rank count (and repeat), every job
# writing its JSON summary into one campaign folder, campaigns/<UTC date-time>-<backend>-<variant>-<mode>/.
#   strong: the same deck (same zones) on every rank count;
#   weak:   zones per rank fixed, the deck scaled with --set zones.count=<zones per rank x ranks>.
# Every rank count is checked against the partition first (nodes, MaxNodes, CPUs and GPUs per
# node, from sinfo/scontrol); if any cannot run, nothing is submitted and the reasons are printed.
# Then (ZONEODE_REPORT=1) slurm/report.sbatch waits for them all (afterany), collects Slurm's
# accounting and runs scripts/report.py, which lists every job: finished, failed or missing.
#
# Usage, from the repository root, on a login node (not through sbatch):
#   ZONEODE_SITE=SITE slurm/scaling.sh strong|weak DECK [ZONEODE OPTIONS...]
#   e.g. ZONEODE_SITE=lumi ZONEODE_RANKS="8 16 32 64" ZONEODE_SBATCH_FLAGS="-A project_465000000 -t 00:20:00" \
#          ZONEODE_REPORT=1 slurm/scaling.sh strong inputs/s150.yaml --set zones.count=4194304
#
# Environment (besides slurm/common.sh's ZONEODE_SITE, ZONEODE_BACKEND, ZONEODE_KERNEL, ...):
#   ZONEODE_RANKS            rank counts (default "1 2 4 8"); nodes = ceil(ranks / ranks per node)
#   ZONEODE_RANKS_PER_NODE   default: the site's (its GPUs per node: 8 on MI250X nodes)
#   ZONEODE_ZONES_PER_RANK   weak scaling: zones per rank (default 4096)
#   ZONEODE_REPEATS          runs per rank count (default 1); ZONEODE_ARRAY=1 submits them as one
#                            job array per rank count (--array=1-REPEATS) instead of separate jobs
#   ZONEODE_SBATCH_FLAGS     extra sbatch flags for every job, the report job included (account, time, partition)
#   ZONEODE_CAMPAIGNS_DIR    where campaign folders go (default campaigns)
#   ZONEODE_CAMPAIGN         the campaign folder itself (default: named from date, backend, variant, mode)
#   ZONEODE_REPORT=1         also submit slurm/report.sbatch (its flags: the site's site_report_sbatch_flags,
#                            ZONEODE_SBATCH_FLAGS, ZONEODE_REPORT_SBATCH_FLAGS); ZONEODE_PYTHON: the
#                            Python that runs scripts/report.py (default: the site's, else python3)
#   ZONEODE_REQUEUE          passed to the jobs (default 0: a campaign's runs are not requeued)
#   ZONEODE_DRY_RUN=1        check and print the sbatch commands (quoted), write and submit nothing
# Prints the campaign folder and the job ids; exits 0 when every job was submitted, 2 when a rank
# count cannot run here (nothing submitted), 1 when an sbatch failed.
set -euo pipefail
cd "$(dirname "$0")/.."
source slurm/common.sh

[ $# -ge 2 ] || zoneode_die 2 "usage: ZONEODE_SITE=SITE slurm/scaling.sh strong|weak DECK [ZONEODE OPTIONS...]"
mode=$1
deck=$2
shift 2
case $mode in strong | weak) ;; *) zoneode_die 2 "mode '$mode': expected strong or weak" ;; esac
[ -f "$deck" ] || zoneode_die 2 "deck '$deck': no such file"
zoneode_load_site
dry_run=${ZONEODE_DRY_RUN:-0}
[ "$dry_run" = 1 ] || zoneode_check_exe
ranks_per_node=$zoneode_ranks_per_node
zones_per_rank=${ZONEODE_ZONES_PER_RANK:-4096}
repeats=${ZONEODE_REPEATS:-1}
rank_counts=${ZONEODE_RANKS:-1 2 4 8}
zoneode_check_count ZONEODE_ZONES_PER_RANK "$zones_per_rank"
zoneode_check_count ZONEODE_REPEATS "$repeats"
for value in $rank_counts; do zoneode_check_count ZONEODE_RANKS "$value" "(in '$rank_counts')"; done
# shellcheck disable=SC2206
extra=(${ZONEODE_SBATCH_FLAGS:-})
job_flags=("${site_sbatch_flags[@]}" "${extra[@]}")

# Every rank count against the partition, before anything is written or submitted.
if zoneode_partition_info "$(zoneode_partition_of "${job_flags[@]}")"; then
  problems=()
  for ranks in $rank_counts; do
    nodes=$(((ranks + ranks_per_node - 1) / ranks_per_node))
    per_node=$((ranks < ranks_per_node ? ranks : ranks_per_node))
    problem=$(zoneode_geometry_problem "$ranks" "$nodes" "$per_node" "$zoneode_threads")
    [ -z "$problem" ] || problems+=("$problem")
  done
  if [ ${#problems[@]} -gt 0 ]; then
    printf 'scaling.sh: %s\n' "${problems[@]}" >&2
    zoneode_die 2 "nothing submitted: ${#problems[@]} rank count(s) of '$rank_counts' cannot run on partition $part_name ($part_nodes node(s), $part_cpus CPUs and $part_gpus GPU(s) per node, MaxNodes $part_max_nodes); change ZONEODE_RANKS or the partition"
  fi
  echo "scaling.sh: partition $part_name: $part_nodes node(s), $part_cpus CPUs and $part_gpus GPU(s) per node, MaxNodes $part_max_nodes: every rank count fits"
else
  echo "scaling.sh: sinfo cannot describe the partition here: rank counts not checked" >&2
fi

campaign=${ZONEODE_CAMPAIGN:-${ZONEODE_CAMPAIGNS_DIR:-campaigns}/$(date -u +%Y%m%d-%H%M%S)-$zoneode_backend-$zoneode_variant-$mode}
if [ "$dry_run" != 1 ]; then
  mkdir -p "$(dirname "$campaign")" && mkdir "$campaign" 2>/dev/null ||
    zoneode_die 1 "cannot create the campaign folder $campaign (it exists? wait a second or set ZONEODE_CAMPAIGN)"
  {
    echo "mode $mode"
    echo "deck $deck $*"
    echo "site $site_name backend $zoneode_backend variant $zoneode_variant threads $zoneode_threads gpu_vendor $site_gpu_vendor"
    echo "ranks $rank_counts (ranks per node $ranks_per_node) repeats $repeats"
    [ "$mode" = strong ] || echo "zones_per_rank $zones_per_rank"
  } >"$campaign/campaign.txt"
fi

export ZONEODE_SUMMARY_DIR=$campaign ZONEODE_RUNS_DIR=$campaign/runs ZONEODE_REQUEUE=${ZONEODE_REQUEUE:-0}
jobs=()
failed=0
submit() {  # submit RANKS NODES REPEAT_OR_ARRAY COMMAND...: runs sbatch, records the job(s) in jobs.txt
  local ranks=$1 nodes=$2 repeat=$3 id
  shift 3
  if [ "$dry_run" = 1 ]; then zoneode_quote "$@"; return 0; fi
  if id=$("$@"); then
    id=${id%%;*}
    jobs+=("$id")
    if [ "$repeat" = array ]; then
      # One line per array task: ARRAYID_TASK is the name run.sbatch gives the task's run.
      for task in $(seq "$repeats"); do echo "${id}_$task $ranks $nodes $task" >>"$campaign/jobs.txt"; done
      echo "scaling.sh: job array $id (1-$repeats): $ranks rank(s) on $nodes node(s)"
    else
      echo "$id $ranks $nodes $repeat" >>"$campaign/jobs.txt"
      echo "scaling.sh: job $id: $ranks rank(s) on $nodes node(s), repeat $repeat"
    fi
  else
    echo "scaling.sh: sbatch failed for $ranks ranks: $(zoneode_quote "$@")" >&2
    failed=1
  fi
}
for ranks in $rank_counts; do
  nodes=$(((ranks + ranks_per_node - 1) / ranks_per_node))
  per_node=$((ranks < ranks_per_node ? ranks : ranks_per_node))
  run_args=("$deck" "$@")
  [ "$mode" = strong ] || run_args+=(--set "zones.count=$((zones_per_rank * ranks))")
  name=$zoneode_backend-$zoneode_variant-r$ranks
  command=(sbatch --parsable --job-name="zoneode-$mode-r$ranks" --nodes="$nodes" --ntasks="$ranks"
           --ntasks-per-node="$per_node")
  [ "$zoneode_backend" = gpu ] || command+=(--cpus-per-task="$zoneode_threads")
  if [ "${ZONEODE_ARRAY:-0}" = 1 ]; then
    submit "$ranks" "$nodes" array "${command[@]}" --array="1-$repeats" --output="$campaign/%A_%a-$name.out" \
      "${job_flags[@]}" slurm/run.sbatch "${run_args[@]}"
  else
    for repeat in $(seq "$repeats"); do
      submit "$ranks" "$nodes" "$repeat" "${command[@]}" --output="$campaign/%j-$name.out" "${job_flags[@]}" \
        slurm/run.sbatch "${run_args[@]}"
    done
  fi
done

if [ "${ZONEODE_REPORT:-0}" = 1 ]; then
  # shellcheck disable=SC2206
  report=(sbatch --parsable --job-name=zoneode-report --output="$campaign/report-%j.out"
          "${site_report_sbatch_flags[@]}" "${extra[@]}" ${ZONEODE_REPORT_SBATCH_FLAGS:-})
  [ ${#jobs[@]} -eq 0 ] || report+=(--dependency="afterany:$(IFS=:; echo "${jobs[*]}")")
  report+=(slurm/report.sbatch "$campaign")
  export ZONEODE_PYTHON=${ZONEODE_PYTHON:-${site_python:-}}
  if [ "$dry_run" = 1 ]; then
    echo "# the report job (submitted with --dependency=afterany:<the job ids above>):"
    zoneode_quote "${report[@]}"
  elif id=$("${report[@]}"); then
    echo "scaling.sh: report job ${id%%;*} (after ${jobs[*]:-nothing}): $campaign/report"
  else
    echo "scaling.sh: sbatch failed for the report job: $(zoneode_quote "${report[@]}")" >&2
    failed=1
  fi
fi
if [ "$dry_run" = 1 ]; then
  echo "scaling.sh: dry run: nothing written, nothing submitted (the campaign would be $campaign)"
else
  echo "scaling.sh: campaign $campaign"
fi
exit "$failed"
