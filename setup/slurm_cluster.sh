#!/usr/bin/env bash
# Single-node SLURM test cluster on localhost, with real accounting
# (slurmdbd + local MariaDB) so that `sacct` works: the snakemake SLURM
# executor plugin polls sacct for job states by default.
#
# Usage (as root; no systemd needed, daemons are started directly):
#   bash setup/slurm_cluster.sh          # install (apt) + configure + start, idempotent
#   bash setup/slurm_cluster.sh start    # same as above
#   bash setup/slurm_cluster.sh stop     # stop slurmd, slurmctld, slurmdbd, mariadb, munged
#   bash setup/slurm_cluster.sh status   # show daemons, sinfo and a sacct probe
#
# Re-running while the daemons are up is cheap: configs are rewritten only if
# they changed; a daemon is restarted only if its config changed or it is not
# running. The script returns when `sinfo` shows the node idle and `sacct` works.
# When slurmctld was not running (a reboot, a restored snapshot of the machine), the jobs it
# recovers from its saved state are cancelled and named: their runs are gone.
#
# Environment knobs (all optional):
#   SLURM_TEST_CLUSTER   cluster name            (default: cultalign)
#   SLURM_TEST_ACCOUNT   accounting account      (default: cultalign)
#   SLURM_TEST_GPUS      number of fake GPUs     (default: 8, as an 8-GPU node: a paper model
#                        asks for at most 4, so a 4-GPU job runs beside smaller ones)
#   SLURM_TEST_GPU_TYPE  GRES type of fake GPUs  (default: none = untyped)
#                        Set it to the model name rules use in `gpu_model`
#                        (the plugin then submits --gpus=<model>:N); untyped
#                        `--gpus=N` requests also match a typed GPU.
#   SLURM_SETUP_TIMEOUT  seconds to wait for the cluster (default: 120)
#
# The fake GPUs are GRES on /dev/fakegpuN (character devices with /dev/null's
# numbers): jobs asking for --gpus
# schedule, but there is no real device (CUDA code must not run in tests).
set -euo pipefail

ACTION="${1:-start}"
CLUSTER="${SLURM_TEST_CLUSTER:-cultalign}"
ACCOUNT="${SLURM_TEST_ACCOUNT:-cultalign}"
NGPUS="${SLURM_TEST_GPUS:-8}"
GPU_TYPE="${SLURM_TEST_GPU_TYPE:-}"
TIMEOUT="${SLURM_SETUP_TIMEOUT:-120}"

CONF_DIR=/etc/slurm            # must be this path: the jobstep plugin drops SLURM_CONF
LOG_DIR=/var/log/slurm
STATE_DIR=/var/lib/slurm
RUN_DIR=/run/slurm
CTLD_PID=$RUN_DIR/slurmctld.pid
SLURMD_PID=$RUN_DIR/slurmd.pid
DBD_PID=$RUN_DIR/slurmdbd.pid
MUNGE_PID=/run/munge/munged.pid
MYSQL_PID=/run/mysqld/mysqld.pid
MYSQL_SOCK=/run/mysqld/mysqld.sock

log() { echo "[slurm_cluster] $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root"

# --- process helpers: only ever signal the pid recorded in our pid files ----
# A pid file can outlive its process (a reboot, a restored snapshot of the machine) and its pid be
# reused, so the recorded process counts only if it is the daemon the file is named after.
pid_alive() {  # pidfile -> 0 if the recorded process lives and is that file's daemon
  local f=$1 p comm daemon
  [ -s "$f" ] || return 1
  p=$(tr -dc 0-9 <"$f")
  [ -n "$p" ] && kill -0 "$p" 2>/dev/null || return 1
  comm=$(cat "/proc/$p/comm" 2>/dev/null) || return 1
  daemon=$(basename "$f" .pid)
  [ "$comm" = "$daemon" ] || { [ "$daemon" = mysqld ] && [ "$comm" = mariadbd ]; }
}

stop_pidfile() {  # name pidfile
  local name=$1 f=$2 p i
  if pid_alive "$f"; then
    p=$(tr -dc 0-9 <"$f")
    log "stopping $name (pid $p)"
    kill -TERM "$p" 2>/dev/null || true
    for i in $(seq 1 60); do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$p" 2>/dev/null; then
      log "$name did not stop, sending KILL"
      kill -KILL "$p" 2>/dev/null || true
      sleep 1
    fi
  fi
  rm -f "$f"
}

wait_for() {  # description seconds command...
  local what=$1 secs=$2 t0
  shift 2
  t0=$(date +%s)
  until "$@" >/dev/null 2>&1; do
    if [ $(( $(date +%s) - t0 )) -ge "$secs" ]; then
      log "timed out after ${secs}s waiting for: $what"
      return 1
    fi
    sleep 1
  done
}

dump_logs() {
  for f in "$LOG_DIR"/slurmctld.log "$LOG_DIR"/slurmd.log "$LOG_DIR"/slurmdbd.log \
           /var/log/mysql/mariadb-test.log /var/log/munge/munged.log; do
    [ -f "$f" ] && { echo "----- tail $f" >&2; tail -n 30 "$f" >&2; }
  done
  sinfo -N -l >&2 2>&1 || true
}

do_stop() {
  stop_pidfile slurmd "$SLURMD_PID"
  stop_pidfile slurmctld "$CTLD_PID"
  stop_pidfile slurmdbd "$DBD_PID"
  stop_pidfile mariadb "$MYSQL_PID"
  stop_pidfile munged "$MUNGE_PID"
  log "stopped"
}

do_status() {
  local rc=0
  for d in "munged:$MUNGE_PID" "mariadb:$MYSQL_PID" "slurmdbd:$DBD_PID" \
           "slurmctld:$CTLD_PID" "slurmd:$SLURMD_PID"; do
    if pid_alive "${d#*:}"; then echo "${d%%:*}: running (pid $(cat "${d#*:}"))"
    else echo "${d%%:*}: not running"; rc=1; fi
  done
  sinfo -N -l 2>&1 || rc=1
  sacct -n -X -S now-1hour -o JobID,JobName,State 2>&1 | tail -n 5 || rc=1
  return $rc
}

# --- install -----------------------------------------------------------------
install_packages() {
  local pkgs="slurm-wlm slurmctld slurmd slurm-client slurmdbd munge mariadb-server"
  local missing="" p
  for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
      || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    log "apt-get install:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # Keep postinst scripts from starting services (slurmctld/slurmd would fail
    # without a config and abort the install): a temporary policy-rc.d, the
    # usual container trick, unless one is there already. We start the
    # daemons ourselves below.
    local own_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
      chmod 0755 /usr/sbin/policy-rc.d
      own_policy=1
    fi
    local rc=0
    apt-get install -y -qq --no-install-recommends $missing >/dev/null || rc=$?
    [ "$own_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
    [ "$rc" = 0 ] || die "apt-get install failed ($rc)"
  fi
}

# write_if_changed path mode content -> returns 0 if the file changed
write_if_changed() {
  local path=$1 mode=$2 tmp
  tmp=$(mktemp)
  cat >"$tmp"
  if [ -f "$path" ] && cmp -s "$tmp" "$path"; then
    rm -f "$tmp"; chmod "$mode" "$path"; return 1
  fi
  install -m "$mode" -o root -g root "$tmp" "$path"
  rm -f "$tmp"
  return 0
}

# --- munge -------------------------------------------------------------------
start_munge() {
  install -d -o munge -g munge -m 0700 /etc/munge /var/log/munge /var/lib/munge
  install -d -o munge -g munge -m 0755 /run/munge
  if [ ! -s /etc/munge/munge.key ]; then
    log "creating munge key"
    if command -v mungekey >/dev/null; then
      mungekey --create --keyfile=/etc/munge/munge.key --force
    else
      dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
    fi
  fi
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
  if ! pid_alive "$MUNGE_PID" || ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    stop_pidfile munged "$MUNGE_PID"
    log "starting munged"
    runuser -u munge -- /usr/sbin/munged --pid-file="$MUNGE_PID" --force
    wait_for "munge" 20 bash -c 'munge -n | unmunge' || { dump_logs; die "munge not working"; }
  fi
}

# --- mariadb -----------------------------------------------------------------
mysql_ok() { mariadb --protocol=socket -S "$MYSQL_SOCK" -uroot -e 'SELECT 1' >/dev/null 2>&1; }

start_mariadb() {
  install -d -o mysql -g mysql -m 0755 /run/mysqld
  install -d -o mysql -g adm -m 2750 /var/log/mysql 2>/dev/null || install -d -o mysql -m 0750 /var/log/mysql
  if [ ! -d /var/lib/mysql/mysql ]; then
    log "initialising MariaDB data directory"
    mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
  fi
  if pid_alive "$MYSQL_PID" && mysql_ok; then return 0; fi
  if mysql_ok; then
    log "a MariaDB server not started by this script already answers on $MYSQL_SOCK; using it"
    return 0
  fi
  stop_pidfile mariadb "$MYSQL_PID"
  log "starting mariadb"
  # mariadbd does not daemonise: detach it ourselves.
  setsid /usr/sbin/mariadbd --user=mysql --pid-file="$MYSQL_PID" --socket="$MYSQL_SOCK" \
    --skip-networking --innodb-buffer-pool-size=256M --innodb-lock-wait-timeout=900 \
    </dev/null >>/var/log/mysql/mariadb-test.log 2>&1 &
  wait_for "mariadb" 60 mysql_ok || { dump_logs; die "mariadb did not start"; }
}

# --- slurm configuration -------------------------------------------------------
write_configs() {
  local host cpus mem_total mem gres_node gres_line changed_ctl=1 changed_dbd=1
  host=$(hostname -s)
  cpus=$(nproc)
  mem_total=$(free -m | awk '/^Mem:/{print $2}')
  mem=$(( mem_total * 90 / 100 ))
  # one device file per fake GPU (slurmd counts GPUs by their files): character
  # devices with /dev/null's numbers, so nothing real is behind them
  local i gpu_files="/dev/fakegpu[0-$(( NGPUS - 1 ))]"
  for i in $(seq 0 $(( NGPUS - 1 ))); do
    [ -c "/dev/fakegpu$i" ] || mknod -m 0666 "/dev/fakegpu$i" c 1 3
  done
  [ "$NGPUS" -gt 1 ] || gpu_files=/dev/fakegpu0
  if [ -n "$GPU_TYPE" ]; then
    gres_node="gpu:${GPU_TYPE}:${NGPUS}"
    gres_line="NodeName=${host} Name=gpu Type=${GPU_TYPE} File=${gpu_files} Count=${NGPUS}"
  else
    gres_node="gpu:${NGPUS}"
    gres_line="NodeName=${host} Name=gpu File=${gpu_files} Count=${NGPUS}"
  fi
  install -d -m 0755 "$CONF_DIR" "$LOG_DIR" "$RUN_DIR" \
    "$STATE_DIR" "$STATE_DIR/slurmctld" "$STATE_DIR/slurmd"

  write_if_changed "$CONF_DIR/slurm.conf" 0644 <<EOF || changed_ctl=0
# Written by setup/slurm_cluster.sh: single-node test cluster on localhost.
ClusterName=${CLUSTER}
SlurmctldHost=${host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
# each job's processes bound to the CPUs SLURM allocated it (as a site's cgroup cpuset does):
# a CPU engine that pins its threads (vLLM's auto binding) then pins them to its own CPU,
# not to CPU 0 in every job at once
TaskPlugin=task/affinity
SwitchType=switch/none
ReturnToService=2
SlurmctldPidFile=${CTLD_PID}
SlurmdPidFile=${SLURMD_PID}
SlurmctldLogFile=${LOG_DIR}/slurmctld.log
SlurmdLogFile=${LOG_DIR}/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
StateSaveLocation=${STATE_DIR}/slurmctld
SlurmdSpoolDir=${STATE_DIR}/slurmd
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
MinJobAge=300
KillWait=5
InactiveLimit=0
Waittime=0
# accounting through slurmdbd (sacct needs it; the snakemake plugin polls sacct)
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStorageTRES=gres/gpu
# store --comment in the database: the snakemake plugin puts rule_<name> there
AccountingStoreFlags=job_comment
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# fake GPU(s): GRES on /dev/fakegpuN, /dev/null's device numbers (see gres.conf)
GresTypes=gpu
NodeName=${host} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${mem} Gres=${gres_node} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
# GPU jobs are routed here by the partition config of the SLURM profile (same node, fake GPU)
PartitionName=gpu Nodes=ALL Default=NO MaxTime=INFINITE State=UP
EOF
  # gres.conf changes need the daemons restarted, like slurm.conf
  if write_if_changed "$CONF_DIR/gres.conf" 0644 <<EOF
# Written by setup/slurm_cluster.sh: fake GPU, no real device behind it.
${gres_line}
EOF
  then changed_ctl=1; fi

  write_if_changed "$CONF_DIR/slurmdbd.conf" 0600 <<EOF || changed_dbd=0
# Written by setup/slurm_cluster.sh. slurmdbd connects to the local MariaDB as
# its root user over the unix socket (unix_socket authentication, no password).
AuthType=auth/munge
DbdHost=localhost
DbdPort=6819
SlurmUser=root
DebugLevel=info
LogFile=${LOG_DIR}/slurmdbd.log
PidFile=${DBD_PID}
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=slurm_acct_db
EOF
  CHANGED_CTL=$changed_ctl
  CHANGED_DBD=$changed_dbd
  NODE=$host
}

# --- slurm daemons -----------------------------------------------------------
sacctmgr_ok() { timeout 10 sacctmgr -n list cluster format=cluster >/dev/null 2>&1; }

start_slurmdbd() {
  if [ "$CHANGED_DBD" = 1 ] || ! pid_alive "$DBD_PID" || ! sacctmgr_ok; then
    stop_pidfile slurmdbd "$DBD_PID"
    log "starting slurmdbd"
    /usr/sbin/slurmdbd
    wait_for "slurmdbd" 60 sacctmgr_ok || { dump_logs; die "slurmdbd not answering"; }
    CHANGED_CTL=1   # slurmctld must re-register with a restarted slurmdbd
  fi
}

register_accounting() {
  if ! sacctmgr -n -P list cluster format=cluster | grep -qx "$CLUSTER"; then
    log "sacctmgr: adding cluster $CLUSTER"
    sacctmgr -i add cluster "$CLUSTER" >/dev/null
    CHANGED_CTL=1
  fi
  if ! sacctmgr -n -P list account format=account | grep -qx "$ACCOUNT"; then
    log "sacctmgr: adding account $ACCOUNT"
    sacctmgr -i add account "$ACCOUNT" cluster="$CLUSTER" \
      description="cultalign test account" organization=cultalign >/dev/null
  fi
  local u users="root"
  [ -n "${SUDO_USER:-}" ] && users="$users $SUDO_USER"
  [ -n "${SLURM_TEST_USERS:-}" ] && users="$users $SLURM_TEST_USERS"
  for u in $users; do
    if ! sacctmgr -n -P list assoc user="$u" account="$ACCOUNT" cluster="$CLUSTER" format=user | grep -qx "$u"; then
      log "sacctmgr: adding user $u to account $ACCOUNT"
      sacctmgr -i add user "$u" account="$ACCOUNT" cluster="$CLUSTER" defaultaccount="$ACCOUNT" >/dev/null
    fi
  done
}

node_state() { sinfo -h -N -n "$NODE" -o '%T' 2>/dev/null | head -n1; }
node_idle() { case "$(node_state)" in idle|mixed|allocated) return 0;; *) return 1;; esac; }

# Jobs slurmctld recovers from its saved state when it starts after a reboot, or on a restored
# snapshot of this machine, belong to runs whose processes are gone: nothing will ever collect them,
# and on the one node they hold the place of the next run's jobs (the SLURM tests wait for an empty
# queue).  They are cancelled, and named, only when slurmctld was not running before this script;
# a restart for a changed config keeps the jobs of a run that is still going.
cancel_jobs_of_a_previous_boot() {
  local jobs
  jobs=$(squeue -h -o '%i %j %T %M %Z' 2>/dev/null || true)
  [ -n "$jobs" ] || return 0
  log "cancelling $(printf '%s\n' "$jobs" | wc -l) job(s) recovered from before slurmctld started (their runs are gone):"
  printf '%s\n' "$jobs" | sed 's/^/[slurm_cluster]   /' >&2
  # shellcheck disable=SC2046
  scancel $(printf '%s\n' "$jobs" | awk '{print $1}') || true
  wait_for "the recovered jobs to leave the queue" 120 queue_empty \
    || log "still queued: $(squeue -h -o '%i %T' | tr '\n' ' ')"
}
queue_empty() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }

start_slurm() {
  local ctld_was_running=0
  pid_alive "$CTLD_PID" && ctld_was_running=1
  if [ "$CHANGED_CTL" = 1 ] || ! pid_alive "$CTLD_PID" || ! pid_alive "$SLURMD_PID"; then
    stop_pidfile slurmd "$SLURMD_PID"
    stop_pidfile slurmctld "$CTLD_PID"
    log "starting slurmctld"
    /usr/sbin/slurmctld
    wait_for "slurmctld" 60 scontrol ping || { dump_logs; die "slurmctld not answering"; }
    log "starting slurmd"
    /usr/sbin/slurmd
  fi
  if ! wait_for "node $NODE idle" "$TIMEOUT" node_idle; then
    local st; st=$(node_state)
    case "$st" in
      down*|drain*|fail*)
        log "node state '$st': resuming"
        scontrol update nodename="$NODE" state=resume || true
        wait_for "node $NODE idle" 30 node_idle || { dump_logs; die "node not idle"; }
        ;;
      *) dump_logs; die "node $NODE not idle (state '$st')" ;;
    esac
  fi
  [ "$ctld_was_running" = 1 ] || cancel_jobs_of_a_previous_boot
}

check_sacct() {
  wait_for "sacct" 30 sacct -n -X -S now-1minute || { dump_logs; die "sacct does not work"; }
}

do_start() {
  local t0; t0=$(date +%s)
  install_packages
  write_configs
  start_munge
  start_mariadb
  start_slurmdbd
  register_accounting
  start_slurm
  check_sacct
  log "cluster '$CLUSTER' up in $(( $(date +%s) - t0 ))s: node $NODE $(node_state), partition debug, account $ACCOUNT"
  sinfo -N -o '%N %P %T %c %m %G' >&2
}

case "$ACTION" in
  start|"") do_start ;;
  stop) do_stop ;;
  restart) do_stop; do_start ;;
  status) do_status ;;
  *) die "usage: $0 [start|stop|restart|status]" ;;
esac
