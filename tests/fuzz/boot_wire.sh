#!/bin/sh
# libFuzzer harness fuzz_boot_wire for a bounded time (run.sh)
exec "$(dirname "$0")/run.sh" boot_wire
