#!/bin/sh
# request and handle semantics over ofi:shm (see req.sh)
TRANSPORT=ofi:shm exec sh "$(dirname "$0")/req.sh"
