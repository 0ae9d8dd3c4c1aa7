#!/bin/sh
# The backends' settings of the RTOPO_* table over rtopo's shm: a job runs
# with rings larger than the default (and a setting that is not a power
# of two rounds up), a value out of range fails rtopo_init with
# RTOPO_ERR_INVAL naming the variable, ranks that give different ring
# sizes fail it with RTOPO_ERR_MISMATCH naming it.  The verbs settings
# are read (and range-checked) on every transport; that they reach the
# device is seen only with verbs (the soft-RoCE suite).
. "$(dirname "$0")/common.sh"
need_transport shm
out=${TMPDIR:-/tmp}/backend_settings.$$
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }

# job N ARGS...: shift_check on N ranks over shm, output in $out
job() {
    n=$1; shift
    timeout 300 "$RUN" -n "$n" --transport shm --quiet "$SHIFT" "$@" >"$out" 2>&1
}

# non-default values: the rings are that large, and the data right
RTOPO_SHM_RING_SIZE=131072 RTOPO_VERBS_SQ_DEPTH=64 RTOPO_VERBS_INJECT_MAX=16k \
RTOPO_LOG_LEVEL=info job 4 --topo ring --sizes 0,1,8192,8193,70000 --q 1,-1,2 ||
    fail "a job with RTOPO_SHM_RING_SIZE=131072 failed"
[ "$(grep -c 'shm: segment .* ring(s) of 131072 bytes' "$out")" = 4 ] ||
    fail "not every rank's rings are of 131072 bytes"
grep -q 'all data correct' "$out" || fail "no result"
RTOPO_SHM_RING_SIZE=200000 RTOPO_LOG_LEVEL=info job 2 --topo ring --sizes 1,70000 --q 1 ||
    fail "a job with RTOPO_SHM_RING_SIZE=200000 failed"
[ "$(grep -c 'ring(s) of 262144 bytes' "$out")" = 2 ] ||
    fail "RTOPO_SHM_RING_SIZE=200000 did not give rings of 262144 bytes"

# out of range: RTOPO_ERR_INVAL, named
for v in RTOPO_SHM_RING_SIZE=4k RTOPO_VERBS_SQ_DEPTH=4096 RTOPO_VERBS_INJECT_MAX=1m; do
    if (export "$v"; job 2 --topo ring --sizes 1 --q 1); then
        fail "$v was accepted"
    fi
    grep -q "rtopo_init: invalid argument (${v%%=*}: '${v#*=}' is out of range" \
        "$out" || fail "$v: not RTOPO_ERR_INVAL naming it"
done

# ranks that differ: RTOPO_ERR_MISMATCH, named, at init
if timeout 300 "$RUN" -n 2 --transport shm --quiet /bin/sh -c \
    '[ "$RTOPO_RANK" = 1 ] && export RTOPO_SHM_RING_SIZE=262144; exec "$0" "$@"' \
    "$SHIFT" --topo ring --sizes 1 --q 1 >"$out" 2>&1; then
    fail "ranks with different RTOPO_SHM_RING_SIZE ran"
fi
grep -q 'rtopo_init: ranks called a collective with inconsistent arguments (rank . runs with RTOPO_SHM_RING_SIZE=' "$out" ||
    fail "different RTOPO_SHM_RING_SIZE: not RTOPO_ERR_MISMATCH naming it"
echo "backend settings: ok"
exit 0
