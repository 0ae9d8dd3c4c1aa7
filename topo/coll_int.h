/*
 * coll_int.h - what the schedule builders of the collectives share inside
 * topo/ (coll_build.c and one file per family of algorithms): the builder
 * state, registers, and the pieces one family borrows from another.  Not
 * for use outside topo/.
 *
 * The files stand in levels (topo/README.md), each calling only its own
 * and those below: the builder (coll_build.c) and the names
 * (coll_names.c); the families, each exporting the builders the
 * descriptor table points to (a family may build another's collective as
 * a phase of its own: the routings build a scan and a sort); the
 * reference (coll_ref.c); the descriptor table and the entries
 * rtopo__sched_coll and rtopo__coll_ref (coll_desc.c).
 */
#ifndef RTOPO_COLL_INT_H
#define RTOPO_COLL_INT_H

#include <stddef.h>
#include <stdint.h>
#include "rtopo_sched.h"

/* a register: buffer << 16 | index; its bytes are [index*M + off, +len) */
#define RG(buf, i) ((buf) << 16 | (i))
#define RSEND(i) RG(RTOPO__BUF_SEND, (i))
#define RRECV(i) RG(RTOPO__BUF_RECV, (i))
#define RTMP(i) RG(RTOPO__BUF_TMP, (i))
#define RNONE (-1)

struct rtopo__cb {         /* rtopo__cb_t (rtopo_sched.h) */
    const rtopo__tdesc_t *t;
    const rtopo__coll_t *c;
    int n, s;               /* OTIS: group size; OTIS-mesh side, cube dim */
    uint64_t M;             /* register bytes */
    uint64_t off, len;      /* this piece */
    uint32_t base;          /* first step of this piece */
    uint32_t maxstep;       /* of the hops */
    uint32_t ntmp;          /* TMP registers named */
    uint64_t tbase;         /* TMP offset of register 0 */
    rtopo__xnode_t *x;      /* compact, shapes in xs */
    rtopo__xshapes_t *xs;
    rtopo__hop_t *h;
    rtopo__knode_t *k;      /* compact, shapes in ks */
    rtopo__kshapes_t *ks;
    rtopo__kern_t kst;      /* the last kernel made, written out whole until
                               the next is made (k[nk - 1] then holds it) */
    int kopen;              /* 1: kst is not in k[nk - 1] yet */
    uint32_t nx, nh, nk, cx, ch, ck;
    int best;               /* routing sweeps: each rank keeps one record
                               (ROUTE BEST), not every one it is on */
    /* the share cut as nodes are made (rtopo__cb_cut): cut = r + 1 keeps
     * only the nodes that touch rank r; xid[i]: kept transfer i's number
     * among all nxall made; olast: 1 + the last step of a local node left
     * out (rtopo__sched_t's own, nxall, xid, olast); hopped: a hop was
     * made, kept or not */
    int cut, hopped;
    const uint8_t *cutset;  /* or, with cut: the ranks kept (bit r of
                               byte r/8), for rtopo__coll_path_lb */
    uint32_t nxall, olast, cxid;
    uint32_t *xid;
    int err;
};

/* a cube of labels P (links P <-> P ^ 2^k): an OTIS-hypercube group, or
 * the identity-embedded hypercube (one "group", CUBE_ID links) */
typedef struct rtopo__cube {
    int base;       /* rank of label 0 */
    int d;          /* dimension */
    int link;       /* RTOPO__LINK_CUBE or RTOPO__LINK_CUBE_ID */
} rtopo__cube_t;

/* the generic allreduce and scan for long vectors (reported as GENERIC) */
#define RTOPO__COLL_RSAG 3
#define RTOPO__COLL_CHAIN 4
/* the broadcast's flat tree (reported as GENERIC): a candidate where the
 * model prices the receiver's turn (tt > 0) */
#define RTOPO__COLL_FLAT 5

/* ---- builder primitives, phases (coll_build.c) */
/* one piece of a collective's program of algorithm algo, which the
 * builder runs once per piece of the registers */
typedef void rtopo__prog_fn(rtopo__cb_t *b, int algo);
int rtopo__phase_rebase(rtopo__sched_t *s, uint64_t soff, uint64_t roff,
                        uint64_t toff, uint32_t delay, int bare);
int rtopo__phase_then(rtopo__sched_t *a, rtopo__sched_t *b, unsigned flags,
                      rtopo__sched_t **out_p);
/* the same with alast, a's last step (rtopo__sched_last_step), known;
 * last_p (may be NULL; a and b whole graphs, neither a share): the
 * whole's last step */
int rtopo__phase_then_at(rtopo__sched_t *a, rtopo__sched_t *b, unsigned flags,
                         uint32_t alast, rtopo__sched_t **out_p, uint32_t *last_p);
uint32_t rtopo__sched_last_step(const rtopo__sched_t *s);
/* the schedule of prog's algorithm algo, cut into c->chunks pieces (0:
 * the model picks; 1, and always for RSAG: whole registers) */
int rtopo__coll_algo1(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      rtopo__prog_fn *prog, int algo, const rtopo__model_t *model,
                      rtopo__sched_t **s_p);
int rtopo__coll_build_one(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                          rtopo__prog_fn *prog, const rtopo__model_t *model,
                          rtopo__sched_t **s_p);
int rtopo__coll_build_cand(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           rtopo__prog_fn *prog, const rtopo__model_t *model,
                           int long_algo, rtopo__sched_t **s_p);
int rtopo__coll_choose(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                       rtopo__prog_fn *prog, const rtopo__model_t *model, const int *cand,
                       int ncand, rtopo__sched_t **s_p);
/* A lower bound of the simulated time of algorithm algo's whole graph
 * that a family knows from the algorithm's shape (a path every run goes
 * along, each node at least its least cost), given rank r's share of it
 * (0: none known).  The choice of a plan takes the larger of it and the
 * share's own bound (rtopo__sim_bound). */
typedef double rtopo__lb_fn(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                            rtopo__prog_fn *prog, const rtopo__model_t *model, int algo,
                            uint32_t pieces, const rtopo__sched_t *share);
/* A lower bound of the simulated time of prog's algorithm algo in
 * `pieces` pieces: the longest path, at the nodes' least costs (kernels
 * at none), through the nodes that touch the ranks of `set` (bit r of
 * byte r/8) along the edges on those ranks, a transfer joining its
 * sender's and its receiver's.  Built with the share cut (only those
 * nodes are kept), so its cost follows the set, not the job; 0 where
 * memory runs out.  prog must call rtopo__cb_cut. */
double rtopo__coll_path_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           rtopo__prog_fn *prog, int algo, uint32_t pieces,
                           const rtopo__model_t *model, const uint8_t *set);
/* The nodes of prog's algorithm algo in `pieces` pieces that touch the
 * ranks of `set` (bit r of byte r/8), and the edges on those ranks (those
 * on other ranks are not all there), into *s_p: what those ranks' shares
 * hold together, built with the cut.  prog must call rtopo__cb_cut. */
int rtopo__coll_build_ranks(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                            rtopo__prog_fn *prog, int algo, uint32_t pieces,
                            const uint8_t *set, rtopo__sched_t **s_p);
int rtopo__coll_build_cand_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              rtopo__prog_fn *prog, rtopo__lb_fn *lbf,
                              const rtopo__model_t *model, int long_algo,
                              rtopo__sched_t **s_p);
/* what rtopo__coll_choose_lb takes as candidate algo's bound in a plan
 * (c->own); -1 when it cannot be built */
double rtopo__coll_cand_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           rtopo__prog_fn *prog, rtopo__lb_fn *lbf,
                           const rtopo__model_t *model, int algo);
int rtopo__coll_choose_lb(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                          rtopo__prog_fn *prog, rtopo__lb_fn *lbf,
                          const rtopo__model_t *model, const int *cand, int ncand,
                          rtopo__sched_t **s_p);
/* The simulated time of algorithm algo's whole graph (rtopo__sim_run's
 * model_time, not a bound) where a family knows it from rank r's share
 * alone (c->own = r + 1; by the algorithm's symmetry, say), else -1.  The
 * choice then takes it as the candidate's time and never runs that
 * graph: a wrong time is a wrong choice, so a family answers only where
 * its algorithm's shape makes the time exact. */
typedef double rtopo__time_fn(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                              rtopo__prog_fn *prog, const rtopo__model_t *model, int algo,
                              uint32_t pieces, const rtopo__sched_t *share);
/* what rtopo__coll_choose_x takes as candidate algo's time from tf in a
 * plan (c->own); -1 where tf does not know it */
double rtopo__coll_cand_ex(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           rtopo__prog_fn *prog, rtopo__time_fn *tf,
                           const rtopo__model_t *model, int algo);
/* rtopo__coll_build_cand_lb and rtopo__coll_choose_lb with a family's
 * times (tf, may be NULL) */
int rtopo__coll_build_cand_x(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                             rtopo__prog_fn *prog, rtopo__lb_fn *lbf, rtopo__time_fn *tf,
                             const rtopo__model_t *model, int long_algo,
                             rtopo__sched_t **s_p);
int rtopo__coll_choose_x(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                         rtopo__prog_fn *prog, rtopo__lb_fn *lbf, rtopo__time_fn *tf,
                         const rtopo__model_t *model, const int *cand, int ncand,
                         rtopo__sched_t **s_p);
int rtopo__cb_sched(rtopo__cb_t *b, int algo, rtopo__sched_t **s_p);
/* A program that makes its nodes only through the builder's node calls
 * and never reads nor restamps a node once made calls this before its
 * first node: a plan's builder (c->own) then keeps only the nodes of its
 * rank as they are made, and the rank's time and memory follow its own
 * share, not the job's.  A program that restamps the steps of a round
 * after making it (the BPC permutations, the sort's rounds) makes that
 * round in a scratch builder and hands it over once stamped
 * (rtopo__cb_round), and cuts too. */
void rtopo__cb_cut(rtopo__cb_t *b);
/* A round made whole in *sc (an empty builder of b's shape keeping every
 * node: rtopo__cb_round), restamped there, then handed to b with
 * rtopo__cb_unround: its nodes in their order, kept or left out as b's
 * cut says, its steps and TMP registers taken into b's; sc's arrays
 * freed.  The round costs the whole round while it is made, the plan only
 * its share. */
void rtopo__cb_round(const rtopo__cb_t *b, rtopo__cb_t *sc);
void rtopo__cb_unround(rtopo__cb_t *b, rtopo__cb_t *sc);
void *rtopo__grow(void *p, uint32_t *cap, uint32_t need, size_t esz, int *err);
void rtopo__cb_acc(rtopo__cb_t *b, int rank, int sreg, int dreg, int have,
                   uint32_t step);
void rtopo__cb_comb(rtopo__cb_t *b, int rank, int sreg, int dreg, uint32_t step);
void rtopo__cb_copy(rtopo__cb_t *b, int rank, int sreg, int dreg, uint32_t step);
void rtopo__cb_kern(rtopo__cb_t *b, int type, int rank, int sreg, int dreg,
                    uint32_t step, int64_t arg);
void rtopo__cb_move(rtopo__cb_t *b, int from, int sreg, int to, int dreg,
                    uint32_t step, int link, int dim, int dir);
void rtopo__cb_route(rtopo__cb_t *b, int src, int sreg, int dst, int dreg,
                     uint32_t step0, const rtopo__hop_t *hops, uint32_t nh);
void rtopo__cb_step(rtopo__cb_t *b, uint32_t step);
/* transfer x appended to b's (compact: its shape interned); 0, or -1
 * once out of memory (b->err set) */
int rtopo__cb_xadd(rtopo__cb_t *b, const rtopo__xfer_t *x);
/* the last kernel made, still open to changes until the next is made */
rtopo__kern_t *rtopo__cb_lastk(rtopo__cb_t *b);
/* byte-addressed nodes of the routings (registers of whole records); k
 * as a schedule's ROUTE kernel op on records with RTOPO__RT_HDR headers */
void rtopo__rt_set(rtopo__kern_t *k, int r, int op, int sbuf, uint64_t soff, uint64_t slen,
                   int dbuf, uint64_t doff, uint64_t len, uint32_t step);
void rtopo__rt_copy(rtopo__cb_t *b, int rank, int sbuf, uint64_t soff, int dbuf,
                    uint64_t doff, uint64_t len, uint32_t step);
void rtopo__rt_kern(rtopo__cb_t *b, int rank, int op, unsigned flags, int sbuf,
                    uint64_t soff, uint64_t slen, int dbuf, uint64_t doff,
                    uint64_t dlen, int64_t arg, uint32_t step);

/* ---- OTIS group moves and the OTIS algorithms (coll_otis.c) */
int rtopo__gl_rank(const rtopo__cb_t *b, int G, int link, int fixed, int pos);
int rtopo__is_om(const rtopo__cb_t *b);
uint32_t rtopo__cube_bcast(rtopo__cb_t *b, const rtopo__cube_t *q, int P0, int sreg,
                           int dreg, uint32_t t0);
/* rtopo__cube_scan's flags: the last round both ways too; tot not needed
 * after the scan (no combine into it in the last round) */
#define RTOPO__CSCAN_DOWN 1
#define RTOPO__CSCAN_NOTOT 2
uint32_t rtopo__cube_scan(rtopo__cb_t *b, const rtopo__cube_t *q, int val, int inc,
                          int exc, int tot, int in0, int flags, uint32_t t0);
uint32_t rtopo__cube_sum(rtopo__cb_t *b, const rtopo__cube_t *q, int val, int out,
                         int in0, uint32_t t0);
void rtopo__gl_hop(rtopo__cb_t *b, int G, int link, int fixed, int from, int sreg,
                   int to, int dreg, uint32_t step);
void rtopo__oh_scan(rtopo__cb_t *b);
void rtopo__om_scan(rtopo__cb_t *b);
void rtopo__otis_allreduce(rtopo__cb_t *b);
void rtopo__otis_bcast(rtopo__cb_t *b);
void rtopo__otis_move(rtopo__cb_t *b, int G, int P, int sreg, int dreg, uint32_t step);
void rtopo__otis_window(rtopo__cb_t *b);
int rtopo__window_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                        const rtopo__model_t *model, rtopo__sched_t **s_p);

/* ---- generic algorithms on any topology (coll_generic.c) */
void rtopo__gen_allreduce(rtopo__cb_t *b);
void rtopo__gen_allreduce_rsag(rtopo__cb_t *b);
void rtopo__gen_bcast(rtopo__cb_t *b);
void rtopo__gen_bcast_flat(rtopo__cb_t *b);
void rtopo__gen_scan(rtopo__cb_t *b);
void rtopo__gen_scan_chain(rtopo__cb_t *b);
/* the broadcast, allreduce and scan: the OTIS algorithm and the generic
 * ones, the fastest under the model as c->algo allows */
int rtopo__bcast_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                       const rtopo__model_t *model, rtopo__sched_t **s_p);
int rtopo__allreduce_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                           const rtopo__model_t *model, rtopo__sched_t **s_p);
int rtopo__scan_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      const rtopo__model_t *model, rtopo__sched_t **s_p);

/* ---- line operations (coll_line.c) */
int rtopo__line_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      const rtopo__model_t *model, rtopo__sched_t **s_p);

/* ---- selection and routing (coll_route.c; the nodes: coll_build.c) */
/* a routing's TMP slots, their offsets, and TMP as a buffer */
enum { RT_H = 0, RT_H1, RT_TP, RT_TM, RT_IP, RT_IM, RT_S, RT_X, RT_NREG };
#define RTA(b, r) ((b)->tbase + (uint64_t)(r) * (b)->M)
#define RT_T RTOPO__BUF_TMP
int rtopo__sched_route(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                       const rtopo__model_t *model, rtopo__sched_t **s_p);

/* ---- BPC permutations and pair routes (coll_bpc.c) */
uint32_t rtopo__pair_route(const rtopo__cb_t *b, int r, int d, rtopo__hop_t *h,
                           uint32_t *lead_p);
uint32_t rtopo__ph_align(rtopo__cb_t *b, uint32_t x0, uint32_t first);
/* A round of transfers from step t + 1 on (copies where src == dst), on
 * an OTIS topology all routes of the one shape (through (G, G') or
 * through (P, G)) that takes fewer SIMD moves, in phases (leg, link
 * class) each as long as its longest run; DIRECT hops elsewhere.
 * Returns the steps the round's hops take. */
typedef struct rtopo__px {
    int src, dst;
    uint8_t sbuf, dbuf;
    uint64_t soff, doff, len;
} rtopo__px_t;
uint32_t rtopo__pr_round(rtopo__cb_t *b, const rtopo__px_t *x, uint32_t nx, uint32_t t);
/* the longest least time under m (a routed transfer alone on its links,
 * as rtopo__sim charges it) of the routes rtopo__pr_round would make for
 * x[0..nx), nothing made; each (or NULL): every transfer's */
double rtopo__pr_round_least(const rtopo__cb_t *b, const rtopo__px_t *x, uint32_t nx,
                             const rtopo__model_t *m, double *each);
int rtopo__bpc_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                     const rtopo__model_t *model, rtopo__sched_t **s_p);

/* ---- sort (coll_sort.c) */
int rtopo__sort_nrows(const rtopo__tdesc_t *t);
uint64_t rtopo__sort_rows_kk(uint64_t k, int R);
void rtopo__sort_ms_prog(rtopo__cb_t *b);
void rtopo__sort_prog(rtopo__cb_t *b);
void rtopo__sort_rows_prog(rtopo__cb_t *b, int R);
/* the sort's own argument checks (the descriptor's check) and builder */
int rtopo__sort_check(const rtopo__tdesc_t *t, const rtopo__coll_t *c);
int rtopo__sort_build(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                      const rtopo__model_t *model, rtopo__sched_t **s_p);

/* ---- each collective's own checks and serial reference (coll_ref.c);
 * the descriptor's ref_check and ref; rtopo__coll_ref (coll_desc.c) has
 * checked the arguments all share ---- */
#define RTOPO__REF_CHECK(f) \
    int f(const rtopo__tdesc_t *t, const rtopo__coll_t *c, int *E_p)
#define RTOPO__REF(f)                                                       \
    int f(const rtopo__tdesc_t *t, const rtopo__coll_t *c,                  \
          uint8_t *const *const *bufs, uint8_t *const *out, uint64_t m, int E)
RTOPO__REF_CHECK(rtopo__ref_bcast_check);
RTOPO__REF_CHECK(rtopo__ref_bpc_check);
RTOPO__REF_CHECK(rtopo__ref_sort_check);
RTOPO__REF_CHECK(rtopo__ref_window_check);
RTOPO__REF_CHECK(rtopo__ref_fill_check);      /* dim */
RTOPO__REF_CHECK(rtopo__ref_blocks_check);    /* dim, 1 <= M <= E */
RTOPO__REF_CHECK(rtopo__ref_tiles_check);     /* dim, M divides E */
RTOPO__REF(rtopo__ref_routing);
RTOPO__REF(rtopo__ref_bcast);
RTOPO__REF(rtopo__ref_bpc);
RTOPO__REF(rtopo__ref_sorted);
RTOPO__REF(rtopo__ref_window);
RTOPO__REF(rtopo__ref_scan);
RTOPO__REF(rtopo__ref_allreduce);
RTOPO__REF(rtopo__ref_shift_fill);
RTOPO__REF(rtopo__ref_accumulate);
RTOPO__REF(rtopo__ref_adjacent_sum);
RTOPO__REF(rtopo__ref_consec_sum);
/* a routing's output got (got[r]: 1 where a record lands) */
int rtopo__ref_got(const rtopo__tdesc_t *t, const rtopo__coll_t *c,
                   uint8_t *const *const *bufs, int32_t *got);

#endif
