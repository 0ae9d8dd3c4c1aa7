#!/bin/sh
# The eager limit RTOPO_TRANSPORT=auto takes when RTOPO_EAGER_LIMIT is
# unset, per case (rtopo(7), RTOPO_EAGER_LIMIT), on emulated hosts
# (rtopo-run --hosts), the machine's processors chosen with taskset (two
# or more, as one counts as the machine's) so that the ranks outnumber
# them or not (every rank's log says which):
#   - across hosts (shm + the network backend), more ranks than
#     processors (4 on 2): the network backend's own (65536 over tcp,
#     8192 over verbs);
#   - across hosts, no more ranks than processors (3 ranks on 3
#     processors; skipped on a machine with fewer): the same;
#   - across hosts, RTOPO_EAGER_LIMIT=4096 set: 4096;
#   - one host, more ranks than processors (3 on 2): 65536;
#   - one host, no more ranks than processors: 8192.
# In each job every rank's rtopo_init line (log at info) names the limit,
# and shift_check moves sizes just below, at and above it (eager and
# window, every q, blocking and persistent), every byte checked.
. "$(dirname "$0")/hosts_lib.sh"
SHIFT=$builddir/tests/integ/shift_check
[ -x "$SHIFT" ] || { echo "shift_check is not built"; exit 99; }
if ! "$builddir/tools/rtopo-info" --check shm > /dev/null 2>&1; then
    echo "shm is not usable here: skipped"
    exit 77
fi
unset RTOPO_EAGER_LIMIT

mask=$(taskset -pc $$ | sed 's/.*: //')

# job CPUS N H WANT [VAR=VALUE...]: N ranks on H hosts, this shell and so
# the job on processors CPUS; WANT "net": the network backend's own limit,
# 65536 where the init lines name shm+ofi (tcp), else 8192
job() {
    cpus=$1 n=$2 h=$3 want=$4
    shift 4
    if [ "$want" = net ]; then
        sizes=8,8191,8192,8193,65535,65536,65537,262147
    else
        sizes="8,$((want - 1)),$want,$((want + 1)),$((want * 4 + 3))"
    fi
    echo "+ $* taskset -c $cpus rtopo-run -n $n --hosts $h --transport auto shift_check --sizes $sizes"
    taskset -pc "$cpus" $$ > /dev/null
    for v in "$@"; do export "${v?}"; done
    RTOPO_LOG_LEVEL=info hosts_run 200 -n "$n" --hosts "$h" --transport auto "$SHIFT" \
        --topo ring --sizes "$sizes" --q all --modes blocking,persistent
    for v in "$@"; do unset "${v%%=*}"; done
    taskset -pc "$mask" $$ > /dev/null
    [ "$rc" -eq 0 ] || fail "$n ranks, $h hosts, processors $cpus: exit status $rc"
    # across hosts: the composite backend on every rank
    if [ "$h" -gt 1 ] && [ "$n" -gt "$h" ]; then
        k=$(grep -c "rtopo_init: rank [0-9]* of $n on rtopo-host[0-9]*, transport shm+" "$out")
        [ "$k" -eq "$n" ] || fail "$n ranks, $h hosts: $k of $n init lines name shm+<network>"
    fi
    if [ "$want" = net ]; then
        want=8192
        grep -q 'rtopo_init: rank 0 of .*, transport shm+ofi' "$out" && want=65536
    fi
    got=$(grep -c "rtopo_init: rank [0-9]* of $n on .*, eager limit $want bytes" "$out")
    [ "$got" -eq "$n" ] ||
        fail "$n ranks, $h hosts, processors $cpus: $got of $n ranks logged eager limit $want"
    grep -q 'all data correct' "$out" || fail "$n ranks, $h hosts: no 'all data correct'"
    # the case's premise: every rank counted the ranks against the
    # processors as meant (a single processor would count as the
    # machine's: rtopo__cpus_shared)
    over=$(grep -c "$n ranks on this machine, [0-9]* processors: waits yield" "$out")
    ncpu=$(taskset -c "$cpus" nproc)
    if [ "$n" -gt "$ncpu" ]; then
        [ "$over" -eq "$n" ] || fail "$n ranks on $ncpu processors: $over ranks counted more ranks than processors"
    else
        [ "$over" -eq 0 ] || fail "$n ranks on $ncpu processors: $over ranks counted more ranks than processors"
    fi
    leftover
    echo "$n ranks on $h hosts, processors $cpus${*:+, $*}: eager limit $want on every rank, data correct"
}

job 0,1 4 2 net
job 0,1 4 2 4096 RTOPO_EAGER_LIMIT=4096
job 0,1 3 1 65536
job 0,1 2 1 8192
if [ "$(taskset -c 0-2 nproc 2>/dev/null || echo 0)" -ge 3 ]; then
    job 0-2 3 2 net
else
    echo "processors 0-2 are not all available: 3 ranks on 3 processors across hosts skipped"
fi
echo "eager limit per case: ok"
