#!/bin/sh
# The test driver of make check: config/test-driver, except that when
# CHECK_SUBSET is "smoke" (make distcheck sets it through configure) a
# test not named in SMOKE_TESTS (tests/Makefile.include) is reported as
# skipped without running, and the unit tests run the suites named in
# SMOKE_UNIT only (every unit test ran on the same sources in the
# build's own make check, or in CI's make check-sanitize).
# CHECK_UNIT=quick (.ci/run sets it) runs the unit tests' quick suites
# only, in any subset: every suite runs in the same CI run's make
# check-sanitize, on the same sources with UBSan, where the unit tests
# are the longest part.  Arguments: those of test-driver.
name=
prev=
for a; do
    [ "$prev" = --test-name ] && name=$a
    prev=$a
done
if [ "${CHECK_SUBSET:-}" = smoke ] || [ "${CHECK_UNIT:-}" = quick ]; then
    # shellcheck disable=SC2086
    [ "$name" != tests/unit/test_unit ] || set -- "$@" $SMOKE_UNIT
fi
if [ "${CHECK_SUBSET:-}" = smoke ]; then
    case " $SMOKE_TESTS " in
    *" $name "*) ;;
    *)
        # keep the options, replace the command
        n=$#
        for a; do
            [ "$a" = -- ] && break
            set -- "$@" "$a"
        done
        shift "$n"
        set -- "$@" -- sh -c 'echo "not in the smoke subset (CHECK_SUBSET=smoke)"; exit 77'
        ;;
    esac
fi
exec "$(dirname "$0")/../config/test-driver" "$@"
