/*
 * boot_wire.h - the rendezvous protocol between rtopo-run and the env
 * bootstrap method, and the constructors of the bootstrap methods.
 *
 * Every message is a frame: type (u32), payload length (u32), payload;
 * integers big-endian.  A connection starts with a mutual challenge:
 *
 *   client -> HELLO     magic, version, rank, size, client nonce
 *   server -> CHALLENGE server nonce, MAC("server", rank, nonces)
 *   client -> AUTH      MAC("client", rank, nonces)
 *   server -> WELCOME   size             or REFUSE reason, text
 *
 * MAC is HMAC-SHA256 keyed with the job secret, so each side proves it
 * knows the secret without sending it; the role label keeps one side's
 * answer from being replayed as the other's.  The client checks the
 * server's MAC and the server the client's: a mismatch ends the
 * connection with RTOPO_ERR_AUTH.  Then:
 *
 *   client -> GATHER    seq, blob              (barrier: empty blob;
 *                                              blob <= RTOPO__WIRE_MAX_BLOB)
 *   server -> RESULT    seq, size * blob by rank
 *   server -> ABORT     seq, reason, rank      the round cannot complete
 *   server -> FAILED    rank                   a rank failed (any time)
 *   client -> BYE                              orderly close
 */
#ifndef RTOPO_BOOT_WIRE_H
#define RTOPO_BOOT_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "rtopo.h"
#include "boot.h"

#define RTOPO__WIRE_MAGIC    0x72746f70u   /* "rtop" */
#define RTOPO__WIRE_VERSION  1u
#define RTOPO__WIRE_HDR      8
#define RTOPO__WIRE_NONCE    32
#define RTOPO__WIRE_MAC      32            /* SHA256_DIGEST_SIZE */
#define RTOPO__WIRE_HELLO_LEN (16 + RTOPO__WIRE_NONCE)
#define RTOPO__WIRE_CHALLENGE_LEN (RTOPO__WIRE_NONCE + RTOPO__WIRE_MAC)
/* Frame sizes either side accepts, checked on the header before any
 * buffer is sized for the frame.  Before authentication frames are small
 * and fixed (HELLO 48, CHALLENGE 64, AUTH 32, WELCOME 4, REFUSE 4 + a
 * text of at most 200 bytes).  After it, the largest is an allgather
 * RESULT: seq + size * blob, and a blob (one rank's contribution to one
 * round) is at most RTOPO__WIRE_MAX_BLOB, far above what the runtime
 * exchanges (a transport address and a few parameters per rank).  At the
 * 4096 ranks rtopo-run starts, a RESULT stays under 256 MiB; a GATHER
 * under 64 KiB. */
#define RTOPO__WIRE_MAX_PREAUTH 256
#define RTOPO__WIRE_MAX_BLOB ((size_t)64 << 10)
#define RTOPO__WIRE_MAX_GATHER (4 + RTOPO__WIRE_MAX_BLOB)
#define RTOPO__WIRE_MAX_RESULT(nranks) (4 + (size_t)(nranks) * RTOPO__WIRE_MAX_BLOB)

enum {
    RTOPO__WIRE_HELLO = 1,
    RTOPO__WIRE_CHALLENGE,
    RTOPO__WIRE_AUTH,
    RTOPO__WIRE_WELCOME,
    RTOPO__WIRE_REFUSE,
    RTOPO__WIRE_GATHER,
    RTOPO__WIRE_RESULT,
    RTOPO__WIRE_ABORT,
    RTOPO__WIRE_FAILED,
    RTOPO__WIRE_BYE
};

/* REFUSE and ABORT reasons */
enum {
    RTOPO__WIRE_R_AUTH = 1,     /* authentication failed */
    RTOPO__WIRE_R_RANK,         /* rank out of range or size mismatch */
    RTOPO__WIRE_R_DUPLICATE,    /* rank already connected */
    RTOPO__WIRE_R_PROTO,        /* malformed or out-of-order frame */
    RTOPO__WIRE_R_PEER,         /* a rank failed or left before the round */
    RTOPO__WIRE_R_MISMATCH      /* ranks gave different allgather sizes */
};

enum { RTOPO__WIRE_ROLE_SERVER = 0, RTOPO__WIRE_ROLE_CLIENT = 1 };

static inline void rtopo__wire_put32(unsigned char *p, uint32_t v)
{
    p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static inline uint32_t rtopo__wire_get32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | p[3];
}

static inline void rtopo__wire_hdr(unsigned char *p, uint32_t type,
                                   uint32_t len)
{
    rtopo__wire_put32(p, type);
    rtopo__wire_put32(p + 4, len);
}

/* HMAC-SHA256(secret, label(role) | rank | client nonce | server nonce) */
void rtopo__wire_mac(const char *secret, int role, int32_t rank,
                     const unsigned char *nonce_c,
                     const unsigned char *nonce_s,
                     unsigned char mac[RTOPO__WIRE_MAC]);
/* constant-time comparison: 1 when equal */
int rtopo__wire_mac_equal(const unsigned char *a, const unsigned char *b);
/* n bytes from the kernel's random pool; -1 with errno on failure */
int rtopo__wire_random(void *buf, size_t n);
/* lowercase hex of n bytes into out (2n + 1 bytes) */
void rtopo__wire_hex(const unsigned char *in, size_t n, char *out);
const char *rtopo__wire_reason(uint32_t reason);
int64_t rtopo__wire_now_ms(void);

/* bootstrap methods, chosen by rtopo__boot_open() (boot.c) */
int rtopo__boot_env_open(int rank, int size, const char *addr,
                         const char *secret, int timeout_ms,
                         struct rtopo__boot **boot_p);
int rtopo__boot_oob_open(int rank, int size, rtopo_allgather_func_t fn,
                         void *arg, struct rtopo__boot **boot_p);
int rtopo__boot_pmix_open(int timeout_ms, struct rtopo__boot **boot_p);

#endif
