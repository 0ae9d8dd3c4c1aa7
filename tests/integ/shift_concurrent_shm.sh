#!/bin/sh
TRANSPORT=ofi:shm exec sh "$(dirname "$0")/shift_concurrent.sh"
