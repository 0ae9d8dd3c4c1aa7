#!/bin/sh
# selection ranks and routing over ofi:tcp (see route.sh)
TRANSPORT=ofi:tcp exec sh "$(dirname "$0")/route.sh"
