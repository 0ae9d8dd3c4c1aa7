#!/bin/sh
# the collectives over ofi:tcp (see coll.sh)
TRANSPORT=ofi:tcp exec sh "$(dirname "$0")/coll.sh"
