#!/bin/sh
# the verbs transport's connection authentication through the ops table:
# a forged accept, a replayed request, a wrong token, then the genuine
# rank (intruder_verbs_tl.c); skipped without a verbs device
. "$(dirname "$0")/common.sh"
prog="$top_builddir/tests/integ/intruder_verbs_tl"
if [ ! -x "$prog" ]; then
    echo "the verbs transport is not built (no $prog): skipped"
    exit 77
fi
exec timeout 120 "$prog"
