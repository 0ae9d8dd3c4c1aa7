#!/bin/sh
# request and handle semantics over the native shm transport (see req.sh)
TRANSPORT=shm exec sh "$(dirname "$0")/req.sh"
