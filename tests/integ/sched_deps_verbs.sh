#!/bin/sh
# the same on verbs (RoCE, InfiniBand, soft-RoCE); skipped without a device
TRANSPORT=verbs exec sh "$(dirname "$0")/sched_deps.sh"
