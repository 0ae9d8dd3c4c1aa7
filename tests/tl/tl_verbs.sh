#!/bin/sh
# tl_check over verbs, bounded; exit 77 (skip) when the transport is absent
exec timeout 120 "${TL_CHECK:-./tests/tl/tl_check}" verbs
