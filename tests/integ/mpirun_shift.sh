#!/bin/sh
# Under Open MPI's mpirun, without rtopo-run: rtopo bootstraps through
# PMIx and shifts data correctly.  Skipped without mpirun or PMIx.
. "$(dirname "$0")/common.sh"
command -v mpirun >/dev/null 2>&1 || { echo "no mpirun: skipped"; exit 77; }
grep -q '^#define HAVE_PMIX 1' "$top_builddir/config.h" || { echo "built without PMIx: skipped"; exit 77; }
need_transport ofi:tcp
RTOPO_TRANSPORT=ofi:tcp timeout 300 mpirun --allow-run-as-root --oversubscribe \
    -x RTOPO_TRANSPORT -x RTOPO_TIMEOUT_MS -n 4 \
    "$SHIFT" --topo ring --sizes 1,70000 --q all --modes blocking,persistent
