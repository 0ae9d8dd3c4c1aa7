/*
 * fuzz_common.h - what the libFuzzer harnesses of tests/fuzz share: a
 * reader over the fuzzer's input, the check that turns a broken
 * invariant into a crash the fuzzer records, the harness's own log, and
 * the writer of seed inputs.  (The two control-message harnesses also
 * share an in-memory transport and its helpers: fuzz_tl.h.)
 *
 * An input is consumed front to back; once it is exhausted every read
 * gives zeros, so any byte string is a valid input.
 */
#ifndef RTOPO_FUZZ_COMMON_H
#define RTOPO_FUZZ_COMMON_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct fz_in {
    const uint8_t *p;
    size_t n;
} fz_in_t;

static inline int fz_left(const fz_in_t *in)
{
    return in->n > 0;
}

static inline uint32_t fz_u8(fz_in_t *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

static inline uint32_t fz_u16(fz_in_t *in)
{
    uint32_t v = fz_u8(in);

    return v | fz_u8(in) << 8;
}

static inline uint32_t fz_u32(fz_in_t *in)
{
    uint32_t v = fz_u16(in);

    return v | fz_u16(in) << 16;
}

/* copies up to len bytes of the input into buf, zero-filling the rest */
static inline void fz_bytes(fz_in_t *in, void *buf, size_t len)
{
    size_t k = len < in->n ? len : in->n;

    memcpy(buf, in->p, k);
    memset((uint8_t *)buf + k, 0, len - k);
    in->p += k;
    in->n -= k;
}

/* An invariant of the code under test does not hold: that is a finding,
 * reported as a crash (abort) with the reason. */
#define FZ_CHECK(cond, ...)                                                   \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "fuzz check failed at %s:%d: %s: ", __FILE__,     \
                    __LINE__, #cond);                                         \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* ---- the harness's account of what an input does ---------------------- */

/* set by fz_init when FUZZ_LOG_LEVEL is (one per harness source file) */
static int fz_debug __attribute__((unused));
#define FZ_DEBUG(...)                                                         \
    do {                                                                      \
        if (fz_debug)                                                         \
            fprintf(stderr, "fuzz: " __VA_ARGS__);                            \
    } while (0)

/* ---- seed inputs ---------------------------------------------------------- */

/* Each harness builds its seed inputs (tests/fuzz/corpus/NAME) with the
 * helpers below, from the structures of the code it tests, so that they
 * follow its input format and the wire formats as both change. */
typedef struct fz_seed {
    uint8_t b[4096];
    size_t n;
} fz_seed_t;

static inline void fz_put(fz_seed_t *s, const void *p, size_t n)
{
    FZ_CHECK(s->n + n <= sizeof(s->b), "seed too long");
    if (n)
        memcpy(s->b + s->n, p, n);
    s->n += n;
}

static inline void fz_put8(fz_seed_t *s, uint32_t v)
{
    uint8_t b = (uint8_t)v;

    fz_put(s, &b, 1);
}

static inline void fz_put16(fz_seed_t *s, uint32_t v)
{
    fz_put8(s, v & 0xff);
    fz_put8(s, v >> 8);
}

/* what fz_u16 and fz_bytes read back: the length, a header, its payload */
static inline void fz_put_len_bytes(fz_seed_t *s, const void *hdr, size_t hlen,
                                    const void *payload, size_t plen)
{
    fz_put16(s, (uint32_t)(hlen + plen));
    fz_put(s, hdr, hlen);
    fz_put(s, payload, plen);
}

static inline void fz_seed_write(const char *dir, const char *name, const fz_seed_t *s)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "wb");
    FZ_CHECK(f, "%s: %s", path, strerror(errno));
    FZ_CHECK(fwrite(s->b, 1, s->n, f) == s->n && fclose(f) == 0, "%s: %s", path,
             strerror(errno));
}

/* LLVMFuzzerInitialize's common part.  With FUZZ_SEEDS_DIR=DIR in the
 * environment, writes the harness's seed inputs into DIR and exits.
 * Otherwise returns FUZZ_LOG_LEVEL (NULL when unset: quiet), and sets
 * fz_debug when it is set. */
static inline const char *fz_init(void (*write_seeds)(const char *dir))
{
    const char *seeds = getenv("FUZZ_SEEDS_DIR");
    const char *level = getenv("FUZZ_LOG_LEVEL");

    if (seeds) {
        FZ_CHECK(mkdir(seeds, 0777) == 0 || errno == EEXIST, "%s: %s", seeds,
                 strerror(errno));
        write_seeds(seeds);
        exit(0);
    }
    fz_debug = level != NULL;
    return level;
}

#endif
