#!/bin/sh
# mesh shifts over the native shm transport (see shift_mesh.sh)
TRANSPORT=shm exec sh "$(dirname "$0")/shift_mesh.sh"
