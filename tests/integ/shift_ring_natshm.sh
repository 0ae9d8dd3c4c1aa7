#!/bin/sh
# ring shifts over the native shm transport (see shift_ring.sh)
TRANSPORT=shm exec sh "$(dirname "$0")/shift_ring.sh"
