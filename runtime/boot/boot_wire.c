/*
 * boot_wire.c - helpers shared by the env bootstrap and rtopo-run.
 */
#include "config.h"
#include <errno.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include "boot_wire.h"

void rtopo__wire_mac(const char *secret, int role, int32_t rank,
                     const unsigned char *nonce_c,
                     const unsigned char *nonce_s,
                     unsigned char mac[RTOPO__WIRE_MAC])
{
    static const char *const labels[] = { "rtopo-boot server",
                                          "rtopo-boot client" };
    struct hmac_sha256_ctx ctx;
    unsigned char r[4];

    rtopo__wire_put32(r, (uint32_t)rank);
    hmac_sha256_set_key(&ctx, strlen(secret), (const uint8_t *)secret);
    /* the label's terminating NUL separates it from the rank */
    hmac_sha256_update(&ctx, strlen(labels[role]) + 1,
                       (const uint8_t *)labels[role]);
    hmac_sha256_update(&ctx, sizeof(r), r);
    hmac_sha256_update(&ctx, RTOPO__WIRE_NONCE, nonce_c);
    hmac_sha256_update(&ctx, RTOPO__WIRE_NONCE, nonce_s);
    hmac_sha256_digest(&ctx, RTOPO__WIRE_MAC, mac);
    memset(&ctx, 0, sizeof(ctx));
}

int rtopo__wire_mac_equal(const unsigned char *a, const unsigned char *b)
{
    return memeql_sec(a, b, RTOPO__WIRE_MAC);
}

int rtopo__wire_random(void *buf, size_t n)
{
    unsigned char *p = buf;
    ssize_t got;

    while (n > 0) {
        got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

void rtopo__wire_hex(const unsigned char *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;

    for (i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

const char *rtopo__wire_reason(uint32_t reason)
{
    switch (reason) {
    case RTOPO__WIRE_R_AUTH:      return "authentication failed";
    case RTOPO__WIRE_R_RANK:      return "rank out of range";
    case RTOPO__WIRE_R_DUPLICATE: return "rank already connected";
    case RTOPO__WIRE_R_PROTO:     return "protocol error";
    case RTOPO__WIRE_R_PEER:      return "a rank failed or left";
    case RTOPO__WIRE_R_MISMATCH:  return "ranks gave different sizes";
    default:                      return "unknown reason";
    }
}

int64_t rtopo__wire_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
