/*
 * params.h - the one table of RTOPO_* environment variables.
 *
 * Each row: name (without the RTOPO_ prefix), type, default, help.
 * Read once at rtopo_init() (rtopo__params_load), printed by rtopo-info,
 * listed in rtopo(7); unknown RTOPO_* names in the environment are warned
 * about.  Add a variable here and nowhere else; the range of a numeric
 * one goes into the bounds table of params.c (and its help text here).
 *
 * Numbers are decimal: a leading zero or 0x is refused, not read as octal
 * or hexadecimal.  A SIZE may end in k, m or g (KiB, MiB, GiB).
 */
#ifndef RTOPO_PARAMS_H
#define RTOPO_PARAMS_H

#include <stddef.h>

/* XX(NAME, field, type, default, help); type is STR, INT (a decimal that
 * fits in an int) or SIZE (a byte count) */
#define RTOPO_PARAMS_MAP(XX)                                                  \
    XX(TRANSPORT, transport, STR, "auto",                                     \
       "transport: auto, shm, ofi (= ofi:rxm), ofi:rxm, ofi:tcp, ofi:shm, "   \
       "ofi:<libfabric provider string>, or verbs")                            \
    XX(TIMEOUT_MS, timeout_ms, INT, "60000",                                  \
       "time limit of one operation (and of bootstrap steps), in ms: "        \
       "decimal, 1 to 2147483647; expiry gives RTOPO_ERR_TIMEOUT")             \
    XX(EAGER_LIMIT, eager_limit, SIZE, "8192",                                \
       "transfers up to this many bytes travel inside one control message "  \
       "(copied through pre-registered receive buffers, no handshake); "      \
       "larger ones are written straight into the receiver's window; "        \
       "decimal bytes with optional k, m, g, 0 to 1m; unset: 64k over "       \
       "libfabric's tcp provider, rxm's eager limit less 48 over rxm "        \
       "(16336), 64k with transport auto on one machine running more "        \
       "ranks than its processors (16 ranks at most), with auto across "      \
       "hosts the network backend's (64k over tcp)")                          \
    XX(CHUNK_SIZE, chunk_size, SIZE, "262144",                               \
       "pipeline chunk for staged and multi-hop transfers: decimal bytes "    \
       "with optional k, m, g, 4k to 1g")                                      \
    XX(PIPELINE_DEPTH, pipeline_depth, INT, "4",                              \
       "chunks in flight per hop of a staged or forwarded transfer: "         \
       "decimal, 1 to 64")                                                     \
    XX(SPIN_US, spin_us, INT, "50",                                           \
       "busy-poll the completion queue this long before blocking, in "        \
       "microseconds: decimal, 0 to 1000000")                                  \
    XX(WAIT, wait, STR, "block",                                              \
       "how a waiting rank waits: block (poll for RTOPO_SPIN_US, then "       \
       "sleep in the transport) or poll (never sleep, as MPI libraries do "   \
       "by default: for one rank per core; the libfabric transports then "    \
       "keep no kernel wait object, whose upkeep costs the socket providers " \
       "up to 1 us per small operation)")                                     \
    XX(REG_PER_OP, reg_per_op, STR, "auto",                                   \
       "unregistered buffers of at least this many bytes are registered "     \
       "for each operation (zero-copy) instead of copied through staging "    \
       "buffers: auto (shared memory and the socket providers: every size; "  \
       "transports that pin memory, such as verbs: the smallest of 64k, "    \
       "256k and 1m at which registering measured faster than a copy when "   \
       "the context started, or none), off, or decimal bytes with optional " \
       "k, m, g, 1 or more")                                                  \
    XX(REG_CACHE, reg_cache, STR, "auto",                                     \
       "keep the registrations made for unregistered buffers (RTOPO_REG_PER_OP) "\
       "for the next operation on the same buffer, dropping each as soon as " \
       "its memory is unmapped or discarded (the kernel's userfaultfd "        \
       "reports it): auto (on where userfaultfd works, up to physical "       \
       "memory / processors / 2 bytes and 1024 registrations), off, or the "  \
       "limit in decimal bytes with optional k, m, g")                        \
    XX(PROGRESS, progress, STR, "off",                                        \
       "progress thread: off, or thread (a thread that sleeps in the "        \
       "transport's wait and drives nonblocking operations while the "        \
       "caller computes; it blocks, never spins)")                            \
    XX(CHECK_BUFFERS, check_buffers, INT, "0",                                \
       "0 or 1; 1: checksum each operation's send data at start and at "      \
       "completion and fail with RTOPO_ERR_INVAL when the caller changed "    \
       "it while the operation was in flight (debugging aid; costs a pass "   \
       "over the data)")                                                       \
    XX(SHIFT_ALGO, shift_algo, STR, "auto",                                   \
       "force the circular shift algorithm: auto, ring, mesh, hypercube, "    \
       "ecube, direct")                                                        \
    XX(SCATTER_ALGO, scatter_algo, STR, "auto",                               \
       "force the windowed scatter's strategy: auto, seq, binomial, "         \
       "seqscatter[:X] or decremental[:X] (X: block dimension; without it "   \
       "the cost model picks X)")                                              \
    XX(COLL_ALGO, coll_algo, STR, "auto",                                     \
       "algorithm of broadcast, allreduce and scan: auto (the cost model "    \
       "picks), topo (the topology's own: on OTIS topologies Wang and "       \
       "Sahni's), generic (binomial tree, recursive doubling)")               \
    XX(PLACE, place, STR, "auto",                                              \
       "placement of a new topology's ranks on the job's hosts: auto (where " \
       "the hosts' sizes allow host placement, by host or by rank, whichever "\
       "costs the topology's links less under the cost model, a tie by "     \
       "host; else by rank), rank (topology rank = job rank), host (by "      \
       "host: OTIS groups, mesh rows, hypercube sub-cubes, ring stretches "   \
       "on one host each; topology "                                          \
       "creation fails with RTOPO_ERR_INVAL where the sizes do not allow "   \
       "it); every rank must give the same")                                  \
    XX(MODEL, model, STR, "auto",                                              \
       "cost model of the auto choices: auto (measure the transport when "    \
       "a topology is created, once per kind of rank pair: intra-host, "      \
       "inter-host, host link; ts from 8-byte round trips (the median), "     \
       "tw from streams of 4 x 256 KiB, warmed up first (the shortest "       \
       "of many runs); with more ranks than processors on a "                 \
       "machine, ts from 16 eager sends in a row, tt (the receiver's turn) "  \
       "from the rest of the round trip and then from a burst among all "    \
       "ranks, lanes at most its processors; tk from a reduction, local.ts "  \
       "and local.tw from a copy "                                            \
       "on label 0), default (the built-in "                                  \
       "constants), "                                                         \
       "KEY=VALUE,... over those constants: ts, tw, th (5us, 1ns), bw (10G), " \
       "chunk, ports, lanes, hostlinks, tk (time per byte a kernel touches), "\
       "tq (time every message pays), tt (time a message takes to land "     \
       "for its receiver's turn, its sender free), eager (bytes: with tt, "  \
       "a longer transfer's sender waits for the turn too), "                 \
       "with an optional link class prefix "                                  \
       "(host.ts=2us) or reach prefix (intra.ts=1us, inter.bw=100M), or "     \
       "auto,KEY=VALUE,... (measure what the list does not set); every rank " \
       "must give the same")                                                  \
    XX(LOG_LEVEL, log_level, STR, "warn",                                     \
       "log verbosity: error, warn, info, debug, trace (any other: error)")  \
    XX(RANK, rank, INT, "-1",                                                 \
       "this process's rank: decimal, -1 (none) to 2147483647 (set by "       \
       "rtopo-run)")                                                           \
    XX(SIZE, size, INT, "0",                                                  \
       "number of ranks: decimal, 0 (none) to 2147483647 (set by "            \
       "rtopo-run)")                                                           \
    XX(BOOT_ADDR, boot_addr, STR, "",                                         \
       "host:port of the launcher's rendezvous (set by rtopo-run)")           \
    XX(JOB_SECRET, job_secret, STR, "",                                       \
       "per-job secret authenticating bootstrap connections (set by "         \
       "rtopo-run)")                                                           \
    XX(BOOT, boot, STR, "auto",                                               \
       "bootstrap method: auto, env (rtopo-run), pmix, oob (the allgather "   \
       "callback of rtopo_config_t), single")                                 \
    XX(HOST_ID, host_id, STR, "",                                             \
       "host identity of this rank (default: the host name; rtopo-run "      \
       "--hosts sets it per emulated host)")                                  \
    XX(SHM_RING_SIZE, shm_ring_size, SIZE, "65536",                           \
       "shm transport: bytes of the ring each rank keeps for each peer's "    \
       "control messages and small writes (rounded up to a power of two, "    \
       "and up to four of the largest control messages): decimal bytes with " \
       "optional k, m, g, 64k to 1g; the shared segment of a rank holds one " \
       "ring per rank of the job; every rank must give the same")             \
    XX(VERBS_SQ_DEPTH, verbs_sq_depth, INT, "256",                            \
       "verbs transport: send work requests in flight per connection (at "    \
       "most what the device allows): decimal, 16 to 2048")                   \
    XX(VERBS_INJECT_MAX, verbs_inject_max, SIZE, "4096",                    \
       "verbs transport: writes up to this many bytes (or up to the largest " \
       "control message, if larger) are copied into pinned bounce buffers "   \
       "when posted, so the caller may reuse the source at once; 256 such "   \
       "buffers are pinned per process: decimal bytes with optional k, m, "   \
       "g, 1k to 64k")

/* RTOPO__P_<NAME>: the row of each variable, its bit in from_env */
enum {
#define RTOPO__PINDEX(N, f, t, d, h) RTOPO__P_##N,
    RTOPO_PARAMS_MAP(RTOPO__PINDEX)
#undef RTOPO__PINDEX
    RTOPO__P_COUNT
};

typedef struct rtopo__params {
    /* bit RTOPO__P_<NAME> set: the variable was set (not empty) in the
     * environment, so its value is the user's, not the default */
    unsigned long long from_env;
#define RTOPO__PFIELD_STR(f) const char *f;
#define RTOPO__PFIELD_INT(f) long f;
#define RTOPO__PFIELD_SIZE(f) size_t f;
#define RTOPO__PFIELD(N, f, t, d, h) RTOPO__PFIELD_##t(f)
    RTOPO_PARAMS_MAP(RTOPO__PFIELD)
#undef RTOPO__PFIELD
} rtopo__params_t;

/* Whether variable NAME (without the RTOPO_ prefix) came from the
 * environment, in a table filled by rtopo__params_load. */
#define RTOPO__PARAM_FROM_ENV(p, NAME) (((p)->from_env >> RTOPO__P_##NAME) & 1)

/* Fill *p from the environment; returns RTOPO_ERR_INVAL on a malformed value. */
int rtopo__params_load(rtopo__params_t *p);

/* Warns once about RTOPO_* variables that are not in the table. */
void rtopo__params_warn_unknown(void);

/* The range of a numeric variable (name with the RTOPO_ prefix): 1 with
 * *min and *max set, 0 when it has none of its own (an INT must still fit
 * in an int). */
int rtopo__params_bounds(const char *name, long long *min, long long *max);

/* Iterate the table (for rtopo-info): returns 0 past the last row. */
int rtopo__params_row(int i, const char **name, const char **type,
                      const char **def, const char **help);

#endif
