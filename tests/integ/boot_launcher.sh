#!/bin/sh
# rtopo-run itself: output prefixes, environment, exit status, timeout,
# grace period, signal forwarding.
. "$(dirname "$0")/boot_lib.sh"

# prefixes on both streams; a last line without newline is kept
run "$RUN" -n 2 sh -c 'printf "a\nb"; printf "e\n" >&2'
expect_rc 0
expect_lines 2 '^\[[01]\] a$'
expect_lines 2 '^\[[01]\] b$'
expect_lines 2 '^\[[01]\] e$'

run "$RUN" -n 4 --hosts 2 --no-netns --transport ofi:tcp sh -c \
    'echo "$RTOPO_RANK/$RTOPO_SIZE $RTOPO_HOST_ID $RTOPO_TRANSPORT ${#RTOPO_JOB_SECRET} ${RTOPO_BOOT_ADDR%:*}"'
expect_rc 0
expect_grep '^\[0\] 0/4 host0 ofi:tcp 64 127\.0\.0\.1$'
expect_grep '^\[1\] 1/4 host0 ofi:tcp 64 127\.0\.0\.1$'
expect_grep '^\[2\] 2/4 host1 ofi:tcp 64 127\.0\.0\.1$'
expect_grep '^\[3\] 3/4 host1 ofi:tcp 64 127\.0\.0\.1$'

# every job gets a secret of its own
run "$RUN" -n 2 sh -c 'echo "$RTOPO_JOB_SECRET"'
[ "$(sed 's/^\[.\] //' "$out" | sort -u | wc -l)" -eq 1 ] || fail "ranks see different secrets"
first=$(head -n 1 "$out")
run "$RUN" -n 1 sh -c 'echo "$RTOPO_JOB_SECRET"'
[ "$first" != "$(head -n 1 "$out")" ] || fail "two jobs got the same secret"

run "$RUN" -n 3 sh -c '[ "$RTOPO_RANK" = 2 ] && exit 5; exit 0'
expect_rc 1
expect_grep '^rtopo-run: rank 2 \(pid [0-9]+\) exited with status 5$'

start=$(date +%s)
run "$RUN" -n 3 --timeout 1 "$CHECK" hang
expect_rc 124
expect_grep '^rtopo-run: timeout after 1 s: terminating ranks still running: 0-2$'
# the ranks hang for ever: only the timeout ends them (the run is cut at 60 s)
echo "(the timeout ended the job after $(($(date +%s) - start)) s)"

start=$(date +%s)
run "$RUN" -n 2 --grace 1 sh -c '[ "$RTOPO_RANK" = 0 ] && exit 2; exec sleep 600'
expect_rc 1
expect_grep '^rtopo-run: rank 0 \(pid [0-9]+\) exited with status 2$'
expect_grep '^rtopo-run: rank 1 still running 1 s after rank 0 failed: terminating it$'
# rank 1 would sleep 10 minutes: the job cannot have ended (the run is cut
# at 60 s) unless the grace period ended it
echo "(the grace period ended the job after $(($(date +%s) - start)) s)"

# --quiet keeps the reason of the failure, not the notes
run "$RUN" -n 2 --quiet --grace 1 sh -c '[ "$RTOPO_RANK" = 0 ] && exit 2; exec sleep 30'
expect_rc 1
expect_lines 1 '^rtopo-run: '

# SIGTERM to rtopo-run reaches the ranks
echo "+ $RUN -n 2 sleep 30 (then SIGTERM)"
timeout 60 "$RUN" -n 2 sleep 30 > "$out" 2>&1 &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
expect_rc 143

run "$RUN" -n 2 /nonexistent/program
expect_rc 127
run "$RUN" "$CHECK"
expect_rc 2
run "$RUN" -n 0 "$CHECK"
expect_rc 2
exit 0
