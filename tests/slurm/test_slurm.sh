#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# docs/SCALING.md's SLURM recipe against a real scheduler: a one-node SLURM
# cluster started here from Debian's slurmctld and slurmd (munge for its
# authentication, every file of theirs in a temporary folder, free ports),
# examples/slurm/entropy.sbatch submitted with sbatch: the job runs the dask
# scheduler, srun starts two dask workers, the client maps a GeoTIFF to
# Zarr on them. The map must hold the bytes of `winent-stream` on the same
# input (read back by GDAL and xarray), with the CRS and transform. Every
# daemon and job step started is stopped by its process id and checked
# gone; the job is bounded (8 minutes). Skips (77) with the reason where
# SLURM cannot run here: not root, the packages missing (Debian: slurmctld
# slurmd slurm-client munge), a daemon that does not start.
. "$WINENT_SRC/tests/lib/cli_lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: slurmctld and slurmd run as root here: not root"; exit 77; }
for c in munged munge slurmctld slurmd sbatch srun squeue scancel sinfo scontrol; do
    command -v "$c" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin"
    command -v "$c" >/dev/null 2>&1 || {
        echo "SKIP: no $c command (Debian: apt-get install slurmctld slurmd slurm-client munge)"
        exit 77
    }
done
[ -z "${WINENT_SAN_FLAGS:-}" ] || {
    echo "SKIP: a sanitizer build's libwinent loads into python3 only with its runtime"
    exit 77
}
need_python numpy dask distributed rioxarray zarr osgeo.gdal

# The dask workers import the tree's package with the build's library.
export PYTHONPATH="$WINENT_SRC/python${PYTHONPATH:+:$PYTHONPATH}"
export WINENT_LIBRARY WINENT_PYTHON="$PY" WINENT_CHUNK=256
chmod 755 "$T" # the job's steps and the munge socket live under it
S="$T/slurm"
mkdir -p "$S/state" "$S/spool" "$S/munge" "$T/work"
chmod 700 "$S/munge"

MUNGED_PID="" CTLD_PID="" SLURMD_PID="" JOB=""
stop_all() {
    if [ -n "$JOB" ] && [ -n "$CTLD_PID" ]; then
        scancel "$JOB" 2>/dev/null || true
        i=0
        while [ $i -lt 30 ] && [ -n "$(squeue -h -j "$JOB" 2>/dev/null)" ]; do
            sleep 1
            i=$((i + 1))
        done
    fi
    # Steps of this job left behind (slurmstepd outlives a killed slurmd).
    if [ -n "$JOB" ]; then
        for p in $(ps -eo pid=,args= | awk -v j="[$JOB." '$2 == "slurmstepd:" &&
                   index($3, j) == 1 {print $1}'); do
            kill "$p" 2>/dev/null || true
        done
    fi
    for p in $SLURMD_PID $CTLD_PID $MUNGED_PID; do
        kill "$p" 2>/dev/null || true
    done
    for p in $SLURMD_PID $CTLD_PID $MUNGED_PID; do
        wait "$p" 2>/dev/null || true
    done
}
trap 'stop_all; rm -rf "$T"' EXIT INT TERM

cannot_start() { # cannot_start WHAT LOG: skip with the reason
    echo "SKIP: $1 does not start here: $(tail -n 3 "$2" 2>/dev/null | tr '\n' ' ')"
    exit 77
}

# munge, with a key of its own and its socket in the temporary folder.
dd if=/dev/urandom of="$S/munge/key" bs=1024 count=1 2>/dev/null
chmod 400 "$S/munge/key"
munged -F -f --socket="$S/munge/sock" --key-file="$S/munge/key" --log-file="$S/munge/log" \
    --pid-file="$S/munge/pid" --seed-file="$S/munge/seed" >"$S/munge/out" 2>&1 &
MUNGED_PID=$!
i=0
until munge -S "$S/munge/sock" -n </dev/null 2>/dev/null | unmunge -S "$S/munge/sock" \
    >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 20 ] && kill -0 "$MUNGED_PID" 2>/dev/null || cannot_start munged "$S/munge/out"
    sleep 0.5
done

# slurm.conf for this machine alone: its real CPUs (slurmd -C), free ports.
set -- $("$PY" -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
node=$(slurmd -C | head -n 1 | sed 's/RealMemory=[0-9]*/RealMemory=1000/')
ncpu=$(echo "$node" | sed -n 's/.* CPUs=\([0-9]*\).*/\1/p')
first_job=$(( $$ % 100000 + 100000 ))
export SLURM_CONF="$S/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=winenttest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$1
SlurmdPort=$2
AuthType=auth/munge
AuthInfo=socket=$S/munge/sock
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
FirstJobId=$first_job
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=winent Nodes=ALL Default=YES MaxTime=10 State=UP
CONF
slurmctld -D -f "$SLURM_CONF" >"$S/ctld.out" 2>&1 &
CTLD_PID=$!
slurmd -D -f "$SLURM_CONF" >"$S/slurmd.out" 2>&1 &
SLURMD_PID=$!
i=0
until sinfo -h -o %t 2>/dev/null | grep -q '^idle'; do
    i=$((i + 1))
    kill -0 "$CTLD_PID" 2>/dev/null || cannot_start slurmctld "$S/slurmctld.log"
    kill -0 "$SLURMD_PID" 2>/dev/null || cannot_start slurmd "$S/slurmd.log"
    [ $i -lt 60 ] || cannot_start "the node (state $(sinfo -h -o %t 2>/dev/null))" \
        "$S/slurmctld.log"
    sleep 1
done
echo "SLURM up: $node"

# The input, and the command's map of it.
"$MK" --size 900x700 --dtype u8 --kind landscape --values 40 --seed 9 \
    --tiff --georef 32633,500000,4600000,30 "$T/work/scene.tif"
expect_exit 0 "winent-stream on the input" "$WS" --quiet --window 9 "$T/work/scene.tif" \
    "$T/work/cli.tif"

# The recipe, as SCALING.md gives it: two workers (one a CPU, at least 2).
ntasks=2
[ "$ncpu" -ge 2 ] || ntasks=1
cd "$WINENT_SRC"
set +e
JOB=$(sbatch --parsable --ntasks=$ntasks --cpus-per-task=1 --time=8 \
    --chdir="$T/work" -o "$T/work/job.out" \
    examples/slurm/entropy.sbatch "$T/work/scene.tif" "$T/work/scene.zarr" 9)
rc=$?
set -e
cd "$T"
check "sbatch takes the recipe (exit $rc): $JOB" test "$rc" -eq 0 -a -n "$JOB"
# Bounded: 8 minutes (the job's own limit), then cancelled.
i=0
while [ -n "$JOB" ] && [ -n "$(squeue -h -j "$JOB" 2>/dev/null)" ] && [ $i -lt 480 ]; do
    sleep 2
    i=$((i + 2))
done
state=$(scontrol show job "$JOB" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
echo "--- job $JOB: $state"
cat "$T/work/job.out" 2>/dev/null | grep -v '^\s*$' | tail -n 20 || true
check "the job completed (state $state, after ${i} s)" test "$state" = COMPLETED
check "the client saw $ntasks dask workers" grep -q "winent: $ntasks dask workers" \
    "$T/work/job.out"
check "the Zarr map holds the command's bytes, CRS and transform" "$PY" - "$T/work" <<'PYEOF'
import sys
import numpy as np
import rioxarray  # noqa: F401
import xarray as xr
from osgeo import gdal
w = sys.argv[1]
m = xr.open_zarr(w + "/scene.zarr", decode_coords="all")["entropy"]
d = gdal.Open(w + "/cli.tif")
cli = d.GetRasterBand(1).ReadAsArray()
ours = np.asarray(m.values, dtype=np.float32).reshape(cli.shape)
bad = []
if cli.dtype != np.float32 or ours.tobytes() != cli.tobytes():
    n = int((ours.view(np.uint32) != cli.astype(np.float32).view(np.uint32)).sum())
    bad.append("%d of %d pixels differ from the command's" % (n, cli.size))
if m.rio.crs is None or m.rio.crs.to_epsg() != 32633:
    bad.append("CRS %s" % m.rio.crs)
if tuple(m.rio.transform())[:6] != tuple(d.GetGeoTransform()[i] for i in (1, 2, 0, 4, 5, 3)):
    bad.append("transform %r, the command's %r" % (m.rio.transform(), d.GetGeoTransform()))
sys.exit("; ".join(bad) if bad else 0)
PYEOF
check "the scheduler file is gone" sh -c "! ls '$T/work' | grep -q '^dask-scheduler-'"

# Everything stopped, by process id: nothing of this cluster left.
stop_all
left=""
for p in $SLURMD_PID $CTLD_PID $MUNGED_PID; do
    ! kill -0 "$p" 2>/dev/null || left="$left $p"
done
steps=$(ps -eo pid=,args= | awk -v j="[$JOB." '$2 == "slurmstepd:" && index($3, j) == 1' |
    wc -l)
check "no daemon left (${left:-none})" test -z "$left"
check "no job step left ($steps)" test "$steps" -eq 0
JOB="" MUNGED_PID="" CTLD_PID="" SLURMD_PID=""
finish
