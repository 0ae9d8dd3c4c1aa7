#!/bin/sh
# the collectives over the native shm transport (see coll.sh)
TRANSPORT=shm exec sh "$(dirname "$0")/coll.sh"
