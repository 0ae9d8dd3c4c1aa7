#!/bin/sh
# hypercube shifts over the native shm transport (see shift_cube.sh)
TRANSPORT=shm exec sh "$(dirname "$0")/shift_cube.sh"
