# shellcheck shell=bash disable=SC2154  # site_* come from the site file
# Shared by the slurm/ scripts (sourced, not run): site selection, geometry (ranks per node from
# the site or the allocation, checked against the partition), the build, the launch line.
# Environment read here (all optional except ZONEODE_SITE):
#   ZONEODE_SITE          lumi | frontier | generic-amd | generic-nvidia | local  (slurm/sites/NAME.sh)
#   ZONEODE_SITE_FILE     a site file of your own instead (copy one of slurm/sites/ and edit the copy)
#   ZONEODE_BUILD_DIR     the build to run (default build-<the site's CMake preset>)
#   ZONEODE_BACKEND       cpu | gpu (default: the site's)
#   ZONEODE_KERNEL        GPU kernel variant (default final); checked against `zoneode --list-kernels`
#   ZONEODE_THREADS       OpenMP threads per rank (default: the site's, or SLURM_CPUS_PER_TASK on the CPU)
#   ZONEODE_RANKS_PER_NODE ranks per node (default: the site's GPUs per node; CPU sites: the site's)
#   ZONEODE_MPIRUN_FLAGS  extra mpirun flags (site_launcher=mpirun), ZONEODE_SRUN_FLAGS extra srun flags

# The script's own name for messages: inside a job $0 is Slurm's copy of the script, named
# "slurm_script", so the batch scripts set zoneode_script before sourcing this file.
zoneode_script=${zoneode_script:-$(basename "$0")}

zoneode_die() {  # zoneode_die STATUS MESSAGE
  echo "$zoneode_script: $2" >&2
  exit "$1"
}

# zoneode_check_count NAME VALUE [WHERE]: VALUE, the setting NAME, is a whole number >= 1, else exit 2
# naming the setting and its value (one message for several settings said neither which nor why;
# 1e3 reached the shell's arithmetic first: "value too great for base").
zoneode_check_count() {
  [[ $2 =~ ^[1-9][0-9]{0,8}$ ]] ||
    zoneode_die 2 "$1='$2'${3:+ $3}: expected a whole number from 1 to 999999999 (digits only: not 0, 1e3, 0x5 or 2.5)"
}

# Loads the site file (slurm/sites/README in slurm/README.md lists its keys) and resolves the
# backend, variant, threads, ranks per node and build.
# zoneode_check_switches: the on/off settings are 0 or 1 (or unset). The scripts test them with
# `= 1`, so ZONEODE_DRY_RUN=true submitted a real job and ZONEODE_REQUEUE=yes never requeued,
# without a word (issue 40's class of silently ignored values, as ZONEODE_MAX_REQUEUES=abc).
zoneode_check_switches() {
  local name value
  for name in ZONEODE_DRY_RUN ZONEODE_BUILD ZONEODE_REQUEUE ZONEODE_ARRAY ZONEODE_REPORT; do
    value=${!name:-0}
    [ "$value" = 0 ] || [ "$value" = 1 ] ||
      zoneode_die 2 "$name='$value': expected 1 (on) or 0 (off)"
  done
}

zoneode_load_site() {
  zoneode_check_switches
  local file=${ZONEODE_SITE_FILE:-}
  if [ -z "$file" ]; then
    [ -n "${ZONEODE_SITE:-}" ] || zoneode_die 2 "ZONEODE_SITE is not set: expected lumi, frontier, generic-amd, generic-nvidia or local (or ZONEODE_SITE_FILE=your copy of one of slurm/sites/)"
    file=slurm/sites/${ZONEODE_SITE}.sh
    [ -f "$file" ] || zoneode_die 2 "ZONEODE_SITE=$ZONEODE_SITE: no $file; expected lumi, frontier, generic-amd, generic-nvidia or local"
  fi
  [ -f "$file" ] || zoneode_die 2 "ZONEODE_SITE_FILE=$file: no such file"
  site_report_sbatch_flags=() site_closest_cpus=() site_python=
  # shellcheck source=/dev/null
  source "$file"
  local key
  for key in site_name site_preset site_backend site_gpu_vendor site_gpus_per_node site_ranks_per_node site_threads \
             site_gpu_variable site_launcher; do
    [ -n "${!key:-}" ] || zoneode_die 2 "$file: $key is not set"
  done
  case $site_launcher in srun | mpirun) ;; *) zoneode_die 2 "$file: site_launcher=$site_launcher: expected srun or mpirun" ;; esac
  case $site_gpu_vendor in amd | nvidia | none) ;; *) zoneode_die 2 "$file: site_gpu_vendor=$site_gpu_vendor: expected amd, nvidia or none" ;; esac
  zoneode_backend=${ZONEODE_BACKEND:-$site_backend}
  case $zoneode_backend in cpu | gpu) ;; *) zoneode_die 2 "ZONEODE_BACKEND=$zoneode_backend: expected cpu or gpu" ;; esac
  if [ "$zoneode_backend" = gpu ] && [ "$site_gpu_vendor" = none ]; then
    zoneode_die 2 "ZONEODE_BACKEND=gpu but site $site_name has no GPUs (site_gpu_vendor=none)"
  fi
  # The variant names the outputs; the CPU backend has none. Any name is accepted here: the
  # binary knows which it was built with (zoneode_check_exe asks it).
  if [ "$zoneode_backend" = gpu ]; then zoneode_variant=${ZONEODE_KERNEL:-final}; else zoneode_variant=none; fi
  [[ $zoneode_variant =~ ^[A-Za-z0-9_]+$ ]] || zoneode_die 2 "ZONEODE_KERNEL='$zoneode_variant': expected a kernel variant name (zoneode --list-kernels prints them)"
  if [ "$zoneode_backend" = cpu ]; then
    zoneode_threads=${ZONEODE_THREADS:-${SLURM_CPUS_PER_TASK:-$site_threads}}
  else
    zoneode_threads=${ZONEODE_THREADS:-$site_threads}
  fi
  zoneode_ranks_per_node=${ZONEODE_RANKS_PER_NODE:-$site_ranks_per_node}
  zoneode_check_count ZONEODE_THREADS "$zoneode_threads" "(or the site's site_threads)"
  zoneode_check_count ZONEODE_RANKS_PER_NODE "$zoneode_ranks_per_node" "(or the site's site_ranks_per_node)"
  # The build: ZONEODE_BUILD_DIR, else the site preset's (slurm/build.sh: build-<preset>), else the
  # README's ./scripts/build.sh folder build/ when only that one exists and has the backend (GPU:
  # it lists kernel variants).
  zoneode_build_dir=${ZONEODE_BUILD_DIR:-build-$site_preset}
  if [ -z "${ZONEODE_BUILD_DIR:-}" ] && [ ! -x "$zoneode_build_dir/zoneode" ] && [ -x build/zoneode ] &&
     { [ "$zoneode_backend" = cpu ] || [ -n "$(build/zoneode --list-kernels 2>/dev/null)" ]; }; then
    zoneode_build_dir=build
  fi
  zoneode_exe=$zoneode_build_dir/zoneode
}

# Configures and builds the site's CMake preset (CMakePresets.json) with the site's modules.
zoneode_build() {
  zoneode_build_dir=${ZONEODE_BUILD_DIR:-build-$site_preset}
  zoneode_exe=$zoneode_build_dir/zoneode
  if command -v module >/dev/null 2>&1; then site_modules; fi
  cmake --preset "$site_preset" -B "$zoneode_build_dir" "$@" && cmake --build "$zoneode_build_dir" -j "${ZONEODE_BUILD_JOBS:-8}" ||
    return 1
  # The modules the build saw, in load order, beside the binary: jobs load the same ones
  # (zoneode_job_environment).
  if [ -n "${LOADEDMODULES:-}" ]; then tr ':' '\n' <<<"$LOADEDMODULES" >"$zoneode_build_dir/$zoneode_modules_file"; fi
}

zoneode_modules_file=zoneode-modules.txt

# zoneode_job_environment: inside a job, before the launch, the run-time environment of the build:
# the modules recorded beside the binary at build time (BUILD/zoneode-modules.txt, written by
# slurm/build.sh) that are not loaded are loaded in the recorded order; one that cannot be loaded
# stops the job (exit 2) with the list to load. Then LD_LIBRARY_PATH gets CRAY_LD_LIBRARY_PATH in
# front (LUMI's and OLCF's rule for dynamically linked Cray libraries of non-default versions; a
# build with an rpath does not need it). Says what it did.
zoneode_job_environment() {
  local record=$zoneode_build_dir/$zoneode_modules_file name missing=() loaded
  if [ -f "$record" ]; then
    loaded=":${LOADEDMODULES:-}:"
    while read -r name; do
      [ -z "$name" ] || [[ $loaded == *":$name:"* ]] || missing+=("$name")
    done <"$record"
    if [ ${#missing[@]} -gt 0 ]; then
      command -v module >/dev/null 2>&1 ||
        zoneode_die 2 "the build used modules this job has not loaded (${missing[*]}) and there is no module command here: load them before sbatch (list: $record)"
      echo "$zoneode_script: loading the build's modules not loaded here: ${missing[*]} (recorded in $record)"
      # shellcheck disable=SC2046  # one module per word, in the recorded order
      set +u  # module functions (Lmod, Tcl modules) read unset variables
      module load $(cat "$record") || true
      set -u
      loaded=":${LOADEDMODULES:-}:"
      local still=()
      for name in "${missing[@]}"; do [[ $loaded == *":$name:"* ]] || still+=("$name"); done
      [ ${#still[@]} -eq 0 ] ||
        zoneode_die 2 "module load could not load ${still[*]} (recorded at build time in $record): load them before sbatch, or rebuild with this site's modules (slurm/build.sh)"
    else
      echo "$zoneode_script: the build's modules are loaded ($(wc -l <"$record") recorded in $record)"
    fi
  fi
  if [ -n "${CRAY_LD_LIBRARY_PATH:-}" ]; then
    export LD_LIBRARY_PATH=$CRAY_LD_LIBRARY_PATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    echo "$zoneode_script: LD_LIBRARY_PATH starts with CRAY_LD_LIBRARY_PATH (the Cray libraries the modules name)"
  fi
}

# The build exists, and knows the variant (binaries without --list-kernels: zoneode rejects it itself).
zoneode_check_exe() {
  local looked="in build-$site_preset/ nor build/"
  [ -z "${ZONEODE_BUILD_DIR:-}" ] || looked="at $zoneode_exe (ZONEODE_BUILD_DIR)"
  [ -x "$zoneode_exe" ] || zoneode_die 2 "no zoneode $looked: build it first (ZONEODE_SITE=$site_name slurm/build.sh, i.e. cmake --preset $site_preset && cmake --build --preset $site_preset; or the README's ./scripts/build.sh for a CPU site), or set ZONEODE_BUILD_DIR"
  [ "$zoneode_backend" = gpu ] || return 0
  local built
  built=$("$zoneode_exe" --list-kernels 2>/dev/null) || return 0
  [ -n "$built" ] ||
    zoneode_die 2 "ZONEODE_BACKEND=gpu: $zoneode_exe was built without the GPU backend (zoneode --list-kernels prints no variant): build the site's preset $site_preset, or set ZONEODE_BUILD_DIR"
  grep -qx "$zoneode_variant" <<<"$built" ||
    zoneode_die 2 "ZONEODE_KERNEL=$zoneode_variant: $zoneode_exe was built with $(echo $built | tr ' ' ',') (zoneode --list-kernels)"
}

# zoneode_partition_of FLAGS...: the partition named in sbatch flags (-p X, --partition=X), else empty.
zoneode_partition_of() {
  local partition= previous=
  for word in "$@"; do
    case $word in --partition=*) partition=${word#--partition=} ;; -p?*) partition=${word#-p} ;; esac
    case $previous in -p | --partition) partition=$word ;; esac
    previous=$word
  done
  echo "$partition"
}

# zoneode_partition_info [PARTITION]: what Slurm says of the partition (the default one when
# empty): part_name, part_nodes, part_max_nodes (number or UNLIMITED), part_cpus (per node, the
# smallest), part_gpus (GPUs per node from the nodes' gres, the smallest). 1 when sinfo cannot tell.
zoneode_partition_info() {
  local requested=${1:-} line
  command -v sinfo >/dev/null 2>&1 || return 1
  if [ -z "$requested" ]; then
    requested=$(sinfo -h -o '%P' 2>/dev/null | sed -n 's/\*$//p' | head -n 1)
    [ -n "$requested" ] || return 1
  fi
  part_name=$requested part_nodes=0 part_cpus= part_gpus=
  local nodes cpus gres gpus
  # One line per group of identical nodes: count, CPUs, gres (e.g. gpu:8 or gpu:mi250:8(S:0-7)).
  while read -r nodes cpus gres; do
    [ -n "$nodes" ] || continue
    part_nodes=$((part_nodes + nodes))
    gpus=$(tr ',' '\n' <<<"$gres" | sed -n 's/^gpu\(:[A-Za-z0-9_.-]*\)\{0,1\}:\([0-9][0-9]*\).*/\2/p' | head -n 1)
    gpus=${gpus:-0}
    if [ -z "$part_cpus" ] || [ "$cpus" -lt "$part_cpus" ]; then part_cpus=$cpus; fi
    if [ -z "$part_gpus" ] || [ "$gpus" -lt "$part_gpus" ]; then part_gpus=$gpus; fi
  done < <(sinfo -h -p "$requested" -o '%D %c %G' 2>/dev/null)
  [ "$part_nodes" -gt 0 ] || return 1
  line=$(scontrol show partition "$requested" -o 2>/dev/null)
  part_max_nodes=$(tr ' ' '\n' <<<"$line" | sed -n 's/^MaxNodes=//p')
  part_max_nodes=${part_max_nodes:-UNLIMITED}
}

# zoneode_geometry_problem RANKS NODES PER_NODE THREADS: prints why the partition read by
# zoneode_partition_info cannot run this job (nothing when it can).
zoneode_geometry_problem() {
  local ranks=$1 nodes=$2 per_node=$3 threads=$4
  if [ "$nodes" -gt "$part_nodes" ]; then
    echo "$ranks rank(s) at $per_node per node need $nodes node(s); partition $part_name has $part_nodes"
  elif [ "$part_max_nodes" != UNLIMITED ] && [ "$nodes" -gt "$part_max_nodes" ]; then
    echo "$ranks rank(s) at $per_node per node need $nodes node(s); partition $part_name allows $part_max_nodes per job (MaxNodes)"
  elif [ $((per_node * threads)) -gt "$part_cpus" ]; then
    echo "$per_node rank(s) x $threads thread(s) per node need $((per_node * threads)) CPUs per node; partition $part_name's nodes have $part_cpus"
  elif [ "$zoneode_backend" = gpu ] && [ "$per_node" -gt "$part_gpus" ]; then
    echo "$per_node rank(s) per node, one GPU each; partition $part_name's nodes have $part_gpus GPU(s) (gres)"
  fi
}

# zoneode_job_geometry: the geometry of the allocation this script runs in: job_ranks, job_nodes,
# job_per_node (the largest), job_gpus_per_node (what Slurm gave, else the site's). Ranks: -n if
# given, else Slurm's tasks per node (CPU) or one per GPU (GPU).
zoneode_job_geometry() {
  job_nodes=${SLURM_JOB_NUM_NODES:-1}
  job_gpus_per_node=${SLURM_GPUS_ON_NODE:-$site_gpus_per_node}
  if [ -n "${SLURM_NTASKS:-}" ]; then
    job_ranks=$SLURM_NTASKS
  elif [ "$zoneode_backend" = gpu ]; then
    job_ranks=$((job_nodes * (job_gpus_per_node < zoneode_ranks_per_node ? job_gpus_per_node : zoneode_ranks_per_node)))
  else
    # SLURM_TASKS_PER_NODE: e.g. "2(x3),1"
    job_ranks=0
    local group count repeat
    for group in ${SLURM_TASKS_PER_NODE//,/ }; do
      count=${group%%(*}
      repeat=1
      [[ $group =~ \(x([0-9]+)\) ]] && repeat=${BASH_REMATCH[1]}
      job_ranks=$((job_ranks + count * repeat))
    done
    [ "$job_ranks" -gt 0 ] || job_ranks=1
  fi
  job_per_node=$(((job_ranks + job_nodes - 1) / job_nodes))
}

# zoneode_launch_line RANKS: sets the array launch_line, the command that starts RANKS ranks of
# what follows it, each through select_gpu.sh (which sets the rank's GPU, prints its binding and execs).
zoneode_launch_line() {
  local ranks=$1 nodes=${2:-}
  export ZONEODE_GPU_VARIABLE=$site_gpu_variable OMP_NUM_THREADS=$zoneode_threads
  export ZONEODE_CLOSEST_CPUS="${site_closest_cpus[*]}" ZONEODE_GPU_VENDOR=$site_gpu_vendor
  [ "$zoneode_backend" = gpu ] || ZONEODE_GPU_VENDOR=none
  if [ "$site_launcher" = srun ]; then
    launch_line=(srun --ntasks="$ranks")
    [ -z "$nodes" ] || launch_line+=(--nodes="$nodes" --ntasks-per-node="$(((ranks + nodes - 1) / nodes))")
    # shellcheck disable=SC2206
    launch_line+=("${site_srun_flags[@]}" ${ZONEODE_SRUN_FLAGS:-} slurm/select_gpu.sh)
  else
    launch_line=(mpirun -n "$ranks")
    # root in containers and CI; more ranks than the allocation's slots on small machines
    if [ "$(id -u)" -eq 0 ]; then launch_line+=(--allow-run-as-root); fi
    # shellcheck disable=SC2206
    launch_line+=(--oversubscribe -x OMP_NUM_THREADS -x ZONEODE_GPU_VARIABLE -x ZONEODE_CLOSEST_CPUS -x ZONEODE_GPU_VENDOR ${ZONEODE_MPIRUN_FLAGS:-} slurm/select_gpu.sh)
  fi
}

# zoneode_quote WORDS...: the words as a shell reads them back (plain words left plain).
zoneode_quote() {
  local word out=()
  for word in "$@"; do
    if [[ $word =~ ^[A-Za-z0-9_./:=,%{}@+-]+$ ]]; then out+=("$word"); else out+=("$(printf '%q' "$word")"); fi
  done
  echo "${out[*]}"
}

# zoneode_kernel_ids REGEX < `rocprof-compute analyze --list-stats` output: the kernel ids (the
# integers analyze's -k takes) of the kernels whose names match REGEX, space-separated.
zoneode_kernel_ids() {
  local filter=$1 line id name ids=()
  while IFS= read -r line; do
    # Table rows: "│  0 │ final_kernel(...) │" (box drawing or ASCII bars); the id cell is an integer.
    [[ $line =~ ^[^0-9A-Za-z]*([0-9]+)[[:space:]]*[^[:alnum:][:space:]]+[[:space:]]*(.*[^[:space:]])[[:space:]]*[^[:alnum:][:space:]()]*$ ]] || continue
    id=${BASH_REMATCH[1]}
    name=${BASH_REMATCH[2]}
    if [[ $name =~ $filter ]]; then ids+=("$id"); fi
  done
  echo "${ids[*]}"
}

# zoneode_prefix_of ZONEODE_ARGS...: the last output.prefix=VALUE among the arguments (--set
# output.prefix=VALUE; the later one wins, as in zoneode), else empty (the deck's own).
zoneode_prefix_of() {
  local word prefix=
  for word in "$@"; do
    case $word in output.prefix=*) prefix=${word#output.prefix=} ;; --set=output.prefix=*) prefix=${word#--set=output.prefix=} ;; esac
  done
  echo "$prefix"
}

# zoneode_checkpoint_of SUMMARY PREFIX START: the checkpoint this attempt wrote, from the files:
# the summary's "checkpoint" when it says "stopped_early": true, else PREFIX_checkpoint.h5 when it
# was written at or after START (epoch seconds; a checkpoint is written only when a run stops
# early). Empty when neither. The summary is zoneode's JSON, one key per line.
zoneode_checkpoint_of() {
  local summary=$1 prefix=$2 start=$3 path=
  if [ -f "$summary" ] && grep -q '^  "stopped_early": true,$' "$summary"; then
    path=$(sed -n 's/^  "checkpoint": "\(.*\)",$/\1/p' "$summary" | sed 's/\\"/"/g; s/\\\\/\\/g')
  fi
  if { [ -z "$path" ] || [ ! -f "$path" ]; } && [ -n "$prefix" ] && [ -f "${prefix}_checkpoint.h5" ] &&
     [ "$(stat -c %Y "${prefix}_checkpoint.h5")" -ge "$start" ]; then
    path=${prefix}_checkpoint.h5
  fi
  [ -z "$path" ] || [ ! -f "$path" ] || echo "$path"
}

# zoneode_newest_state PREFIX [CHECKPOINT]: the newest state file of a run, by modification time
# (fractional seconds): PREFIX_step*.h5 and CHECKPOINT where it exists; empty when there is none.
# A requeued attempt continues from it (run.sbatch): after a node failure the attempt that died wrote
# no checkpoint, but its step files are newer than the last one.
zoneode_newest_state() {
  local prefix=$1 checkpoint=${2:-} dir base
  dir=$(dirname -- "$prefix") base=$(basename -- "$prefix")
  {
    [ -d "$dir" ] && find "$dir" -maxdepth 1 -type f -name "${base}_step*.h5" -printf '%T@ %p\n' 2>/dev/null
    [ -n "$checkpoint" ] && [ -f "$checkpoint" ] && printf '%s %s\n' "$(stat -c %.9Y -- "$checkpoint")" "$checkpoint"
  } | sort -n -k1,1 | tail -n 1 | cut -d' ' -f2-
}

# zoneode_job_field ID KEY: a field of `scontrol show job`, empty when scontrol cannot tell.
# zoneode_seconds TIME: a Slurm time ([D-]HH:MM:SS, MM:SS, as scontrol prints TimeLimit) in
# seconds; nothing for UNLIMITED, Partition_Limit or anything else.
zoneode_seconds() {
  local time=$1 days=0 a b c
  if [[ $time =~ ^([0-9]+)-(.*)$ ]]; then days=${BASH_REMATCH[1]}; time=${BASH_REMATCH[2]}; fi
  [[ $time =~ ^[0-9]+(:[0-9]+){0,2}$ ]] || return 0
  IFS=: read -r a b c <<<"$time"
  if [ -n "$c" ]; then echo $((10#$days * 86400 + 10#$a * 3600 + 10#$b * 60 + 10#$c))
  elif [ -n "$b" ]; then echo $((10#$days * 86400 + 10#$a * 60 + 10#$b))
  else echo $((10#$days * 86400 + 10#$a * 60)); fi  # minutes alone, as sbatch --time reads them
}

# zoneode_check_max_requeues: ZONEODE_MAX_REQUEUES is a whole number (abc, 1e3 or 0x5 made the
# test `[ attempt -ge ... ]` fail, and the job requeued without limit).
zoneode_check_max_requeues() {
  local value=${ZONEODE_MAX_REQUEUES:-5}
  [[ $value =~ ^[0-9]{1,6}$ ]] ||
    zoneode_die 2 "ZONEODE_MAX_REQUEUES='$value': expected a whole number of requeues, 0 to 999999 (default 5)"
}

zoneode_job_field() {
  scontrol show job -o "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# zoneode_stop_cause ID: why a job's step stopped early, from Slurm: "signal" (the job still runs:
# the warning signal, or one sent by hand), "time limit" (Reason=TimeLimit or TIMEOUT: Slurm 22.05
# shows a job being torn down as COMPLETING, the reason says why), "ended" (scancel, or the
# job ended otherwise: not to be requeued), empty when scontrol cannot tell.
zoneode_stop_cause() {
  local state reason
  state=$(zoneode_job_field "$1" JobState)
  reason=$(zoneode_job_field "$1" Reason)
  if [ -z "$state" ]; then
    echo ""
  elif [ "$state" = RUNNING ]; then
    echo signal
  elif [ "$state" = TIMEOUT ] || [ "$reason" = TimeLimit ]; then
    echo "time limit"
  else
    [ "$reason" != None ] || reason=
    echo "ended ($state${reason:+, $reason})"
  fi
}

# zoneode_continue_line CHECKPOINT RUN_DIR RANKS NODES DECK ARGS...: the command that continues
# this job from CHECKPOINT in RUN_DIR, ready to paste anywhere: cd to the submit folder, the
# ZONEODE_* settings this job ran with, the job's geometry, time limit, account, partition and
# Slurm log, the deck and its options.
zoneode_continue_line() {
  local checkpoint=$1 run_dir=$2 ranks=$3 nodes=$4 name words=()
  shift 4
  for name in ZONEODE_SITE ZONEODE_SITE_FILE ZONEODE_BUILD_DIR ZONEODE_BACKEND ZONEODE_KERNEL ZONEODE_THREADS \
              ZONEODE_RANKS_PER_NODE ZONEODE_OUTPUT_PREFIX ZONEODE_SUMMARY_DIR ZONEODE_SRUN_FLAGS ZONEODE_MPIRUN_FLAGS \
              ZONEODE_REQUEUE ZONEODE_MAX_REQUEUES; do
    [ -z "${!name:-}" ] || words+=("$name=${!name}")
  done
  words+=("ZONEODE_RESTART=$checkpoint" "ZONEODE_RUN_DIR=$run_dir" sbatch --nodes="$nodes" --ntasks="$ranks")
  local limit
  limit=$(zoneode_job_field "${SLURM_JOB_ID:-}" TimeLimit)
  [[ ! $limit =~ ^[0-9:-]+$ ]] || words+=(--time="$limit")
  [ -z "${SLURM_CPUS_PER_TASK:-}" ] || words+=(--cpus-per-task="$SLURM_CPUS_PER_TASK")
  [ -z "${SLURM_JOB_ACCOUNT:-}" ] || words+=(--account="$SLURM_JOB_ACCOUNT")
  [ -z "${SLURM_JOB_PARTITION:-}" ] || words+=(--partition="$SLURM_JOB_PARTITION")
  # Slurm's log: the continuation appends to this job's (run.sbatch has --open-mode=append), as a
  # requeued attempt does.
  # The job's GPU request and node sharing (a job with --gpus-per-node=1 --exclusive continued on no
  # GPU, on a shared node): Slurm's variables where the request set them, else the job's record.
  local gpu_request=0 tres sharing
  [ -z "${SLURM_GPUS_PER_NODE:-}" ] || { words+=(--gpus-per-node="$SLURM_GPUS_PER_NODE"); gpu_request=1; }
  [ -z "${SLURM_GPUS:-}" ] || { words+=(--gpus="$SLURM_GPUS"); gpu_request=1; }
  [ -z "${SLURM_GPUS_PER_TASK:-}" ] || { words+=(--gpus-per-task="$SLURM_GPUS_PER_TASK"); gpu_request=1; }
  if [ "$gpu_request" = 0 ]; then
    tres=$(zoneode_job_field "${SLURM_JOB_ID:-}" TresPerNode)  # gres/gpu:8 (gres:gpu:8, gpu:8 in older Slurm)
    tres=${tres#gres/}
    tres=${tres#gres:}
    [[ ! $tres =~ ^gpu(:[A-Za-z0-9_.-]+)*$ ]] || words+=(--gres="$tres")
  fi
  sharing=$(zoneode_job_field "${SLURM_JOB_ID:-}" OverSubscribe)
  case $sharing in
    NO) words+=(--exclusive) ;;
    USER) words+=(--exclusive=user) ;;
    MCS) words+=(--exclusive=mcs) ;;
  esac
  local log
  log=$(zoneode_job_field "${SLURM_JOB_ID:-}" StdOut)
  [ -z "$log" ] || words+=(--output="$log")
  echo "cd $(zoneode_quote "$PWD") && $(zoneode_quote "${words[@]}" slurm/run.sbatch "$@")"
}
