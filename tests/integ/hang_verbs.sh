#!/bin/sh
# barrier + blocking shift, repeated, over verbs (see hang.sh)
TRANSPORT=verbs exec sh "$(dirname "$0")/hang.sh"
