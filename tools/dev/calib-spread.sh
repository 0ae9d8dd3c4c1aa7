#!/bin/sh
# calib-spread.sh - how much the calibrated link classes move from job to
# job: JOBS jobs (default 10) of 8 ranks on 2 emulated hosts of 4
# (rtopo-run --hosts 2, optionally --link-rate RATE), each creating a
# hypercube:3 with RTOPO_MODEL=auto (coll_check, a bcast on it), log at
# debug; from rank 0's log, per job: the intra-host and inter-host pairs'
# ts and tw and how long the calibration took at the creation; then, per
# figure, the min, quartiles, median, max and max/min over the jobs.
#
#   tools/dev/calib-spread.sh [BUILDDIR ...]
#
# With several build trees (a baseline and a change), their jobs take
# turns (job 1 of each, then job 2 of each, ...), so that they meet the
# same load on a shared machine; a table for each.
# Environment: JOBS (default 10), RATE (tc rate of every host's link,
# default none), MODEL (default auto), OUT (default /tmp/calib-spread: a
# directory per build tree, with one log per job, the figures and
# spread.txt).  Each job is taken under the machine-wide lock of the
# emulated-host tests.  Needs root (namespaces).  Not part of make check.
set -eu
[ $# -ge 1 ] || set -- build
JOBS=${JOBS:-10}
RATE=${RATE:-}
MODEL=${MODEL:-auto}
OUT=${OUT:-/tmp/calib-spread}
: "${RTOPORUN_HOST_EXEC:=$(cd "$(dirname "$0")/.." && pwd)/rtopo-host-exec}"
export RTOPORUN_HOST_EXEC
for B in "$@"; do
    [ -x "$B/tools/rtopo-run" ] && [ -x "$B/tests/integ/coll_check" ] ||
        { echo "build $B first (rtopo-run; make tests/integ/coll_check)" >&2; exit 2; }
done
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
     "RTOPO_MODEL=$MODEL${RATE:+, link rate $RATE}, builds: $*"
k=0
for B in "$@"; do
    k=$((k + 1))
    mkdir -p "$OUT/b$k"
    : > "$OUT/b$k/figs"
done
j=0
while [ "$j" -lt "$JOBS" ]; do
    j=$((j + 1))
    k=0
    for B in "$@"; do
        k=$((k + 1))
        RUN=$(cd "$B/tools" && pwd)/rtopo-run
        COLL=$(cd "$B/tests/integ" && pwd)/coll_check
        log=$OUT/b$k/job$j.log
        # shellcheck disable=SC2086
        RTOPO_MODEL=$MODEL RTOPO_LOG_LEVEL=debug flock -w 900 /tmp/rtopo-hosts-tests.lock \
            timeout 300 "$RUN" -n 8 --hosts 2 ${RATE:+--link-rate $RATE} --transport auto \
            "$COLL" --topo hypercube:3 --algos auto --ops bcast --counts 1,7 > "$log" 2>&1 ||
            { echo "job $j of $B failed, see $log"; continue; }
        f=$(sed -n 's/^\[0\] .*measured node pair [0-9<>-]* (\(intra\|inter\)-host): ts \([0-9.e+-]*\) us, tw \([0-9.e+-]*\) ns\/B.*/\1 \2 \3/p' "$log")
        c=$(sed -n 's/^\[0\] .*topology 0: calibration took \([0-9.]*\) ms/\1/p' "$log")
        printf '%s\n' "$f" | awk -v c="${c:--}" '
            { ts[$1] = $2; tw[$1] = $3 }
            END { printf "%s %s %s %s %s\n", ts["intra"], tw["intra"], ts["inter"], tw["inter"], c }' \
            >> "$OUT/b$k/figs"
    done
done
k=0
for B in "$@"; do
    k=$((k + 1))
    echo
    echo "## $B ($OUT/b$k)"
    printf '%-4s %10s %10s %10s %10s %10s\n' job intra.ts intra.tw inter.ts inter.tw calib_ms
    awk '{ printf "%-4s %10s %10s %10s %10s %10s\n", NR, $1, $2, $3, $4, $5 }' "$OUT/b$k/figs"
    awk '
        { for (i = 1; i <= NF; i++) v[i, NR] = $i; n = NR }
        END {
            split("intra.ts(us) intra.tw(ns/B) inter.ts(us) inter.tw(ns/B) calib(ms)", name, " ")
            printf "\n%-15s %9s %9s %9s %9s %9s %8s\n", "figure", "min", "q1", "median", "q3",
                "max", "max/min"
            for (i = 1; i <= 5; i++) {
                for (k = 1; k <= n; k++) x[k] = v[i, k] + 0
                for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++)
                    if (x[b] < x[a]) { t = x[a]; x[a] = x[b]; x[b] = t }
                med = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
                q1 = x[int((n - 1) / 4) + 1]
                q3 = x[n - int((n - 1) / 4)]
                printf "%-15s %9.4g %9.4g %9.4g %9.4g %9.4g %8.2f\n", name[i], x[1], q1, med,
                    q3, x[n], (x[1] > 0 ? x[n] / x[1] : 0)
            }
        }' "$OUT/b$k/figs" | tee "$OUT/b$k/spread.txt"
done
