#!/bin/sh
# libFuzzer harness fuzz_ctrl_msg for a bounded time (run.sh)
exec "$(dirname "$0")/run.sh" ctrl_msg
