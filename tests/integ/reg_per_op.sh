#!/bin/sh
# RTOPO_REG_PER_OP: unregistered buffers above the eager limit are
# registered for one operation (zero-copy) from the size it gives, staged
# below it.  On 2 ranks over rtopo's shm and ofi:tcp (where usable), with
# unregistered buffers of 70000 and 1048579 bytes: the data is right in
# every case, and the info log says "data goes through staging" exactly
# when a buffer is below the size (auto registers every size on these
# transports: never; off: always; 100k: the 70000-byte one only).  Values
# other than auto, off or a positive byte count fail rtopo_init on both
# ranks, named.  TRANSPORTS=verbs (the soft-RoCE suite, .ci/rxe-suite):
# verbs pins what it registers, so rtopo_init times registering against
# copying; the log must show those times and the choice, and a
# 1048579-byte buffer is staged exactly when the chosen size is above it
# (or none was chosen).
. "$(dirname "$0")/common.sh"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
staged="is not registered: data goes through staging"
# case_ VALUE SIZES EXPECT: staged, direct, or any (data only)
case_() {
    RTOPO_REG_PER_OP=$1 RTOPO_LOG_LEVEL=info run 2 "$tr" --topo ring --sizes "$2" --q 1,-1 \
        --mem unreg --modes blocking,persistent >"$out" 2>&1 ||
        { cat "$out"; echo "FAIL: $tr, RTOPO_REG_PER_OP=$1, sizes $2"; exit 1; }
    n=$(grep -c "$staged" "$out")
    if [ "$3" = staged ] && [ "$n" -eq 0 ]; then
        cat "$out"; echo "FAIL: $tr, RTOPO_REG_PER_OP=$1, $2 bytes: not staged"; exit 1
    fi
    if [ "$3" = direct ] && [ "$n" -ne 0 ]; then
        cat "$out"; echo "FAIL: $tr, RTOPO_REG_PER_OP=$1, $2 bytes: staged"; exit 1
    fi
    echo "$tr RTOPO_REG_PER_OP=$1 $2 bytes: $3, data right"
}
usable=
for tr in ${TRANSPORTS:-shm ofi:tcp}; do
    if ! "$INFO" --check "$tr" >/dev/null 2>&1; then
        echo "$tr is not usable here: left out"
        continue
    fi
    usable=$tr
    if [ "$tr" = verbs ]; then
        RTOPO_LOG_LEVEL=info run 2 verbs --topo ring --sizes 8 --q 1 >"$out" 2>&1 ||
            { cat "$out"; echo "FAIL: verbs, 8 bytes"; exit 1; }
        grep "registering\|unregistered buffers" "$out"
        [ "$(grep -c "registering 65536 bytes for one operation took" "$out")" -eq 2 ] ||
            { echo "FAIL: verbs: no timing of registration on both ranks"; exit 1; }
        # ranks whose chosen size is at most 1048579 (each chooses for itself)
        k=0
        for min in $(sed -n 's/.*unregistered buffers of \([0-9]*\) bytes and more are registered.*/\1/p' "$out"); do
            [ "$min" -le 1048579 ] && k=$((k + 1))
        done
        case $k in
        2) case_ auto 1048579 direct ;;
        0) case_ auto 1048579 staged ;;
        *) case_ auto 1048579 any ;;
        esac
    else
        case_ auto 70000,1048579 direct
    fi
    case_ off 70000,1048579 staged
    case_ 100k 70000 staged
    case_ 100k 1048579 direct
    case_ 1 70000 direct
done
[ -n "$usable" ] || { echo "none of the transports is usable: skipped"; exit 77; }
for v in bogus 0 -1 12q; do
    RTOPO_REG_PER_OP=$v run 2 "$usable" --topo ring --sizes 8 --q 1 >"$out" 2>&1 &&
        { cat "$out"; echo "FAIL: RTOPO_REG_PER_OP=$v was accepted"; exit 1; }
    n=$(grep -c "RTOPO_REG_PER_OP=$v is not auto, off or a byte count" "$out")
    [ "$n" -eq 2 ] ||
        { cat "$out"; echo "FAIL: RTOPO_REG_PER_OP=$v: named by $n of 2 ranks"; exit 1; }
    echo "RTOPO_REG_PER_OP=$v: refused on both ranks"
done
exit 0
