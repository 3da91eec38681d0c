#!/usr/bin/env bash
# Submits a scaling campaign: one slurm/run.sbatch job per rank count, every job writing its JSON
# summary into one campaign folder, campaigns/<UTC date-time>-<backend>-<variant>-<mode>/.
#   strong: the same deck (same zones) on every rank count;
#   weak:   zones per rank fixed, the deck scaled with --set zones.count=<zones per rank x ranks>.
# Then (ZONEODE_REPORT=1) a job that waits for them all and runs scripts/report.py on the folder.
#
# Usage, from the repository root, on a login node (not through sbatch):
#   ZONEODE_SITE=SITE slurm/scaling.sh strong|weak DECK [ZONEODE OPTIONS...]
#   e.g. ZONEODE_SITE=lumi ZONEODE_RANKS="8 16 32 64" ZONEODE_SBATCH_FLAGS="-A project_465000000 -t 00:20:00" \
#          slurm/scaling.sh strong inputs/s150.yaml --set zones.count=4194304
#
# Environment (besides slurm/common.sh's ZONEODE_SITE, ZONEODE_BACKEND, ZONEODE_KERNEL, ...):
#   ZONEODE_RANKS            rank counts (default "1 2 4 8"); nodes = ceil(ranks / ranks per node)
#   ZONEODE_RANKS_PER_NODE   default: the site's (8 on MI250X nodes)
#   ZONEODE_ZONES_PER_RANK   weak scaling: zones per rank (default 4096)
#   ZONEODE_SBATCH_FLAGS     extra sbatch flags for every job (account, time, partition...)
#   ZONEODE_CAMPAIGNS_DIR    where campaign folders go (default campaigns)
#   ZONEODE_CAMPAIGN         the campaign folder itself (default: named from date, backend, variant, mode)
#   ZONEODE_REPORT=1         also submit the report job (afterany: all runs); ZONEODE_PYTHON (default
#                            /usr/bin/python3 where it exists, else python3) runs scripts/report.py;
#                            ZONEODE_REPORT_SBATCH_FLAGS: its sbatch flags (account, a CPU partition)
#   ZONEODE_DRY_RUN=1        print the sbatch commands instead of submitting
# Prints the campaign folder and the job ids; exits 0 when every job was submitted, else 1.
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
[ "${ZONEODE_DRY_RUN:-0}" = 1 ] || zoneode_check_exe
ranks_per_node=${ZONEODE_RANKS_PER_NODE:-$site_ranks_per_node}
zones_per_rank=${ZONEODE_ZONES_PER_RANK:-4096}
rank_counts=${ZONEODE_RANKS:-1 2 4 8}
for value in $ranks_per_node $zones_per_rank $rank_counts; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || zoneode_die 2 "'$value' in ZONEODE_RANKS / ZONEODE_RANKS_PER_NODE / ZONEODE_ZONES_PER_RANK: expected a positive integer"
done

campaign=${ZONEODE_CAMPAIGN:-${ZONEODE_CAMPAIGNS_DIR:-campaigns}/$(date -u +%Y%m%d-%H%M%S)-$zoneode_backend-$zoneode_variant-$mode}
mkdir -p "$(dirname "$campaign")" && mkdir "$campaign" 2>/dev/null ||
  zoneode_die 1 "cannot create the campaign folder $campaign (it exists? wait a second or set ZONEODE_CAMPAIGN)"
# shellcheck disable=SC2206
extra=(${ZONEODE_SBATCH_FLAGS:-})
{
  echo "mode $mode"
  echo "deck $deck $*"
  echo "site $site_name backend $zoneode_backend variant $zoneode_variant threads $zoneode_threads"
  echo "ranks $rank_counts (ranks per node $ranks_per_node)"
  [ "$mode" = strong ] || echo "zones_per_rank $zones_per_rank"
} >"$campaign/campaign.txt"

export ZONEODE_SUMMARY_DIR=$campaign ZONEODE_RUNS_DIR=$campaign/runs ZONEODE_RESUBMIT=0
jobs=()
failed=0
for ranks in $rank_counts; do
  nodes=$(((ranks + ranks_per_node - 1) / ranks_per_node))
  per_node=$((ranks < ranks_per_node ? ranks : ranks_per_node))
  run_args=("$deck" "$@")
  [ "$mode" = strong ] || run_args+=(--set "zones.count=$((zones_per_rank * ranks))")
  name=$zoneode_backend-$zoneode_variant-r$ranks
  command=(sbatch --parsable --job-name="zoneode-$mode-r$ranks" --nodes="$nodes" --ntasks="$ranks"
           --ntasks-per-node="$per_node" --output="$campaign/%j-$name.out" "${site_sbatch_flags[@]}" "${extra[@]}"
           slurm/run.sbatch "${run_args[@]}")
  if [ "${ZONEODE_DRY_RUN:-0}" = 1 ]; then
    echo "${command[*]}"
    continue
  fi
  if id=$("${command[@]}"); then
    id=${id%%;*}
    jobs+=("$id")
    echo "$id $ranks $nodes" >>"$campaign/jobs.txt"
    echo "scaling.sh: job $id: $ranks rank(s) on $nodes node(s)"
  else
    echo "scaling.sh: sbatch failed for $ranks ranks: ${command[*]}" >&2
    failed=1
  fi
done

if [ "${ZONEODE_REPORT:-0}" = 1 ]; then
  python=${ZONEODE_PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3)}
  # shellcheck disable=SC2206
  report=(sbatch --parsable --job-name=zoneode-report --ntasks=1 --output="$campaign/report-%j.out"
          ${ZONEODE_REPORT_SBATCH_FLAGS:-})
  [ ${#jobs[@]} -eq 0 ] || report+=(--dependency="afterany:$(IFS=:; echo "${jobs[*]}")")
  report+=(--wrap "$python scripts/report.py $campaign --out $campaign/report")
  if [ "${ZONEODE_DRY_RUN:-0}" = 1 ]; then
    echo "${report[*]}"
  elif id=$("${report[@]}"); then
    echo "scaling.sh: report job ${id%%;*} (after ${jobs[*]:-nothing}): $campaign/report"
  else
    echo "scaling.sh: sbatch failed for the report job" >&2
    failed=1
  fi
fi
echo "scaling.sh: campaign $campaign"
exit "$failed"
