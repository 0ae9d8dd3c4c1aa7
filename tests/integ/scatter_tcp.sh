#!/bin/sh
TRANSPORT=ofi:tcp exec sh "$(dirname "$0")/scatter.sh"
