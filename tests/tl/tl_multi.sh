#!/bin/sh
# tl_check over the composite backend (shm to the ranks of the same half,
# ofi:tcp across the halves), bounded; exit 77 (skip) when either is absent
exec timeout 180 "${TL_CHECK:-./tests/tl/tl_check}" multi:ofi:tcp
