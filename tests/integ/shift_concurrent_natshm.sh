#!/bin/sh
# concurrent shifts over the native shm transport (see shift_concurrent.sh)
TRANSPORT=shm exec sh "$(dirname "$0")/shift_concurrent.sh"
