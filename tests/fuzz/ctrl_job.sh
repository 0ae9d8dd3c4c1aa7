#!/bin/sh
# libFuzzer harness fuzz_ctrl_job for a bounded time (run.sh)
exec "$(dirname "$0")/run.sh" ctrl_job
