#!/bin/sh
# calib-spread.sh - how much the calibrated link classes move from job to
# job: JOBS jobs (default 10) of 8 ranks on 2 emulated hosts of 4
# (rtopo-run --hosts 2, optionally --link-rate RATE), each creating a
# hypercube:3 with RTOPO_MODEL=auto (coll_check, a bcast on it), log at
# debug; from rank 0's log, per job: the intra-host and inter-host pairs'
# ts and tw and how long the calibration took at the creation; then, per
# figure, the min, median, max and max/min over the jobs.
#
#   tools/dev/calib-spread.sh [BUILDDIR]
#
# Environment: JOBS (default 10), RATE (tc rate of every host's link,
# default none), MODEL (default auto), OUT (default /tmp/calib-spread: one
# log per job, and spread.txt).  Each job is taken under the machine-wide
# lock of the emulated-host tests.  Needs root (namespaces).  Not part of
# make check.
set -eu
B=${1:-build}
JOBS=${JOBS:-10}
RATE=${RATE:-}
MODEL=${MODEL:-auto}
OUT=${OUT:-/tmp/calib-spread}
RUN=$(cd "$B/tools" && pwd)/rtopo-run
COLL=$(cd "$B/tests/integ" && pwd)/coll_check
[ -x "$RUN" ] && [ -x "$COLL" ] ||
    { echo "build $B first (rtopo-run; make tests/integ/coll_check)" >&2; exit 2; }
: "${RTOPORUN_HOST_EXEC:=$(cd "$(dirname "$0")/.." && pwd)/rtopo-host-exec}"
export RTOPORUN_HOST_EXEC
mkdir -p "$OUT"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
     "RTOPO_MODEL=$MODEL${RATE:+, link rate $RATE}"
printf '%-4s %10s %10s %10s %10s %10s\n' job intra.ts intra.tw inter.ts inter.tw calib_ms
j=0
: > "$OUT/figs"
while [ "$j" -lt "$JOBS" ]; do
    j=$((j + 1))
    log=$OUT/job$j.log
    # shellcheck disable=SC2086
    RTOPO_MODEL=$MODEL RTOPO_LOG_LEVEL=debug flock -w 900 /tmp/rtopo-hosts-tests.lock \
        timeout 300 "$RUN" -n 8 --hosts 2 ${RATE:+--link-rate $RATE} --transport auto \
        "$COLL" --topo hypercube:3 --algos auto --ops bcast --counts 1,7 > "$log" 2>&1 ||
        { echo "job $j failed, see $log"; continue; }
    f=$(sed -n 's/^\[0\] .*measured node pair [0-9<>-]* (\(intra\|inter\)-host): ts \([0-9.e+-]*\) us, tw \([0-9.e+-]*\) ns\/B.*/\1 \2 \3/p' "$log")
    c=$(sed -n 's/^\[0\] .*topology 0: calibration took \([0-9.]*\) ms/\1/p' "$log")
    line=$(printf '%s\n' "$f" | awk -v c="${c:--}" '
        { ts[$1] = $2; tw[$1] = $3 }
        END { printf "%s %s %s %s %s", ts["intra"], tw["intra"], ts["inter"], tw["inter"], c }')
    printf '%-4s %10s %10s %10s %10s %10s\n' "$j" $line
    echo "$line" >> "$OUT/figs"
done
awk '
    { for (i = 1; i <= NF; i++) v[i, NR] = $i; n = NR }
    END {
        split("intra.ts(us) intra.tw(ns/B) inter.ts(us) inter.tw(ns/B) calib(ms)", name, " ")
        printf "\n%-15s %9s %9s %9s %8s\n", "figure", "min", "median", "max", "max/min"
        for (i = 1; i <= 5; i++) {
            for (k = 1; k <= n; k++) x[k] = v[i, k] + 0
            for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++)
                if (x[b] < x[a]) { t = x[a]; x[a] = x[b]; x[b] = t }
            med = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
            printf "%-15s %9.4g %9.4g %9.4g %8.2f\n", name[i], x[1], med, x[n],
                (x[1] > 0 ? x[n] / x[1] : 0)
        }
    }' "$OUT/figs" | tee "$OUT/spread.txt"
