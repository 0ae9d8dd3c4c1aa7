/*
 * sim_hosts.c - rtopo-sim's hosts and the counts by reach (sim_hosts.h).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_place.h"
#include "sim_hosts.h"

const char sim_hosts_usage[] =
"  --hosts H       the ranks run on H hosts, in blocks (the first p mod H\n"
"                  hosts one rank more) or round robin (--map-by host)\n"
"  --host-map L    the host of every job rank, comma-separated numbers\n"
"                  (0,0,1,1,...: p of them)\n"
"  --map-by M      slot (default: blocks) or host (rank r on host r mod H)\n"
"  --place P       labels on ranks: auto (default, as RTOPO_PLACE: by host\n"
"                  or by rank, whichever costs the links less under the\n"
"                  model, where the hosts' sizes allow), rank, host (an\n"
"                  error where they do not); the model's layout follows,\n"
"                  and the output adds moves and bytes by link class,\n"
"                  intra- and inter-host\n";

static int sim_hosts_bad(const char *fmt, const char *arg)
{
    return sim_bad(fmt, arg);
}

int sim_hosts_setup(sim_hosts_t *h, const rtopo__tdesc_t *t, rtopo__model_t *m)
{
    int p = t->p, r, k, rr = 0, st, *base = NULL;
    long v;

    if (!h->have_hosts && !h->host_map) {
        if (h->map_by || h->place)
            return sim_hosts_bad("--map-by and --place need --hosts H or --host-map L%s", "");
        return -1;
    }
    if (h->have_hosts && h->host_map)
        return sim_hosts_bad("give --hosts or --host-map, not both%s", "");
    if (h->map_by) {
        if (strcmp(h->map_by, "slot") && strcmp(h->map_by, "host"))
            return sim_hosts_bad("--map-by '%s': slot or host", h->map_by);
        if (h->host_map)
            return sim_hosts_bad("--map-by goes with --hosts, not --host-map%s", "");
        rr = !strcmp(h->map_by, "host");
    }
    h->mode = RTOPO__PLACE_AUTO;
    if (h->place && (h->mode = rtopo__place_parse(h->place)) < 0)
        return sim_hosts_bad("--place '%s': rank, host or auto", h->place);
    if (h->have_hosts && h->hosts > p) {
        fprintf(stderr, "rtopo-sim: --hosts %ld: more hosts than the %d ranks\n", h->hosts, p);
        return 2;
    }
    h->hostof = malloc(sizeof(int) * (size_t)p);
    h->map = malloc(sizeof(int) * (size_t)p);
    h->lhost = malloc(sizeof(uint32_t) * (size_t)p);
    base = malloc(sizeof(int) * (size_t)p);
    if (!h->hostof || !h->map || !h->lhost || !base) {
        free(base);
        fprintf(stderr, "rtopo-sim: out of memory\n");
        return 1;
    }
    if (h->host_map) {
        const char *s = h->host_map;

        for (r = 0; r < p; r++) {
            char num[24];
            size_t n = strcspn(s, ",");

            if (!*s || n >= sizeof(num)) {
                free(base);
                fprintf(stderr, "rtopo-sim: --host-map: %d host numbers for %d ranks\n", r, p);
                return 2;
            }
            memcpy(num, s, n);
            num[n] = '\0';
            if (sim_parse_int(num, &v) || v < 0 || v > 1L << 24) {
                free(base);
                return sim_hosts_bad("--host-map: '%s' is not a host number (0 to 2^24)", num);
            }
            h->hostof[r] = (int)v;
            s += n;
            if (*s == ',')
                s++;
            else if (r < p - 1) {
                free(base);
                fprintf(stderr, "rtopo-sim: --host-map: %d host numbers for %d ranks\n",
                        r + 1, p);
                return 2;
            }
        }
        if (*s) {
            free(base);
            fprintf(stderr, "rtopo-sim: --host-map: more than %d host numbers\n", p);
            return 2;
        }
    } else {
        int H = (int)h->hosts, b = p / H, e = p % H;

        for (r = 0; r < p; r++)
            h->hostof[r] = rr ? r % H : r < e * (b + 1) ? r / (b + 1) : e + (r - e * (b + 1)) / b;
    }
    for (r = 0; r < p; r++)
        base[r] = r;
    st = h->mode == RTOPO__PLACE_AUTO ?
         rtopo__place_auto(t, base, h->hostof, m, h->map, h->why, sizeof(h->why)) :
         rtopo__place_map(t, base, h->hostof, h->mode, h->map, h->why, sizeof(h->why));
    free(base);
    if (st < 0) {
        fprintf(stderr, "rtopo-sim: --place %s: %s\n", rtopo__place_name(h->mode),
                rtopo_last_error());
        return 2;
    }
    h->placed = st;
    /* hosts numbered by first label on them */
    for (k = 0; k < p; k++) {
        int j;

        for (j = 0; j < k && h->hostof[h->map[j]] != h->hostof[h->map[k]]; j++)
            ;
        h->lhost[k] = j == k ? (uint32_t)h->nhosts++ : h->lhost[j];
    }
    h->layout.nranks = (uint32_t)p;
    h->layout.host = h->lhost;
    m->layout = &h->layout;
    return -1;
}

int sim_hosts_print(FILE *f, const sim_hosts_t *h, const rtopo__sched_t *s,
                    const rtopo__sim_result_t *r, int json)
{
    uint64_t mv[RTOPO__LINK_COUNT][RTOPO__REACH_COUNT], by[RTOPO__LINK_COUNT][RTOPO__REACH_COUNT];
    uint64_t tm[RTOPO__REACH_COUNT] = { 0, 0 }, tb[RTOPO__REACH_COUNT] = { 0, 0 };
    uint32_t i, j;
    int c, k, n, bad;

    if (!h->nhosts)
        return 0;
    memset(mv, 0, sizeof(mv));
    memset(by, 0, sizeof(by));
    for (i = 0; i < s->nxfers; i++) {
        const rtopo__xfer_t xv = rtopo__sched_xfer(s, i), *x = &xv;
        int32_t from = x->src;

        for (j = 0; j < x->nhops; j++) {
            const rtopo__hop_t *hp = &s->hops[x->hop0 + j];
            int reach = rtopo__layout_reach(&h->layout, from, hp->to);

            mv[hp->link][reach]++;
            by[hp->link][reach] += x->len;
            tm[reach]++;
            tb[reach] += x->len;
            from = hp->to;
        }
    }
    bad = tm[0] != r->reach_moves[0] || tm[1] != r->reach_moves[1] ||
          tb[0] != r->reach_bytes[0] || tb[1] != r->reach_bytes[1];
    if (json) {
        fprintf(f, ",\"hosts\":{\"count\":%d,\"map\":\"%s\",\"place\":\"%s\",\"placed\":\"%s\","
                "\"label_rank\":[", h->nhosts, h->host_map ? "list" :
                h->map_by && !strcmp(h->map_by, "host") ? "host" : "slot",
                rtopo__place_name(h->mode), h->placed ? "host" : "rank");
        for (k = 0; k < (int)h->layout.nranks; k++)
            fprintf(f, "%s%d", k ? "," : "", h->map[k]);
        fprintf(f, "],\"label_host\":[");
        for (k = 0; k < (int)h->layout.nranks; k++)
            fprintf(f, "%s%u", k ? "," : "", h->lhost[k]);
        fprintf(f, "],\"intra_moves\":%llu,\"intra_bytes\":%llu,\"inter_moves\":%llu,"
                "\"inter_bytes\":%llu,\"links\":{", (unsigned long long)tm[0],
                (unsigned long long)tb[0], (unsigned long long)tm[1], (unsigned long long)tb[1]);
        for (c = 0, n = 0; c < RTOPO__LINK_COUNT; c++)
            if (mv[c][0] || mv[c][1])
                fprintf(f, "%s\"%s\":{\"intra_moves\":%llu,\"intra_bytes\":%llu,"
                        "\"inter_moves\":%llu,\"inter_bytes\":%llu}", n++ ? "," : "",
                        rtopo__link_name(c), (unsigned long long)mv[c][0],
                        (unsigned long long)by[c][0], (unsigned long long)mv[c][1],
                        (unsigned long long)by[c][1]);
        fprintf(f, "}}");
    } else {
        fprintf(f, "hosts           %d (%s), placement %s: %s\n", h->nhosts,
                h->host_map ? "--host-map" : h->map_by && !strcmp(h->map_by, "host") ?
                "round robin" : "blocks", rtopo__place_name(h->mode),
                h->placed ? "by host" : h->why);
        fprintf(f, "label hosts    ");
        for (k = 0; k < (int)h->layout.nranks && k < 64; k++)
            fprintf(f, " %u", h->lhost[k]);
        fprintf(f, "%s\n", h->layout.nranks > 64 ? " ..." : "");
        fprintf(f, "reach           intra-host %llu moves, %llu bytes; inter-host %llu moves, "
                "%llu bytes\n", (unsigned long long)tm[0], (unsigned long long)tb[0],
                (unsigned long long)tm[1], (unsigned long long)tb[1]);
        for (c = 0; c < RTOPO__LINK_COUNT; c++)
            if (mv[c][0] || mv[c][1])
                fprintf(f, "  %-13s intra-host %llu moves, %llu bytes; inter-host %llu "
                        "moves, %llu bytes\n", rtopo__link_name(c),
                        (unsigned long long)mv[c][0], (unsigned long long)by[c][0],
                        (unsigned long long)mv[c][1], (unsigned long long)by[c][1]);
    }
    if (bad)
        fprintf(stderr, "rtopo-sim: the simulator's reach counts (%llu/%llu moves) differ "
                "from the schedule's (%llu/%llu)\n", (unsigned long long)r->reach_moves[0],
                (unsigned long long)r->reach_moves[1], (unsigned long long)tm[0],
                (unsigned long long)tm[1]);
    return bad;
}

void sim_hosts_free(sim_hosts_t *h)
{
    free(h->map);
    free(h->hostof);
    free(h->lhost);
    h->map = h->hostof = NULL;
    h->lhost = NULL;
}
