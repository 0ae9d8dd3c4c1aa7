# hosts_lib.sh - sourced by the tests/integ/hosts_*.sh tests of rtopo-run
# --hosts (emulated hosts in namespaces).  Run from the top of the build
# tree (as make check does); set top_builddir to run them from elsewhere.
# They need root (network, mount and UTS namespaces, veth, bridge): they
# are skipped (exit 77) with the reason elsewhere.
builddir=${top_builddir:-.}
RUN=$builddir/tools/rtopo-run
CHECK=$builddir/tests/integ/hosts_check
if [ ! -x "$RUN" ] || [ ! -x "$CHECK" ]; then
    echo "$RUN or $CHECK is not built (set top_builddir)"
    exit 99
fi
unset RTOPO_RANK RTOPO_SIZE RTOPO_BOOT_ADDR RTOPO_JOB_SECRET RTOPO_BOOT \
      RTOPO_HOST_ID RTOPO_TRANSPORT
export RTOPO_TIMEOUT_MS=30000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
info=$tmp/info

fail() {
    echo "FAIL: $*"
    echo "---- output of the last job"
    cat "$out"
    exit 1
}

# One hosts test at a time on the machine, whichever build tree it runs
# from: the leftover check knows a namespace by its inode number, which
# the kernel hands to the next namespace made once the old one is gone, so
# a job of another hosts test running meanwhile would look like a leftover
# of this one.  The wait is bounded (the others' length; each is bounded
# itself).
hosts_lock=${TMPDIR:-/tmp}/rtopo-hosts-tests.lock
exec 9>>"$hosts_lock"
if ! flock -w 1800 9; then
    echo "FAIL: another hosts test held $hosts_lock for 30 minutes"
    exit 1
fi

# skipped where the namespaces cannot be made
if [ "$(id -u)" != 0 ]; then
    echo "emulated hosts need root (namespaces, veth, bridge): skipped"
    exit 77
fi
if ! timeout 20 "$RUN" -n 1 --hosts 1 true > "$out" 2>&1; then
    cat "$out"
    echo "rtopo-run --hosts 1 does not run here: skipped"
    exit 77
fi
if grep -q 'emulating the hosts by RTOPO_HOST_ID only' "$out"; then
    sed 's/^/    /' "$out"
    echo "no namespaces for the emulated hosts here: skipped"
    exit 77
fi

netns_before=$(ip netns list 2>/dev/null)

# leftover: after a job, none of its namespaces, interfaces or shared
# memory may remain.  Uses $info of the job (written while it ran) and the
# namespace inodes that ns_record noted.
ns_record() {
    ns_seen=
    for p in $(awk '$1 == "switch" { print $2 } $1 == "host" { print $4 }' "$info"); do
        for t in net mnt uts; do
            ns_seen="$ns_seen $(readlink "/proc/$p/ns/$t" 2>/dev/null)"
        done
    done
}

leftover() {
    [ "$(ip netns list 2>/dev/null)" = "$netns_before" ] ||
        fail "leftover: ip netns list changed: $(ip netns list)"
    if ip -o link show | awk -F': ' '{ print $2 }' | grep -Eq '^(rtbr0|rth[0-9]+)(@|$)'; then
        fail "leftover: the job's bridge or veth in the machine's namespace: $(ip -o link show)"
    fi
    live=$(readlink /proc/[0-9]*/ns/net /proc/[0-9]*/ns/mnt /proc/[0-9]*/ns/uts 2>/dev/null | sort -u)
    for ns in $ns_seen; do
        if printf '%s\n' "$live" | grep -qxF "$ns"; then
            who=
            for d in /proc/[0-9]*; do
                for t in net mnt uts; do
                    [ "$(readlink "$d/ns/$t" 2>/dev/null)" = "$ns" ] &&
                        who="$who ${d#/proc/}:$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)"
                done
            done
            fail "leftover: namespace $ns of the job is still in use by:$who"
        fi
    done
    for p in $(awk '$1 == "rank" { print $4 }' "$info"); do
        for f in /dev/shm/*-"$p" /dev/shm/"$p":*; do
            [ -e "$f" ] && fail "leftover: $f in the machine's /dev/shm"
        done
    done
    return 0
}

# wait_lines PATTERN COUNT SEC: until $out has COUNT lines matching PATTERN
wait_lines() {
    _w=0
    while [ "$(grep -c -- "$1" "$out")" -lt "$2" ]; do
        _w=$((_w + 1))
        [ "$_w" -gt $(( $3 * 10 )) ] && return 1
        sleep 0.1
    done
    return 0
}

# hosts_run SEC RTOPO-RUN-ARGS...: one job, rtopo-run RTOPO-RUN-ARGS with
# --hosts-info and a timeout of SEC - 20 s (the whole job is killed after
# SEC); the ranks' output in $out, its namespaces noted for the leftover
# check once a rank has printed, exit status in $rc
hosts_run() {
    _sec=$1
    shift
    rm -f "$info"
    : > "$out"
    timeout "$_sec" "$RUN" --timeout $(( _sec - 20 )) --hosts-info "$info" "$@" \
        > "$out" 2>&1 &
    _job=$!
    wait_lines '^\[' 1 60
    [ -s "$info" ] && ns_record
    rc=0
    wait $_job || rc=$?
    [ -s "$info" ] || fail "rtopo-run wrote no --hosts-info"
}

# host_of N H R: the host of rank R (contiguous blocks, rtopo-run(1))
host_of() {
    awk -v n="$1" -v h="$2" -v r="$3" 'BEGIN {
        b = int(n / h); e = n % h
        print (r < e * (b + 1)) ? int(r / (b + 1)) : e + int((r - e * (b + 1)) / b) }'
}
