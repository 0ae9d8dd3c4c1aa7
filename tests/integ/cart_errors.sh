#!/bin/sh
# Errors of the dimension shifts (cart_check --error CASE), one job per
# case on 4 ranks (2x2 mesh) and on 9 (3x3), over $TRANSPORT (default
# ofi:tcp), RTOPO_TIMEOUT_MS=600000 so that no code can come
# from a timeout (jobs cut off at 300 s: a hang):
#   baddim            dim 2 and -1, a rank out of range, a coordinate out
#                     of range, a sub-topology mask beyond the dimensions:
#                     RTOPO_ERR_INVAL on every rank, then a good shift
#                     works (the job goes on)
#   mismatch-disp     the middle rank shifts its row by 2, the others by 1
#   mismatch-rule     the middle rank passes a=0, the others a=1 (b=0)
#   mismatch-inplace  the middle rank shifts in place, the others not
#   mismatch-dim      the middle rank shifts along dimension 0, the others 1
# Every rank must print a passing verdict, every mismatch case must end in
# RTOPO_ERR_MISMATCH on every rank (in the shift, or in the barrier that
# follows a shift this rank could complete alone), every MISMATCH message
# must name the argument with both values; a job is cut at 300 s (a hang).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
CART="$top_builddir/tests/integ/cart_check"
export RTOPO_TIMEOUT_MS=600000 RTOPO_SPIN_US=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fails=0

names_re() {
    case $1 in
    mismatch-disp)    echo 'called shift_dim with disp=[0-9]+ \(mod [23]\), this rank with disp=[0-9]+' ;;
    mismatch-rule)    echo 'called shift_dim with disp=a\*line\+b, a=[01] b=0 \(mod [23]\), this rank with a=[01] b=0' ;;
    mismatch-inplace) echo 'called shift_dim (in place, this rank not in place|not in place, this rank in place)' ;;
    mismatch-dim)     echo 'called shift_dim along dimension [01], this rank along dimension [01]' ;;
    esac
}

for n in 4 9; do
    for c in baddim mismatch-disp mismatch-rule mismatch-inplace mismatch-dim; do
        t0=$(date +%s%N)
        timeout 330 "$RUN" -n "$n" --transport "$tr" --quiet --timeout 300 --grace 2 \
            "$CART" --error "$c" >"$out" 2>&1
        rc=$?
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        why=
        [ "$rc" -eq 0 ] || why="$why; rtopo-run exit status $rc"
        np=$(grep -c ': verdict: pass' "$out")
        [ "$np" -eq "$n" ] || why="$why; $np of $n ranks passed"
        if [ "$c" != baddim ]; then
            re=$(names_re "$c")
            nm=$(grep -c ': mismatch message: ' "$out")
            nn=$(grep ': mismatch message: ' "$out" | grep -c -E -e "$re")
            [ "$nm" -ge "$n" ] && [ "$nn" -eq "$nm" ] ||
                why="$why; $nn of $nm MISMATCH messages name the argument ($n ranks)"
        fi
        if [ -n "$why" ]; then
            fails=$(( fails + 1 ))
            sed 's/^/    /' "$out"
            echo "== $n ranks, $c: FAILED ($ms ms)$why"
        else
            echo "== $n ranks, $c: ok ($ms ms)"
            grep ': mismatch message: ' "$out" | head -2 | sed 's/^/    /'
        fi
    done
done
echo "cart_errors on $tr: $fails case(s) failed"
[ "$fails" -eq 0 ]
