#!/bin/sh
# Eager fragments (rtopo(7), Eager protocol): over libfabric's shm
# provider an eager payload larger than the provider's inject size goes
# as fragments that fit it.  Passes when every rank's rtopo_init log line
# (RTOPO_LOG_LEVEL=info) says so, and shift_check verifies every byte of
# shifts whose sizes fall below, at and across the fragment size and up
# to the eager limit: rings of 2 and 4 ranks (every q, blocking,
# nonblocking and persistent, registered and unregistered, in place,
# 3 concurrent shifts), a hypercube of 8 and a 2x3 mesh whose routes
# forward fragments hop by hop (every q).  Ranks block instead of
# spinning (RTOPO_SPIN_US=0).  77 when ofi:shm is not usable here.
. "$(dirname "$0")/common.sh"
tr=ofi:shm
need_transport $tr
export RTOPO_SPIN_US=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

RTOPO_LOG_LEVEL=info timeout 60 "$RUN" -n 2 --transport $tr --quiet "$SHIFT" --sizes 8 \
    >"$out" 2>&1 || { cat "$out"; exit 1; }
frag=$(sed -n 's/.*rtopo_init: rank [01] of 2 .*, eager limit [0-9]* bytes (sent as fragments of at most \([0-9]*\))$/\1/p' "$out" | sort -u)
limit=$(sed -n 's/.*rtopo_init: rank 0 of 2 .*, eager limit \([0-9]*\) bytes.*/\1/p' "$out")
n=$(grep -c 'eager limit [0-9]* bytes (sent as fragments of at most' "$out")
if [ "$n" -ne 2 ] || [ -z "$frag" ] || [ "$(printf '%s\n' "$frag" | wc -l)" -ne 1 ]; then
    echo "FAIL: $n of 2 ranks logged eager fragments"
    grep 'eager limit' "$out"
    exit 1
fi
echo "eager limit $limit bytes, fragments of at most $frag"
sizes="1,$((frag - 1)),$frag,$((frag + 1)),$((frag * 2)),$((frag * 2 + 1)),$limit"
echo "sizes $sizes"
run 2 $tr --topo ring --sizes "$sizes" --q all --modes blocking,nonblocking,persistent \
    --mem reg,unreg || exit 1
run 4 $tr --topo ring --sizes "$sizes" --q all --modes blocking,persistent --mem reg,unreg || exit 1
run 4 $tr --topo ring --sizes "$sizes" --q all --inplace || exit 1
run 4 $tr --topo ring --sizes "$((frag + 1)),$limit" --concurrent 3 || exit 1
run 8 $tr --topo hypercube:3 --algo ecube --sizes "$((frag + 1)),$limit" --q all || exit 1
run 6 $tr --topo mesh:2x3 --algo mesh --sizes "$((frag + 1)),$limit" --q all \
    --modes blocking,persistent || exit 1
