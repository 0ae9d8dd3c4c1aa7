#!/bin/sh
# The job secret is kept out of sight: rtopo-info inside a job
# does not print it; it is in no process's command line; the environment
# that holds it is readable by its owner only (/proc/PID/environ is mode
# 0400); rtopo-run opens no file to pass it on.
. "$(dirname "$0")/boot_lib.sh"
INFO=$builddir/tools/rtopo-info

run "$RUN" -n 2 sh -c 'echo "secret=$RTOPO_JOB_SECRET"; "$0" --params' "$INFO"
expect_rc 0
secret=$(sed -n 's/^\[0\] secret=//p' "$out")
[ ${#secret} -eq 64 ] || fail "no secret of 64 characters seen by rank 0"
[ "$(grep -c -F "$secret" "$out")" -eq 2 ] || fail "rtopo-info printed the secret"
expect_lines 2 "^\[[01]\]   RTOPO_JOB_SECRET +STR  default '', current value not shown \(set, 64 characters\)$"

# a job that runs long enough to be looked at
echo "+ $RUN -n 2 sh -c '...; exec sleep 30' (in the background)"
"$RUN" -n 2 sh -c 'echo "$RTOPO_JOB_SECRET" > "$0/secret.$RTOPO_RANK"; exec sleep 30' \
    "$tmp" > "$out" 2>&1 &
job=$!
i=0
while { [ ! -s "$tmp/secret.0" ] || [ ! -s "$tmp/secret.1" ]; } && [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
secret=$(cat "$tmp/secret.0")
[ ${#secret} -eq 64 ] || { kill $job; fail "the ranks did not start"; }
problems=
# no command line shows it (what ps prints): every process's, read from
# /proc (grep -c reads the pattern from a file, not from its arguments)
printf '%s\n' "$secret" > "$tmp/pattern"
ranks=
for d in /proc/[0-9]*; do
    if tr '\0' ' ' < $d/cmdline 2>/dev/null | grep -q -F -f "$tmp/pattern"; then
        problems="$problems; the secret is in the command line of pid ${d#/proc/}"
    fi
    # the ranks: children of rtopo-run (field 4 of stat, after "(comm)")
    ppid=$(sed 's/^.*) [A-Za-z] \([0-9]*\) .*$/\1/' $d/stat 2>/dev/null)
    [ "$ppid" = "$job" ] && ranks="$ranks ${d#/proc/}"
done
[ -n "$ranks" ] || problems="$problems; no rank of rtopo-run ($job) found"
for pid in $ranks $job; do
    mode=$(stat -c %a /proc/$pid/environ)
    [ "$mode" = 400 ] || problems="$problems; /proc/$pid/environ has mode $mode"
    # rtopo-run and the ranks: descriptors 3 and up are pipes, sockets
    # and the like, never a regular file
    for fd in /proc/$pid/fd/*; do
        n=${fd##*/}
        [ "$n" -ge 3 ] || continue
        target=$(readlink "$fd")
        case $target in
        /*) [ -f "$target" ] && problems="$problems; pid $pid holds file $target open" ;;
        esac
    done
done
# rtopo-run's own environment does not hold it (it is set in each child)
if tr '\0' '\n' < /proc/$job/environ | grep -q -F "$secret"; then
    problems="$problems; in rtopo-run's own environment"
fi
kill -TERM $job
wait $job
[ -z "$problems" ] || fail "${problems#; }"
echo "secret: not in argv, environ mode 0400, no file opened by rtopo-run"
exit 0
