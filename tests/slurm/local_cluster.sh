#!/usr/bin/env bash
# A private one-node Slurm cluster on localhost for tests: its own munged (own key and socket),
# slurmctld and slurmd on free ports, every file (configuration, spool, state, logs) under
# STATE_DIR. Needs root and Debian's slurmctld, slurmd and munge packages
# (scripts/install_dependencies.sh --slurm).
#
# Usage: tests/slurm/local_cluster.sh start STATE_DIR   # then: export SLURM_CONF=STATE_DIR/slurm.conf
#        tests/slurm/local_cluster.sh stop STATE_DIR    # cancels its jobs, stops its daemons by pid
# start exits 0 once the node is idle (sinfo), 1 otherwise (the daemons' logs are printed);
# stop removes nothing: the caller owns STATE_DIR.
set -uo pipefail
action=${1:-}
state=${2:-}
[ -n "$action" ] && [ -n "$state" ] || { echo "usage: local_cluster.sh start|stop STATE_DIR" >&2; exit 2; }

stop_pid() {  # stop_pid PID NAME: TERM, up to 15 s, then KILL
  local pid=$1 name=$2
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  echo "local_cluster: $name (pid $pid) ignored SIGTERM; SIGKILL" >&2
  kill -KILL "$pid" 2>/dev/null
}

if [ "$action" = stop ]; then
  export SLURM_CONF=$state/slurm.conf
  if [ -f "$state/pids" ] && [ -f "$SLURM_CONF" ]; then
    jobs=$(squeue -h -o %i 2>/dev/null)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null
      for _ in $(seq 100); do [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.2; done
    fi
  fi
  if [ -f "$state/pids" ]; then
    # Reverse order of start: slurmd, slurmctld, munged.
    tac "$state/pids" | while read -r pid name; do stop_pid "$pid" "$name"; done
    rm -f "$state/pids"
  fi
  exit 0
fi
[ "$action" = start ] || { echo "local_cluster: unknown action '$action' (start or stop)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "local_cluster: needs root (slurmd starts jobs as their users)" >&2; exit 1; }
for program in munged mungekey slurmctld slurmd sinfo; do
  command -v "$program" >/dev/null || [ -x "/usr/sbin/$program" ] ||
    { echo "local_cluster: $program not found: scripts/install_dependencies.sh --slurm" >&2; exit 1; }
done
export PATH=$PATH:/usr/sbin

mkdir -p "$state"/{spool,ctld,log,munge}
chmod 700 "$state/munge"
: >"$state/pids"
free_port() {  # a TCP port nothing listens on, from a range clear of Slurm's defaults
  local port
  for _ in $(seq 50); do
    port=$((20000 + RANDOM % 20000))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
  done
  return 1
}
ctld_port=$(free_port) && slurmd_port=$(free_port) || { echo "local_cluster: no free port" >&2; exit 1; }
[ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$((ctld_port + 1))

# munge: a key and a socket of our own, so that another munged on the machine is not disturbed.
mungekey --create --keyfile="$state/munge/munge.key" --force >/dev/null 2>&1 ||
  { echo "local_cluster: mungekey failed" >&2; exit 1; }
chmod 400 "$state/munge/munge.key"
munged --foreground --force --key-file="$state/munge/munge.key" --socket="$state/munge/munge.socket" \
  --pid-file="$state/munge/munged.pid" --log-file="$state/log/munged.log" --seed-file="$state/munge/seed" \
  >"$state/log/munged.out" 2>&1 &
echo "$! munged" >>"$state/pids"

cpus=$(nproc)
cat >"$state/slurm.conf" <<EOF
# Written by tests/slurm/local_cluster.sh: a one-node test cluster.
ClusterName=zoneodetest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# cred_expire: how long a requeued job waits before it may start again (default 120 s)
AuthInfo=socket=$state/munge/munge.socket,cred_expire=10
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/ctld/slurmctld.pid
SlurmdPidFile=$state/spool/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
# Finished jobs stay visible to scontrol for the test's checks.
MinJobAge=3600
KillWait=10
InactiveLimit=0
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
export SLURM_CONF=$state/slurm.conf
for _ in $(seq 50); do [ -S "$state/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$state/munge/munge.socket" ] || { echo "local_cluster: munged did not start" >&2; cat "$state/log/munged".* >&2; exit 1; }

slurmctld -D -i -f "$SLURM_CONF" >"$state/log/slurmctld.out" 2>&1 &
echo "$! slurmctld" >>"$state/pids"
slurmd -D -N localhost -f "$SLURM_CONF" >"$state/log/slurmd.out" 2>&1 &
echo "$! slurmd" >>"$state/pids"

for _ in $(seq 150); do
  node_state=$(sinfo -h -n localhost -o %T 2>/dev/null)
  case $node_state in idle*) echo "local_cluster: up (slurmctld port $ctld_port, slurmd port $slurmd_port, $cpus CPUs)"; exit 0 ;; esac
  sleep 0.2
done
echo "local_cluster: the node did not become idle (state '${node_state:-none}')" >&2
tail -n 20 "$state/log/"*.log "$state/log/"*.out >&2
exit 1
