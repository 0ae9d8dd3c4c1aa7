#!/bin/sh
# The pmix method under mpirun (Open MPI's PMIx server).  Skipped when
# mpirun is absent or rtopo was built without PMIx.
. "$(dirname "$0")/boot_lib.sh"

command -v mpirun > /dev/null || { echo "no mpirun: skipped"; exit 77; }
if ! grep -q '^#define HAVE_PMIX 1' "$builddir/config.h" 2>/dev/null; then
    echo "rtopo built without PMIx: skipped"
    exit 77
fi
root=
[ "$(id -u)" -eq 0 ] && root=--allow-run-as-root
for n in 1 4; do
    run mpirun $root --oversubscribe -n $n "$CHECK" normal
    expect_rc 0
    expect_lines $n "^rank [0-9]+ size $n host .* method pmix$"
    expect_lines $n '^rank [0-9]+: ok$'
done
exit 0
