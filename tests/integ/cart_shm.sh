#!/bin/sh
TRANSPORT=ofi:shm exec sh "$(dirname "$0")/cart.sh"
