#!/bin/sh
# run.sh NAME - runs the libFuzzer harness tests/fuzz/fuzz_NAME for a
# bounded time, from the seed corpus tests/fuzz/corpus/NAME.
#
# make check runs each harness for FUZZ_SECONDS (default 20) seconds; a
# release check runs FUZZ_RUNS inputs of each (README, "Fuzzing").  New inputs go to a
# scratch corpus in the build tree, never into the source tree.  Any crash,
# sanitizer report, leak, timeout (30 s on one input) or memory use above
# FUZZ_RSS_MB (default 2048) fails the test: the log shows the report, and
# the input that caused it is kept under tests/fuzz/NAME.run/ and printed
# in base64.  Exit codes follow automake: 0 pass, 1 fail, 77 skip (no
# harness: configure found no clang that links -fsanitize=fuzzer).
name=${1:?usage: run.sh NAME}
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
bin=$top_builddir/tests/fuzz/fuzz_$name
seeds=$top_srcdir/tests/fuzz/corpus/$name
work=$top_builddir/tests/fuzz/$name.run
secs=${FUZZ_SECONDS:-20}
# FUZZ_RUNS=N: N inputs instead (a release check), within FUZZ_SECONDS if
# that is set too
runs_opt=""
if [ -n "${FUZZ_RUNS:-}" ]; then
    case $FUZZ_RUNS in
        *[!0-9]*) echo "FUZZ_RUNS must be a number of inputs: $FUZZ_RUNS"; exit 1 ;;
    esac
    runs_opt="-runs=$FUZZ_RUNS"
    secs=${FUZZ_SECONDS:-0}
fi
rss=${FUZZ_RSS_MB:-2048}

if [ ! -x "$bin" ]; then
    echo "fuzz_$name was not built (configure found no clang with libFuzzer): skipped"
    exit 77
fi
if [ ! -d "$seeds" ]; then
    echo "no seed corpus at $seeds"
    exit 1
fi
rm -rf "$work"
mkdir -p "$work/corpus" "$work/crashes" || exit 1
# a smaller quarantine than ASan's 256 MiB keeps freed memory hot (more
# inputs per second); a use after free is still caught across the many
# inputs whose memory fits in it
ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=32}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS
echo "+ fuzz_$name -max_total_time=$secs $runs_opt -rss_limit_mb=$rss"
"$bin" -max_total_time="$secs" $runs_opt -rss_limit_mb="$rss" -timeout=30 \
    -print_final_stats=1 -artifact_prefix="$work/crashes/" \
    "$work/corpus" "$seeds" >"$work/log" 2>&1
rc=$?
# the end of the log: the last status line and the totals
grep -E '^#[0-9]+.*(DONE|pulse)|^Done [0-9]+ runs|^stat::' "$work/log" | tail -n 12
runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 \2/p' "$work/log")
if [ $rc -ne 0 ] || [ -z "$runs" ]; then
    echo "fuzz_$name FAILED (exit $rc):"
    tail -n 80 "$work/log"
    for f in "$work"/crashes/*; do
        [ -f "$f" ] || continue
        echo "== input $f (base64):"
        base64 "$f"
    done
    echo "(reproduce: $bin $work/crashes/<file>)"
    exit 1
fi
set -- $runs
echo "fuzz_$name: $1 inputs in $2 s, $(( $1 / ($2 > 0 ? $2 : 1) )) per second, no finding"
rm -rf "$work"
exit 0
