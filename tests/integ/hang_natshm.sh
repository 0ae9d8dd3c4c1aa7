#!/bin/sh
# barrier + blocking shift, repeated, over the native shm transport (see hang.sh)
TRANSPORT=shm exec sh "$(dirname "$0")/hang.sh"
