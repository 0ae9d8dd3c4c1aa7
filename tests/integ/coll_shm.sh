#!/bin/sh
# the collectives over ofi:shm (see coll.sh)
TRANSPORT=ofi:shm exec sh "$(dirname "$0")/coll.sh"
