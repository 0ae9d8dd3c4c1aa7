#!/bin/sh
# failure handling on verbs; skipped without a device
TRANSPORT=verbs exec sh "$(dirname "$0")/shift_errors.sh"
