# hosts-bench.sh - sourced by the scripts that run rtopo-bench-mpi on
# emulated hosts (mpi-hosts.sh, a2a-choice.sh): with B the build
# directory, sets RUN and BENCH (absolute paths of its rtopo-run and
# rtopo-bench-mpi), checks for them and for mpirun, exports
# RTOPORUN_HOST_EXEC (tools/rtopo-host-exec unless set) and makes $OUT.
RUN=$(cd "$B/tools" && pwd)/rtopo-run
BENCH=$(cd "$B/tools" && pwd)/rtopo-bench-mpi
[ -x "$RUN" ] && [ -x "$BENCH" ] || { echo "build $B first (rtopo-run, rtopo-bench-mpi)" >&2; exit 2; }
command -v mpirun >/dev/null 2>&1 || { echo "no mpirun" >&2; exit 2; }
: "${RTOPORUN_HOST_EXEC:=$(cd "$(dirname "$0")/.." && pwd)/rtopo-host-exec}"
export RTOPORUN_HOST_EXEC
mkdir -p "$OUT"
