#!/bin/sh
# waiting ranks block rather than spin, over libfabric's shm provider,
# which has no wait object (see blocking_cpu.sh)
TRANSPORT=ofi:shm exec sh "$(dirname "$0")/blocking_cpu.sh"
