#!/bin/sh
# topo-graph.sh - the file-level call and include graph of the collectives
# in topo/ (coll_*.c: the builder, the families, the reference, the
# descriptor table), their circles, the edges that run up against the
# levels in topo/README.md, and the lines of each file.
#
# usage: tools/dev/topo-graph.sh [BUILDDIR] [SRCDIR]    (defaults: build .)
#        LEVELS=FILE as for runtime-graph.sh, which this runs.
exec env DIR=topo FILES='coll_*' "$(dirname "$0")/runtime-graph.sh" "$@"
