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
# Every rank must print exactly one verdict, pass (common.sh,
# verdict_case), every mismatch case must end in
# RTOPO_ERR_MISMATCH on every rank (in the shift, or in the barrier that
# follows a shift this rank could complete alone), every MISMATCH message
# must name the argument with both values; a job is cut at 300 s (a hang).
. "$(dirname "$0")/common.sh"
tr=${TRANSPORT:-ofi:tcp}
need_transport "$tr"
CART="$top_builddir/tests/integ/cart_check"
export RTOPO_TIMEOUT_MS=600000 RTOPO_SPIN_US=0

names_re() {
    case $1 in
    mismatch-disp)    echo 'called shift_dim with disp=[0-9]+ \(mod [23]\), this rank with disp=[0-9]+' ;;
    mismatch-rule)    echo 'called shift_dim with disp=a\*line\+b, a=[01] b=0 \(mod [23]\), this rank with a=[01] b=0' ;;
    mismatch-inplace) echo 'called shift_dim (in place, this rank not in place|not in place, this rank in place)' ;;
    mismatch-dim)     echo 'called shift_dim along dimension [01], this rank along dimension [01]' ;;
    esac
}

# named OUT: every MISMATCH message names the argument with both values,
# one message at least per rank (mismatch cases)
named() {
    [ "$c" != baddim ] || return 0
    re=$(names_re "$c")
    nm=$(grep -c ': mismatch message: ' "$1")
    nn=$(grep ': mismatch message: ' "$1" | grep -c -E -e "$re")
    [ "$nm" -ge "$n" ] && [ "$nn" -eq "$nm" ] ||
        why="$why; $nn of $nm MISMATCH messages name the argument ($n ranks)"
}

fails=0 summary= verdict_check=named
for n in 4 9; do
    for c in baddim mismatch-disp mismatch-rule mismatch-inplace mismatch-dim; do
        verdict_case "$n ranks, $c ($tr)" "$n" 0 330 \
            "$RUN" -n "$n" --transport "$tr" --quiet --timeout 300 --grace 2 "$CART" --error "$c"
    done
done
verdict_end
