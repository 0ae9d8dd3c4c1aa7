#!/bin/sh
# The collectives (bcast, window_bcast, scan, allreduce, shift_fill,
# accumulate, adjacent_sum, consecutive_sum) on the transport named by
# $TRANSPORT (default ofi:tcp), every byte checked by coll_check (what a
# job covers: the head of coll_check.c):
#   16 ranks, OTIS-mesh n=4: every operation with the paper's algorithm,
#      the generic one and the model's choice, counts 1, 7 and 300000,
#      blocking, nonblocking and persistent, registered and unregistered;
#      then the paper's algorithms, count 7, every case in every mode
#      with every kind of memory, shift_fill by every disp in -3..5, and
#      overlapping buffers (scan and allreduce in place)
#   4 ranks, OTIS-hypercube n=2: every operation, every algorithm, every
#      mode with every kind of memory, counts 0, 1, 7 and 300000,
#      overlapping buffers
#   16 ranks, OTIS-hypercube n=4: every operation, topo and generic,
#      counts 1 and 7, then 300000 for bcast, scan and allreduce
#   16 ranks over 4 emulated hosts (rtopo-run --hosts 4), OTIS-mesh n=4:
#      the model's choice (which sees the hosts), counts 1, 7, 300000
#   8 ranks ring, 2x4 mesh, 3-cube, 4 ranks 2x2 mesh and 2-cube: bcast,
#      scan and allreduce with every algorithm, counts 1, 7 and 300000;
#      on 8 ranks also the line operations (auto), and overlapping buffers
# The cases of one job size run in one job, topology after topology
# (coll_check --then: every group as a job of its own would run it, the
# ranks started once): 16, 16 on 4 hosts, 4 and 8 ranks, four jobs.
# RANKS restricts the jobs to those sizes (check-sanitize: 4 and 8),
# TOPOS to those topologies (as --topo names them).  Ranks block in the
# transport at once (RTOPO_SPIN_US=0: two cores, no busy waiting).  A
# failing job prints the ranks' complaints and the command that
# reproduces it; the other jobs still run.
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
COLL="$top_builddir/tests/integ/coll_check"
ranks=${RANKS:-"4 8 16"}
export RTOPO_SPIN_US=${RTOPO_SPIN_US:-0}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s)
jobs=0 failed=

# coll N [--hosts H] ARGS... [--then ARGS...]...: one job of coll_check
# (each --then group on a topology of its own, the ranks started once),
# when N is in $ranks; with $TOPOS, only the groups on those topologies
coll() {
    n=$1; shift
    hosts=
    if [ "$1" = --hosts ]; then
        hosts="--hosts $2 --no-netns"; shift 2
    fi
    case " $ranks " in *" $n "*) ;; *) return 0 ;; esac
    if [ -n "$TOPOS" ]; then
        kept='' group=''
        for a in "$@" --then; do
            if [ "$a" = --then ]; then
                topo=$(echo " $group " | sed -n 's/.* --topo \([^ ]*\) .*/\1/p')
                case " $TOPOS " in
                    *" $topo "*) kept="$kept${kept:+ --then}$group" ;;
                esac
                group=
            else
                group="$group $a"
            fi
        done
        [ -n "$kept" ] || return 0
        # shellcheck disable=SC2086
        set -- $kept
    fi
    cmd="rtopo-run -n $n $hosts --transport $tr coll_check $*"
    t0=$(date +%s)
    groups=$(( $(echo " $* " | grep -o ' --then ' | wc -l) + 1 ))
    # shellcheck disable=SC2086
    timeout $(( 300 * groups )) "$RUN" -n "$n" $hosts --transport "$tr" --quiet "$COLL" "$@" >"$out" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then
        # the ranks' complaints first, the library's warnings after
        { grep -v ' warn ' "$out"; grep ' warn ' "$out"; } | head -n 80 | sed 's/^/    /'
        [ "$(wc -l <"$out")" -le 80 ] || echo "    ... ($(wc -l <"$out") lines in all)"
        echo "FAILED (exit status $rc after $(( $(date +%s) - t0 )) s): $cmd"
        echo "reproduce: RTOPO_SPIN_US=$RTOPO_SPIN_US RTOPO_TIMEOUT_MS=$RTOPO_TIMEOUT_MS" \
            "$RUN -n $n $hosts --transport $tr $COLL $*"
        failed="$failed
  $cmd"
        return 0
    fi
    grep -e '^\[0\] rank 0: ' -e 'skipped' "$out" | sed 's/^/    /'
    echo "ok ($(( $(date +%s) - t0 )) s): $cmd"
    jobs=$(( jobs + 1 ))
}

all="--modes blocking,nonblocking,persistent --mem reg,unreg"
three="--algos auto,topo,generic --ops bcast,scan,allreduce --counts 1,7,300000 $all"
line="--algos auto --ops shift_fill,accumulate,adjacent_sum,consecutive_sum \
    --counts 1,7,300000 $all --overlap"
# shellcheck disable=SC2086
coll 16 --topo otis-mesh:4 --algos auto,topo,generic --counts 1,7,300000 $all \
    --then --topo otis-mesh:4 --algos topo --counts 7 $all --matrix full --disps all --overlap \
    --then --topo otis-hypercube:4 --algos topo,generic --counts 1,7 $all \
    --then --topo otis-hypercube:4 --algos topo,generic --ops bcast,scan,allreduce \
    --counts 300000 $all
# shellcheck disable=SC2086
coll 16 --hosts 4 --topo otis-mesh:4 --algos auto --counts 1,7,300000 $all
# shellcheck disable=SC2086
coll 4 --topo otis-hypercube:2 --algos auto,topo,generic --counts 0,1,7,300000 $all \
    --matrix full --disps all --overlap \
    --then --topo mesh:2x2 $three --then --topo hypercube:2 $three
# shellcheck disable=SC2086
coll 8 --topo ring $three --overlap --then --topo ring $line \
    --then --topo mesh:2x4 $three --overlap --then --topo mesh:2x4 $line \
    --then --topo hypercube:3 $three --overlap --then --topo hypercube:3 $line
if [ -n "$failed" ]; then
    echo "coll on $tr: $jobs jobs passed, these failed ($(( $(date +%s) - start )) s):$failed"
    exit 1
fi
echo "coll on $tr: $jobs jobs passed in $(( $(date +%s) - start )) s"
exit 0
