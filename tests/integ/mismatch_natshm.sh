#!/bin/sh
# inconsistent collective calls over the native shm transport (see mismatch.sh)
TRANSPORT=shm exec sh "$(dirname "$0")/mismatch.sh"
