#!/bin/sh
# waiting ranks block rather than spin, over the native shm transport (see blocking_cpu.sh)
TRANSPORT=shm exec sh "$(dirname "$0")/blocking_cpu.sh"
