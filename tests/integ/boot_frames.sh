#!/bin/sh
# Bootstrap frames are bounded by what the protocol needs, checked on the
# header before any buffer is sized for them:
#  - rtopo-run closes the connection of a rank (one that knows the secret)
#    that announces a 256 MiB GATHER frame;
#  - a rank refuses a frame larger than a handshake frame from a launcher
#    that has not authenticated itself yet (a 1 GiB CHALLENGE), and a
#    RESULT larger than size * 64 KiB from one that has.
. "$(dirname "$0")/boot_lib.sh"

run "$RUN" -n 1 "$CHECK" bigframe
expect_grep '^\[0\] joined the rendezvous by hand$'
expect_grep '^rtopo-run: frame of 268435456 bytes from rank 0 \(at most 65540 expected\); closing its bootstrap connection$'
expect_grep '^\[0\] bigframe: the launcher closed the connection [0-9]+ ms after a frame header of 268435456 bytes$'
# the rank left without a goodbye: a failure of the job
expect_rc 1

run "$CHECK" fake preauth
expect_rc 0
expect_grep '^fake: the rank got RTOPO_ERR_BOOTSTRAP \(frame of 1073741823 bytes from the bootstrap address before authentication \(at most 256 expected\)\) after [0-9]+ ms$'
expect_grep '^fake preauth: the rank refused the frame$'

run "$CHECK" fake postauth
expect_rc 0
expect_grep '^fake: the rank joined$'
expect_grep '^fake: the rank got RTOPO_ERR_BOOTSTRAP \(frame of 16777216 bytes from rtopo-run \(at most 65540 expected\)\) after [0-9]+ ms$'
expect_grep '^fake postauth: the rank refused the frame$'
exit 0
