#!/bin/sh
# selection ranks and routing over rtopo's own shm (see route.sh)
TRANSPORT=shm exec sh "$(dirname "$0")/route.sh"
