#!/bin/sh
TRANSPORT=ofi:rxm exec sh "$(dirname "$0")/shift_ring.sh"
