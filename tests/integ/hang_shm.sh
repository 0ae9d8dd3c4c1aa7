#!/bin/sh
# barrier + blocking shift, repeated, over ofi:shm (see hang.sh)
TRANSPORT=ofi:shm exec sh "$(dirname "$0")/hang.sh"
