#!/bin/sh
# schedules with hazards over the native shm transport (see sched_deps.sh)
TRANSPORT=shm exec sh "$(dirname "$0")/sched_deps.sh"
