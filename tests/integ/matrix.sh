#!/bin/sh
# The transport matrix (INTEG_MATRIX in tests/integ/Makefile.include).
# The test tests/integ/NAME.T runs tests/integ/NAME.sh over transport T,
# one name per transport:
#   shm      rtopo's own shared-memory transport (transport string "shm")
#   ofi-shm  libfabric's shm provider (ofi:shm)
#   ofi-tcp  libfabric tcp (ofi:tcp)
#   ofi-rxm  libfabric rxm over tcp (ofi:rxm)
#   verbs    verbs: RoCE, InfiniBand, soft-RoCE
# NAME.sh finds the transport in $TRANSPORT.  77 (skip) when T is not
# usable here.  make check generates the test files (two lines that call
# this script); by hand: sh tests/integ/matrix.sh tests/integ/coll.ofi-tcp
test=${1:?usage: matrix.sh tests/integ/NAME.TRANSPORT}
base=$(basename "$test")
name=${base%.*}
case ${base##*.} in
shm)     tr=shm ;;
ofi-shm) tr=ofi:shm ;;
ofi-tcp) tr=ofi:tcp ;;
ofi-rxm) tr=ofi:rxm ;;
verbs)   tr=verbs ;;
*)  echo "matrix.sh: $base: no transport named '${base##*.}'" >&2; exit 99 ;;
esac
dir=$(dirname "$0")
[ -f "$dir/$name.sh" ] || { echo "matrix.sh: no script $dir/$name.sh" >&2; exit 99; }
top_builddir=${top_builddir:-.}
if ! "$top_builddir/tools/rtopo-info" --check "$tr"; then
    echo "transport $tr is not usable here: skipped"
    exit 77
fi
echo "== $name.sh over $tr"
TRANSPORT=$tr exec sh "$dir/$name.sh"
