#!/bin/sh
# the same on verbs; skipped without a device
TRANSPORT=verbs exec sh "$(dirname "$0")/shift_concurrent.sh"
