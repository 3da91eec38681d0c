#!/usr/bin/env bash
# Scaling on one multi-GPU node without Slurm: mpirun, one rank per GPU, weak (fixed zones per GPU)
# and strong (fixed total) over 1, 2, 4, 8 GPUs (as many as the node has), the count and cost
# decompositions, on the generated s150 network and the real REACLIB network rp-z24. Each
# (network, mode, decomposition) is one campaign folder as slurm/scaling.sh makes them, so that
# scripts/report.py draws the same tables and plots; beside them a table of every run's time split
# (integrate / transfers / rebalance / write, and the loop's wait for output) with the per-rank
# imbalance, every rank's binding line, and the cost of writing every outer step (none, synchronous,
# overlapped: medians of repeats).
#
# Usage: scripts/gpu-scaling.sh [full|plumbing] [OUT_DIR]      (OUT_DIR default: $OUT, else gpu-scaling-out)
#   full      the node's GPUs, 1 2 4 8 (<= the count); strong 2^20 zones, weak 2^18 per GPU; 3 outer steps.
#   plumbing  for a node with one GPU: 1, 2 and 4 ranks oversubscribing it (mpirun --oversubscribe),
#             small sizes: the pipes (device choice, decompositions, rebalancing, overlapped writes,
#             summaries, report) in about 3 minutes on one H200. The default when the node has one GPU.
# OUT_DIR receives at most 8 files: summary.md (every table; rewritten after each run, so that a run
# cut short still says what it did), the report's PNGs ({strong,weak}_{efficiency,time}.png),
# binding.txt, and scaling.tar.gz (campaigns, summaries, logs, report.md/csv, all plots, and
# topology.txt: nvidia-smi topo -m or rocm-smi --showtoponuma, to check the binding lines against).
#
# Environment (all optional):
#   ZONEODE_BUILD_DIR    the build (default build-gpu; built here when it has no zoneode: CUDA, serial
#                        HDF5, kernel final; ZONEODE_GPU=HIP for AMD)
#   ZONEODE_BACKEND      gpu (default) or cpu (to try the script on a machine without a GPU)
#   ZONEODE_GPUS         GPUs on the node (default: counted by nvidia-smi or rocm-smi)
#   ZONEODE_RANKS        rank counts (default: full 1 2 4 8 up to the GPUs; plumbing 1 2 4)
#   ZONEODE_NETWORKS     "s150 rpz24" (default); ZONEODE_MODES "weak strong"; ZONEODE_DECOMPOSITIONS "count cost"
#   ZONEODE_STRONG_ZONES, ZONEODE_WEAK_ZONES_PER_RANK, ZONEODE_OUTER_STEPS: the sizes above
#   ZONEODE_BIND         numa (default: each rank on the CPUs of its GPU's NUMA node, through taskset),
#                        none (mpirun --bind-to none) or mpirun (mpirun's own binding)
#   ZONEODE_OVERLAP_ZONES, ZONEODE_OVERLAP_STEPS: the output-cost runs (s150, one rank; full 2^18 zones, 10
#                        outer steps; plumbing 2^16, 6); ZONEODE_OVERLAP_REPEATS (default 3); ZONEODE_OVERLAP_DECK
#   ZONEODE_PARTS        "overlap scaling" (default): which parts to run, in this order
#   ZONEODE_RUN_LIMIT_S  time limit of one run (default 600)
#   ZONEODE_EXTRA_ARGS   more zoneode arguments for every run (word-split), e.g. "--set integrator.end_time=1e-6"
# Exit status: 0 when every run finished with exit 0 and the report was written, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
if [ "${1:-}" = --rank ]; then
  # One rank, started by mpirun: bind it to the CPUs of its GPU's NUMA node (slurm/binding.sh finds
  # the bus), then run the command. Unbound when the node does not say.
  shift
  local_rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-0}}
  gpus=${ZONEODE_GPUS:-1}
  # shellcheck source=slurm/binding.sh
  source slurm/binding.sh
  if bus=$(zoneode_gpu_bus "${ZONEODE_GPU_VENDOR:-nvidia}" $((local_rank % gpus)) 2>/dev/null); then
    node=$(cat "/sys/bus/pci/devices/$bus/numa_node" 2>/dev/null || echo -1)
    cpus=$(cat "/sys/devices/system/node/node$node/cpulist" 2>/dev/null || true)
    if [ "$node" -ge 0 ] 2>/dev/null && [ -n "$cpus" ] && command -v taskset >/dev/null; then
      exec taskset -c "$cpus" "$@"
    fi
  fi
  exec "$@"
fi

mode=${1:-}
mode=${mode#--}  # --plumbing, --full as well
case $mode in full | plumbing | "") ;; *) echo "usage: scripts/gpu-scaling.sh [full|plumbing] [OUT_DIR]" >&2; exit 2 ;; esac
out=${2:-${OUT:-gpu-scaling-out}}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/zoneode-gpu-scaling.XXXXXX")
python=${ZONEODE_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
backend=${ZONEODE_BACKEND:-gpu}
build=${ZONEODE_BUILD_DIR:-build-gpu}
limit_s=${ZONEODE_RUN_LIMIT_S:-600}
cores=$(nproc)
failed=0
mpi_flags=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && mpi_flags+=(--allow-run-as-root)
say() { echo "$*" | tee -a "$work/progress.txt"; }

# ---- The node: GPUs and vendor.
vendor=none
gpus=${ZONEODE_GPUS:-}
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  vendor=nvidia
  [ -n "$gpus" ] || gpus=$(nvidia-smi -L | grep -c '^GPU')
elif command -v rocm-smi >/dev/null 2>&1; then
  vendor=amd
  [ -n "$gpus" ] || gpus=$(rocm-smi --showid 2>/dev/null | grep -c 'GPU\[')
fi
[ -n "$gpus" ] || gpus=0
if [ "$backend" = gpu ] && [ "$gpus" -lt 1 ]; then
  echo "gpu-scaling.sh: no GPU found (nvidia-smi, rocm-smi; or set ZONEODE_GPUS); ZONEODE_BACKEND=cpu runs the plumbing on the CPU" >&2
  exit 2
fi
[ -n "$mode" ] || { if [ "$gpus" -ge 2 ]; then mode=full; else mode=plumbing; fi; }
if [ "$mode" = full ]; then
  default_ranks=""
  for r in 1 2 4 8; do [ "$r" -le "$gpus" ] && default_ranks+="$r "; done
  strong_zones=${ZONEODE_STRONG_ZONES:-1048576}
  weak_zones=${ZONEODE_WEAK_ZONES_PER_RANK:-262144}
  steps=${ZONEODE_OUTER_STEPS:-3}
  overlap_zones=${ZONEODE_OVERLAP_ZONES:-262144}
  overlap_steps=${ZONEODE_OVERLAP_STEPS:-10}
else
  default_ranks="1 2 4"
  strong_zones=${ZONEODE_STRONG_ZONES:-32768}
  weak_zones=${ZONEODE_WEAK_ZONES_PER_RANK:-8192}
  steps=${ZONEODE_OUTER_STEPS:-2}
  overlap_zones=${ZONEODE_OVERLAP_ZONES:-65536}
  overlap_steps=${ZONEODE_OVERLAP_STEPS:-6}
fi
ranks_list=${ZONEODE_RANKS:-$default_ranks}
bind=${ZONEODE_BIND:-numa}
[ "$backend" = gpu ] || bind=none
case $bind in numa | none | mpirun) ;; *) echo "gpu-scaling.sh: ZONEODE_BIND=$bind: expected numa, none or mpirun" >&2; exit 2 ;; esac
for value in $ranks_list $strong_zones $weak_zones $steps $overlap_zones $overlap_steps ${ZONEODE_OVERLAP_REPEATS:-3}; do
  [[ $value =~ ^[1-9][0-9]*$ ]] || { echo "gpu-scaling.sh: '$value' in ZONEODE_RANKS or a size: expected a positive integer" >&2; exit 2; }
done
oversubscribed=0
for r in $ranks_list; do [ "$backend" = gpu ] && [ "$r" -gt "$gpus" ] && oversubscribed=1; done
threads=1
[ "$backend" = cpu ] && threads=${ZONEODE_THREADS:-1}

# ---- The build.
if [ ! -x "$build/zoneode" ]; then
  say "== building $build (${ZONEODE_GPU:-CUDA}, serial HDF5, kernel final)"
  { cmake -S . -B "$build" -G Ninja -DZONEODE_GPU="${ZONEODE_GPU:-CUDA}" -DZONEODE_HDF5=SERIAL -DZONEODE_KERNEL=final \
      -DZONEODE_TESTS=OFF && cmake --build "$build" -j "$cores"; } >"$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; cp "$work/build.log" "$out/"; exit 1; }
fi
zoneode=$(cd "$build" && pwd)/zoneode

# ---- The decks: s150 and rp-z24 from inputs/bench (the ladder's regimes (a) and (c2)) where present.
deck_of() {
  case $1 in
    s150)
      if [ -f inputs/bench/a-s150.yaml ]; then echo inputs/bench/a-s150.yaml; else echo inputs/s150.yaml; fi ;;
    rpz24)
      if [ -f inputs/bench/c2-rpz24-rp.yaml ]; then
        echo inputs/bench/c2-rpz24-rp.yaml
      elif [ -f inputs/networks/rp-z24.reaclib ] && [ -f inputs/networks/rp-z24.nuclides ]; then
        # Regime (c2) of inputs/bench (not merged here): rp-process conditions, 1,158 steps per zone.
        cat >"$work/rpz24.yaml" <<EOF
network: {source: reaclib, file: $PWD/inputs/networks/rp-z24.reaclib, nuclides_file: $PWD/inputs/networks/rp-z24.nuclides}
zones:
  count: 65536
  seed: 1
  temperature: {profile: random, min: 1.0, max: 1.5}
  density: {profile: log_random, min: 0.8e6, max: 1.25e6}
  composition: {p: 0.7, he4: 0.28, c12: 0.01, o16: 0.01}
integrator: {method: asymptotic, schedule: geometric, start_time: 1.0e-11, end_time: 1.0e-6, dt_fraction: 0.01, max_mass_drift: 1.0e-2}
EOF
        echo "$work/rpz24.yaml"
      fi ;;
  esac
}

# ---- One run: mpirun RANKS zoneode DECK ARGS...; its summary in $json, its output in $log.
launch() {  # launch RANKS JSON LOG DECK ARGS...
  local ranks=$1 json=$2 log=$3 deck=$4
  shift 4
  local flags=("${mpi_flags[@]}" -n "$ranks" -x OMP_NUM_THREADS="$threads")
  local wrapper=()
  case $bind in
    numa) flags+=(--bind-to none -x ZONEODE_GPUS="$gpus" -x ZONEODE_GPU_VENDOR="$vendor"); wrapper=("$PWD/scripts/gpu-scaling.sh" --rank) ;;
    none) flags+=(--bind-to none) ;;
  esac
  rm -rf "$work/scratch" && mkdir -p "$work/scratch"
  # shellcheck disable=SC2086  # ZONEODE_EXTRA_ARGS is split into words
  timeout "$limit_s" mpirun "${flags[@]}" "${wrapper[@]}" "$zoneode" "$deck" --quiet --backend "$backend" \
    --threads "$threads" --force --set steps.count="${run_steps:-$steps}" --set output.prefix="$work/scratch/run" \
    --summary "$json" "$@" ${ZONEODE_EXTRA_ARGS:-} >"$log" 2>&1
  local status=$?
  rm -rf "$work/scratch"  # a full-size file is 1.2 GB per step
  [ "$status" -eq 0 ] || { failed=1; say "  exit $status: $(tail -2 "$log" | tr '\n' ' ')"; }
  return "$status"
}

# ---- The tables (summary.md), rewritten after every run.
tables() {
  "$python" - "$work" "$out/summary.md" <<'PY'
import glob, json, os, statistics, sys
work, target = sys.argv[1], sys.argv[2]
lines = ["# gpu-scaling.sh", ""] + open(os.path.join(work, "header.txt")).read().splitlines() + [""]
def load(path):
    try:
        with open(path) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None
campaigns = sorted(glob.glob(os.path.join(work, "campaigns", "*")))
if campaigns:
    lines += ["## Time split per run (seconds; max over ranks, summed over outer steps)", "",
              "| campaign | ranks | zones | loop | integrate | transfers | rebalance | write | loop waited for output | "
              "imbalance (time) | zones moved | ns per zone-step | hash |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for folder in campaigns:
        for path in sorted(glob.glob(os.path.join(folder, "r*.json")), key=lambda p: int(os.path.basename(p)[1:-5])):
            s = load(path)
            if not s:
                continue
            per_rank = s.get("integrate_seconds_per_rank", {})
            lines.append("| {} | {} | {} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {:.3f} | {} | {:.3g} | {} |".format(
                os.path.basename(folder), s["ranks"], s["zones"], s.get("loop_seconds", 0), s["integrate_seconds"],
                s["transfer_seconds"], s["rebalance_seconds"], s["output_seconds"], s.get("output_stall_seconds", 0),
                per_rank.get("imbalance", 0), s["zones_moved"], s["ns_per_zone_step"], s["result_hash"]))
    lines.append("")
rows = {}
for path in glob.glob(os.path.join(work, "overlap", "*.json")):
    config, repeat = os.path.basename(path)[:-5].split("-")
    if load(path):
        rows[(config, int(repeat))] = load(path)
if rows:
    # Each repeat runs the three one after the other: a repeat's ratio to its own "none" run cancels
    # the load of a shared machine better than a ratio of medians.
    lines += ["## Cost of writing every outer step (medians of the repeats)", "",
              "| output | runs | loop [s] | added to the loop: median of each repeat's ratio (ratio of medians) | "
              "write [s] | write bandwidth [MB/s] | loop waited for output [s] |", "|---|---|---|---|---|---|---|"]
    for config in ("none", "sync", "overlap"):
        group = {repeat: r for (c, repeat), r in rows.items() if c == config}
        if not group:
            continue
        loop = statistics.median(r["loop_seconds"] for r in group.values())
        added = ""
        paired = [r["loop_seconds"] / rows[("none", k)]["loop_seconds"] - 1 for k, r in group.items() if ("none", k) in rows]
        if config != "none" and paired:
            base = statistics.median(r["loop_seconds"] for (c, _), r in rows.items() if c == "none")
            added = "{:+.1%} ({:+.1%})".format(statistics.median(paired), loop / base - 1)
        write = statistics.median(r["output_seconds"] for r in group.values())
        bandwidth = statistics.median(r["write_bandwidth_bytes_per_second"] for r in group.values()) / 1e6
        stall = statistics.median(r.get("output_stall_seconds", 0) for r in group.values())
        lines.append(f"| {config} | {len(group)} | {loop:.3f} | {added} | {write:.3f} | {bandwidth:.0f} | {stall:.3f} |")
    lines.append("")
report = os.path.join(work, "report", "report.md")
if os.path.isfile(report):
    lines += ["## scripts/report.py", ""] + open(report).read().splitlines()[1:]
with open(target + ".partial", "w") as handle:
    handle.write("\n".join(lines) + "\n")
os.replace(target + ".partial", target)
PY
}

{
  echo "$(date -u +%FT%TZ) on $(hostname), $cores cores, commit ${ZONEODE_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}"
  echo "mode $mode: backend $backend, $gpus GPU(s) ($vendor), ranks $ranks_list$([ "$oversubscribed" = 1 ] && echo ", oversubscribing the GPU(s): plumbing, not scaling"), binding $bind"
  echo "strong $strong_zones zones, weak $weak_zones zones per rank, $steps outer steps, every step written (output.overlap true)"
  echo "output cost: $overlap_zones zones on one rank, $overlap_steps outer steps (the last step's file is written at once: nothing is left to overlap it with)"
  [ "$vendor" = nvidia ] && nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader | sed 's/^/GPU /'
} >"$work/header.txt"
cat "$work/header.txt"
# The vendor's view of the topology, to check the binding lines against (in scaling.tar.gz).
case $vendor in
  nvidia) nvidia-smi topo -m >"$work/topology.txt" 2>&1 ;;
  amd) rocm-smi --showtoponuma >"$work/topology.txt" 2>&1 ;;
esac
tables

# ---- The cost of output, one rank: no files, every step written synchronously, overlapped; first,
# as the one part on one GPU that measures rather than tests the pipes.
run_overlap() {
  deck=${ZONEODE_OVERLAP_DECK:-$(deck_of s150)}
  mkdir -p "$work/overlap"
  for repeat in $(seq "${ZONEODE_OVERLAP_REPEATS:-3}"); do
    for config in none sync overlap; do
      settings=(--set output.overlap=true)
      [ "$config" = sync ] && settings=(--set output.overlap=false)
      [ "$config" = none ] && settings=(--set output.prefix=)
      say "== output cost: $config, repeat $repeat, $overlap_zones zones"
      run_steps=$overlap_steps launch 1 "$work/overlap/$config-$repeat.json" "$work/overlap/$config-$repeat.log" "$deck" \
        --set zones.count="$overlap_zones" --set zones.decomposition=count "${settings[@]}"
      tables
    done
  done
}

# ---- The campaigns.
run_scaling() {
  for network in ${ZONEODE_NETWORKS:-s150 rpz24}; do
    deck=$(deck_of "$network")
    if [ -z "$deck" ]; then
      say "== $network: no deck (inputs/bench/c2-rpz24-rp.yaml, or inputs/networks/rp-z24.{reaclib,nuclides}): skipped"
      failed=1
      continue
    fi
    for scaling in ${ZONEODE_MODES:-weak strong}; do
      for decomposition in ${ZONEODE_DECOMPOSITIONS:-count cost}; do
        name=$network-$scaling-$decomposition$([ "$oversubscribed" = 1 ] && echo "-oversubscribed-${gpus}gpu")
        campaign=$work/campaigns/$name
        mkdir -p "$campaign/logs"
        {
          echo "mode $scaling"
          echo "deck $deck --set zones.decomposition=$decomposition --set steps.count=$steps"
          echo "site mpirun-$(hostname -s) backend $backend variant $([ "$backend" = gpu ] && echo final || echo none) threads $threads gpu_vendor $vendor"
          echo "ranks $ranks_list (ranks per node $ranks_list) repeats 1"
          [ "$scaling" = strong ] || echo "zones_per_rank $weak_zones"
        } >"$campaign/campaign.txt"
        for ranks in $ranks_list; do
          zones=$strong_zones
          [ "$scaling" = weak ] && zones=$((weak_zones * ranks))
          say "== $name: $ranks rank(s), $zones zones"
          launch "$ranks" "$campaign/r$ranks.json" "$campaign/logs/r$ranks.log" "$deck" \
            --set zones.count="$zones" --set zones.decomposition="$decomposition"
          grep -h '^binding:' "$campaign/logs/r$ranks.log" | sed "s|^|$name r$ranks: |" >>"$work/binding.txt"
          tables
        done
      done
    done
  done
  if ls "$work"/campaigns/*/r*.json >/dev/null 2>&1; then
    "$python" scripts/report.py "$work"/campaigns/* --out "$work/report" >"$work/report.log" 2>&1 ||
      { failed=1; say "report.py failed: $(tail -3 "$work/report.log")"; }
  fi
  tables
}

for part in ${ZONEODE_PARTS:-overlap scaling}; do
  case $part in
    overlap) run_overlap ;;
    scaling) run_scaling ;;
    *) echo "gpu-scaling.sh: ZONEODE_PARTS: '$part': expected overlap or scaling" >&2; failed=1 ;;
  esac
done

# ---- OUT: at most 8 files.
cp "$work/binding.txt" "$out/binding.txt" 2>/dev/null || echo "no binding lines (no scaling run)" >"$out/binding.txt"
for plot in strong_efficiency weak_efficiency strong_time weak_time; do
  [ -f "$work/report/$plot.png" ] && cp "$work/report/$plot.png" "$out/"
done
tables
cp "$out/summary.md" "$work/"
tar -czf "$out/scaling.tar.gz" -C "$work" --exclude=scratch . 2>/dev/null
rm -rf "$work"
echo "gpu-scaling.sh: $(ls "$out" | tr '\n' ' ')in $out"
cat "$out/summary.md"
exit "$failed"
