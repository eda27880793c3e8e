#!/usr/bin/env bash
# A real single-node Slurm on this machine, for testing `warpsmith regress --slurm` against the
# scheduler itself (no mock). Needs root (the daemons, Debian's packages).
#
#   scripts/slurm.sh up      install slurmctld, slurmd, slurm-client and munge from Debian when
#                            missing; write a one-node configuration under .tools/slurm/ (this
#                            host, its CPUs and memory, one partition); start munged, slurmctld
#                            and slurmd; wait until the node is idle. Prints the SLURM_CONF to use.
#   scripts/slurm.sh down    stop the three daemons (by their pid files); idempotent.
#   scripts/slurm.sh env     print `export SLURM_CONF=...` for this configuration.
#
# Settings that work without systemd or cgroups (see ../shared/notes/slurm-single-node.md):
# proctrack/linuxproc, task/none, no accounting, SlurmUser=root, cons_tres with CR_Core.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=$PWD/.tools/slurm
CONF=$DIR/slurm.conf
MUNGE_SOCKET=$DIR/munge/munge.socket
say() { printf 'slurm: %s\n' "$*"; }
die() { printf 'slurm: error: %s\n' "$*" >&2; exit 1; }

stop_pid() {
  local f=$1
  [ -f "$f" ] || return 0
  local pid
  pid=$(cat "$f" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

down() {
  stop_pid "$DIR/slurmd.pid"
  stop_pid "$DIR/slurmctld.pid"
  stop_pid "$DIR/munge/munged.pid"
  say "stopped"
}

up() {
  [ "$(id -u)" = 0 ] || die "the Slurm daemons need root"
  if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    say "installing Debian's slurmctld slurmd slurm-client munge ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null 2>&1; } \
      || die "cannot install slurmctld slurmd slurm-client munge"
  fi
  down >/dev/null
  mkdir -p "$DIR/state" "$DIR/spool" "$DIR/munge" "$DIR/log"
  # Munge: its own key and socket, owned by the munge user, the key mode 400.
  if [ ! -s "$DIR/munge/munge.key" ]; then
    dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
  fi
  chown -R munge:munge "$DIR/munge"
  chmod 700 "$DIR/munge"
  chmod 400 "$DIR/munge/munge.key"
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(( $(free -m | awk '/^Mem:/ {print $2}') * 9 / 10 ))
  cat > "$CONF" <<EOF
# Written by scripts/slurm.sh: a single-node Slurm for warpsmith's tests.
ClusterName=warpsmith
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  munged --force --socket="$MUNGE_SOCKET" --key-file="$DIR/munge/munge.key" \
    --pid-file="$DIR/munge/munged.pid" --log-file="$DIR/log/munged.log" \
    --seed-file="$DIR/munge/munged.seed" >/dev/null 2>&1 || die "munged did not start ($DIR/log/munged.log)"
  export SLURM_CONF=$CONF
  slurmctld -f "$CONF" || die "slurmctld did not start ($DIR/log/slurmctld.log)"
  slurmd -f "$CONF" || die "slurmd did not start ($DIR/log/slurmd.log)"
  for _ in $(seq 100); do
    if sinfo -h -o '%t' 2>/dev/null | grep -qx 'idle'; then
      say "up: node $host ($cpus CPUs) idle; use: export SLURM_CONF=$CONF"
      return 0
    fi
    sleep 0.2
  done
  down >/dev/null
  die "the node did not become idle in 20 s (logs in $DIR/log/)"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  *) die "usage: scripts/slurm.sh up|down|env" ;;
esac
