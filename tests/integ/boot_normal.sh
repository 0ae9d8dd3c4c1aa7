#!/bin/sh
# rtopo-run with the env method: allgathers and barriers on 1, 3, 8 ranks,
# emulated hosts, and a 256-rank job.
. "$(dirname "$0")/boot_lib.sh"

for n in 1 3 8; do
    run "$RUN" -n $n "$CHECK" normal
    expect_rc 0
    expect_lines $n "^\[[0-9]+\] rank [0-9]+ size $n host .* method env$"
    expect_lines $n '^\[([0-9]+)\] rank \1: ok$'
done

run "$RUN" -n 8 --hosts 3 --no-netns "$CHECK" normal
expect_rc 0
expect_grep '^\[0\] hosts: host0 host0 host0 host1 host1 host1 host2 host2$'

run "$RUN" -n 256 "$CHECK" small
expect_rc 0
expect_lines 256 '^\[([0-9]+)\] rank \1: ok$'
exit 0
