#!/bin/sh
# request and handle semantics over ofi:tcp (see req.sh)
TRANSPORT=ofi:tcp exec sh "$(dirname "$0")/req.sh"
