#!/bin/sh
# barrier + blocking shift, repeated, over ofi:tcp (see hang.sh)
TRANSPORT=ofi:tcp exec sh "$(dirname "$0")/hang.sh"
