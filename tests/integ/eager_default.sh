#!/bin/sh
# The eager limit a transport takes when RTOPO_EAGER_LIMIT is unset
# (rtopo(7)): 65536 over libfabric's tcp provider, rxm's eager limit
# less the 48-byte header over rxm (16336; 11952 with
# FI_OFI_RXM_EAGER_LIMIT=12000), 8192 over rtopo's shm; a set value
# wins; an empty one counts as unset.  Passes
# when, on each usable transport:
#  - every rank's rtopo_init log line (RTOPO_LOG_LEVEL=info) names the
#    expected limit, and shift_check verifies every byte of shifts just
#    below, at and above it (eager and rendezvous, registered and not,
#    blocking and persistent) on 3 ranks;
#  - over ofi:tcp, a job where only rank 0 sets RTOPO_EAGER_LIMIT=8192
#    fails in rtopo_init on every rank with RTOPO_ERR_MISMATCH, naming
#    both limits and saying that an unset variable takes the default.
# 77 when ofi:tcp is not usable here.
. "$(dirname "$0")/common.sh"
need_transport ofi:tcp
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail=0

# check TRANSPORT ENV-VALUE|unset|empty EXPECTED [VAR=VALUE...]
check() {
    tr=$1; how=$2; want=$3; shift 3
    extra="$*"
    if ! "$INFO" --check "$tr" >/dev/null 2>&1; then
        echo "== $tr: not usable here: skipped"
        return
    fi
    sizes="1,$((want - 1)),$want,$((want + 1)),$((want * 2 + 3))"
    echo "== $tr, RTOPO_EAGER_LIMIT $how${extra:+, $extra}: want $want; sizes $sizes"
    case $how in
    unset) set -- env -u RTOPO_EAGER_LIMIT ;;
    empty) set -- env RTOPO_EAGER_LIMIT= ;;
    *)     set -- env RTOPO_EAGER_LIMIT="$how" ;;
    esac
    "$@" $extra RTOPO_LOG_LEVEL=info timeout 120 "$RUN" -n 3 --transport "$tr" --quiet "$SHIFT" \
        --sizes "$sizes" --q 1,-2 --modes blocking,persistent --mem reg,unreg >"$out" 2>&1
    rc=$?
    n=$(grep -c "rtopo_init: rank [0-2] of 3 on .*, eager limit $want bytes\$" "$out")
    if [ $rc -ne 0 ] || [ "$n" -ne 3 ] || ! grep -q 'all data correct' "$out"; then
        echo "FAIL: exit $rc, $n of 3 ranks logged eager limit $want"
        grep -v ' info ' "$out" | head -n 20
        grep 'eager limit' "$out"
        fail=1
    else
        grep 'all data correct' "$out"
    fi
}

check ofi:tcp unset 65536
check ofi:tcp empty 65536
check ofi:tcp 4096 4096
check ofi:rxm unset 16336
check ofi:rxm unset 11952 FI_OFI_RXM_EAGER_LIMIT=12000
check ofi:rxm 8192 8192
check shm unset 8192

echo "== ofi:tcp, RTOPO_EAGER_LIMIT=8192 on rank 0 only"
env -u RTOPO_EAGER_LIMIT timeout 120 "$RUN" -n 3 --transport ofi:tcp --quiet sh -c \
    'if [ "$RTOPO_RANK" = 0 ]; then export RTOPO_EAGER_LIMIT=8192; fi; exec "$0" --sizes 8' \
    "$SHIFT" >"$out" 2>&1
rc=$?
n=$(grep -c 'rtopo_init: .*RTOPO_EAGER_LIMIT=\(8192\|65536\) .* with \(65536\|8192\)/.*an unset RTOPO_EAGER_LIMIT takes the transport.s default' "$out")
if [ $rc -eq 0 ] || [ "$n" -ne 3 ] || [ "$(grep -c 'rtopo_init: ranks called a collective with inconsistent' "$out")" -ne 3 ]; then
    echo "FAIL: exit $rc, $n of 3 ranks reported the mismatch of the limits"
    cat "$out"
    fail=1
else
    echo "every rank: RTOPO_ERR_MISMATCH in rtopo_init, naming 8192 and 65536"
fi
exit $fail
