#!/bin/sh
TRANSPORT=ofi:tcp exec sh "$(dirname "$0")/cart.sh"
