#!/bin/sh
# Wrong calls of the collectives (coll_check --error CASE, one job per
# case) over $TRANSPORT (default ofi:tcp), RTOPO_TIMEOUT_MS=600000 so
# that no code can come from a timeout (jobs cut off at 300 s: a hang).  Jobs: every case on 16 ranks (OTIS-mesh n=4);
# badargs, mismatch-root, mismatch-m-consec and null-send on 4 ranks
# (OTIS-hypercube n=2); badargs on a ring of 4.  What each case does is at
# the head of coll_check.c; in short:
#   badargs     bad datatype, operator, root, group, dimension, m, w,
#               algorithm, count, in-place line operation, NULL request:
#               RTOPO_ERR_INVAL on every rank within 1 s, no communication;
#               window_bcast on a ring (and off the OTIS-mesh):
#               RTOPO_ERR_UNSUPPORTED; then a bcast and an allreduce work
#   mismatch-*  rank p/2 passes another root, count, operator, datatype,
#               m, dimension, disp, w, group, operation or algorithm:
#               RTOPO_ERR_MISMATCH on every rank (in the call, or in the
#               barrier that follows a call the rank could complete alone),
#               and every MISMATCH message names the argument with both
#               values
#   null-send, null-recv   rank p/2 passes a NULL buffer: RTOPO_ERR_INVAL on
#               every rank through the job's abort, every message of those
#               naming the NULL buffer
# Every rank must print exactly one verdict, pass (common.sh,
# verdict_case); a job is cut at 300 s (a hang).  CASES restricts the
# cases run (names as above).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
COLL="$top_builddir/tests/integ/coll_check"
export RTOPO_TIMEOUT_MS=600000 RTOPO_SPIN_US=0
fails=0 summary= verdict_check=named
start=$(date +%s)

names_re() {
    case $1 in
    mismatch-root)     echo 'called bcast with root=[0-9]+, this rank with root=[0-9]+' ;;
    mismatch-count)    echo 'called allreduce with (count|bytes)=[0-9]+, this rank with (count|bytes)=[0-9]+' ;;
    mismatch-op)       echo 'called allreduce with [^,]*operator [0-9A-Z_]+, this rank with [^,]*operator [0-9A-Z_]+' ;;
    mismatch-dtype)    echo 'called allreduce with datatype [0-9A-Z_]+[^,]*, this rank with datatype [0-9A-Z_]+' ;;
    mismatch-m)        echo 'called adjacent_sum with m=[0-9]+, this rank with m=[0-9]+' ;;
    mismatch-m-consec) echo 'called consecutive_sum with m=[0-9]+, this rank with m=[0-9]+' ;;
    mismatch-dim)      echo 'called shift_fill along dimension [0-9]+, this rank along dimension [0-9]+' ;;
    mismatch-disp)     echo 'called shift_fill with disp=-?[0-9]+, this rank with disp=-?[0-9]+' ;;
    mismatch-w)        echo 'called window_bcast with w=[0-9]+, this rank with w=[0-9]+' ;;
    mismatch-group)    echo 'called window_bcast with group=[0-9]+, this rank with group=[0-9]+' ;;
    mismatch-coll)     echo 'called (allreduce, this rank scan|scan, this rank allreduce)' ;;
    mismatch-coll-bcast) echo 'called (allreduce, this rank bcast|bcast, this rank allreduce)' ;;
    mismatch-algo)     echo 'called bcast with algo=(topo|generic), this rank with algo=(topo|generic)' ;;
    null-*)            echo 'buffer of rank [0-9]+ is NULL' ;;
    esac
}

# named OUT: every message of the case's kind names the argument (one at
# least per rank)
named() {
    case $c in
    mismatch-*) tag='mismatch message' ;;
    null-*)     tag='error message' ;;
    *)          return 0 ;;
    esac
    re=$(names_re "$c")
    nm=$(grep -c ": $tag: " "$1")
    nn=$(grep ": $tag: " "$1" | grep -c -E -e "$re")
    [ "$nm" -ge "$n" ] && [ "$nn" -eq "$nm" ] ||
        why="$why; $nn of $nm messages ($tag) name the argument ($n ranks; want /$re/)"
}

# one N TOPO CASE
one() {
    n=$1 topo=$2 c=$3
    if [ -n "$CASES" ]; then
        case " $CASES " in *" $c "*) ;; *) return 0 ;; esac
    fi
    verdict_case "$n ranks, $topo, $c ($tr)" "$n" 0 330 \
        "$RUN" -n "$n" --transport "$tr" --quiet --timeout 300 --grace 2 \
        "$COLL" --topo "$topo" --error "$c"
}

for c in badargs mismatch-root mismatch-count mismatch-op mismatch-dtype mismatch-m \
         mismatch-m-consec mismatch-dim mismatch-disp mismatch-w mismatch-group \
         mismatch-coll mismatch-coll-bcast mismatch-algo null-send null-recv; do
    one 16 otis-mesh:4 $c
done
for c in badargs mismatch-root mismatch-m-consec null-send; do
    one 4 otis-hypercube:2 $c
done
one 4 ring badargs
echo "coll_errors on $tr: $(( $(date +%s) - start )) s"
verdict_end
