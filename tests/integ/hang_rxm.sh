#!/bin/sh
# barrier + blocking shift, repeated, over ofi:rxm (see hang.sh)
TRANSPORT=ofi:rxm exec sh "$(dirname "$0")/hang.sh"
