#!/bin/sh
# The probes (probes.sh, probe_check) of defects found at topology
# creation and in the sort's arguments:
#   sub-keep      one rank calls rtopo_topo_sub with another keep, whose
#                 piece has the same kind and shape: RTOPO_ERR_MISMATCH on
#                 every rank (it hung: the HELLOs of both pieces matched)
#   place-differ  one rank places a ring by rank, the others by host (4
#                 hosts round robin): RTOPO_ERR_MISMATCH at its creation
#                 on every rank (it hung: neighbours disagreed)
#   sort-overlap  recvbuf one record into sendbuf: RTOPO_ERR_INVAL on
#                 every rank, then sorts in place and descending work (it
#                 was accepted)
#   fill-bytes, rw-target, sort-key, cons-m-one
#                 a mismatch or a bad argument of the first operation after
#                 a topology's creation: a rank still measuring the cost
#                 model in that creation (every neighbour had created the
#                 same topology) returns RTOPO_OK from it and gets the
#                 failure at its next call, as rtopo(7) The failed context
#                 says (it returned the later call's error from the
#                 creation, on some runs)
CASES=${CASES:-"sub-keep place-differ sort-overlap fill-bytes rw-target sort-key cons-m-one"}
export CASES
exec "${SHELL:-/bin/sh}" "$(dirname "$0")/probes.sh"
