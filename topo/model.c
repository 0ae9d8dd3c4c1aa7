/*
 * model.c - the cost model's parameters as text: parsed from RTOPO_MODEL
 * and rtopo-sim --model, printed by logs and tools.
 *
 * A list is comma-separated KEY=VALUE items applied in order over what the
 * model holds: ts, tw, th (seconds, or with a unit: 5us, 1ns, 2ms; th < 0
 * means ts + chunk*tw of its class), bw
 * (bytes per second, sets tw = 1/bw; K, M, G are powers of 1000), chunk
 * (bytes, K/M/G powers of 1024), ports, lanes and hostlinks (0..1024, 0 = no
 * limit; hostlinks: how many inter-host hops a host sends, and receives,
 * at once on a model with a layout), tk
 * (seconds per byte a kernel touches), tq (seconds every message pays on
 * top of its start-up, a hop's th included: the wait for a receiver that
 * shares the processors with more ranks than they can run; 0 by default,
 * printed only when set), tt (seconds the last hop of a transfer takes on
 * top of its ts + m*tw to land, and a further hop of a route to start,
 * without holding its sender's port: the receiver's turn there, which an
 * eager sender does not wait for but a rank that forwards does; 0 by
 * default, printed only when set), eager (bytes: with tt, a longer
 * transfer's sender waits for the receiver's turn too; 0, every transfer
 * eager, by default; printed with tt).  ts, tw, th and bw may carry a
 * link class prefix (host.ts=2us); without one they set every class but
 * LOCAL (copies inside a rank: free in the built-in constants, measured
 * by the runtime's calibration, calib.c), which only local.ts, local.tw
 * set, and every reach parameter that is set.  The prefixes intra and inter set the parameters of a reach
 * (intra.ts=1us, inter.bw=100M, inter.th=-1): on a model with a layout
 * they take precedence over the class's for a hop between ranks of one
 * host or of two hosts (HOST and LOCAL hops keep their class's; sim.c,
 * rtopo__model_hop).  Printed lists name the reach parameters that are
 * set after the classes, and LOCAL where it costs anything, so they parse
 * back (to four digits).
 */
#include "config.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "rtopo.h"
#include "log.h"
#include "rtopo_sched.h"

static int rtopo__num(const char *s, double *v, const char **end_p)
{
    char *end;

    errno = 0;
    *v = strtod(s, &end);
    if (end == s || errno || !isfinite(*v))
        return -1;
    *end_p = end;
    return 0;
}

/* th may be negative: "derive it from ts, tw and the chunk" */
static int rtopo__time(const char *s, double *v, int neg_ok)
{
    const char *e;

    if (rtopo__num(s, v, &e) || (*v < 0 && !neg_ok))
        return -1;
    if (!strcmp(e, "") || !strcmp(e, "s"))
        return 0;
    if (!strcmp(e, "ms"))
        *v *= 1e-3;
    else if (!strcmp(e, "us"))
        *v *= 1e-6;
    else if (!strcmp(e, "ns"))
        *v *= 1e-9;
    else if (!strcmp(e, "ps"))
        *v *= 1e-12;
    else
        return -1;
    return 0;
}

static int rtopo__rate(const char *s, double *v)
{
    const char *e;

    if (rtopo__num(s, v, &e) || *v <= 0)
        return -1;
    if (*e == 'k' || *e == 'K')
        *v *= 1e3, e++;
    else if (*e == 'm' || *e == 'M')
        *v *= 1e6, e++;
    else if (*e == 'g' || *e == 'G')
        *v *= 1e9, e++;
    if (*e && strcasecmp(e, "B/s") && strcasecmp(e, "B"))
        return -1;
    return *v > 0 ? 0 : -1;
}

static int rtopo__bytes(const char *s, uint64_t *v)
{
    double x;
    const char *e;

    if (rtopo__num(s, &x, &e) || x < 0 || x != floor(x))
        return -1;
    if (*e == 'k' || *e == 'K')
        x *= 1024, e++;
    else if (*e == 'm' || *e == 'M')
        x *= 1024 * 1024, e++;
    else if (*e == 'g' || *e == 'G')
        x *= 1024.0 * 1024 * 1024, e++;
    if (*e && strcasecmp(e, "B"))
        return -1;
    if (x < 1 || x > 1e15)
        return -1;
    *v = (uint64_t)x;
    return 0;
}

int rtopo__model_parse(const char *list, rtopo__model_t *m)
{
    char *copy, *save = NULL, *kv;
    int st = RTOPO_OK;

    if (!list || !m)
        return rtopo__error(RTOPO_ERR_INVAL, "no model list");
    if (!list[0])
        return rtopo__error(RTOPO_ERR_INVAL, "empty list");
    copy = strdup(list);
    if (!copy)
        return rtopo__error(RTOPO_ERR_NOMEM, "model list");
    for (kv = strtok_r(copy, ",", &save); kv && !st; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '='), *key = kv, *dot;
        int lo = 0, hi = RTOPO__LINK_COUNT, c, reach = -1;
        double x;

        if (!eq) {
            st = rtopo__error(RTOPO_ERR_INVAL, "'%s' is not KEY=VALUE", kv);
            break;
        }
        *eq = '\0';
        dot = strchr(key, '.');
        if (dot) {
            *dot = '\0';
            for (c = 0; c < RTOPO__REACH_COUNT; c++)
                if (!strcasecmp(key, rtopo__reach_name(c)))
                    reach = c;
            lo = reach >= 0 ? 0 : rtopo__link_parse(key);
            if (lo < 0) {
                st = rtopo__error(RTOPO_ERR_INVAL, "unknown link class '%s' (ring, "
                                  "row, col, cube, otis, direct, host, cube-id, local; "
                                  "or reach intra, inter)", key);
                break;
            }
            hi = reach >= 0 ? 0 : lo + 1;
            key = dot + 1;
        }
        if (!strcmp(key, "ports") || !strcmp(key, "lanes") || !strcmp(key, "tk") ||
            !strcmp(key, "chunk") || !strcmp(key, "hostlinks") || !strcmp(key, "tq") ||
            !strcmp(key, "tt") || !strcmp(key, "eager")) {
            uint64_t b;

            if (dot)
                st = rtopo__error(RTOPO_ERR_INVAL, "%s applies to every class", key);
            else if (!strcmp(key, "ports") || !strcmp(key, "lanes") ||
                     !strcmp(key, "hostlinks")) {
                char *e;
                long v;

                errno = 0;
                v = strtol(eq + 1, &e, 10);
                if (e == eq + 1 || *e || errno || v < 0 || v > 1024)
                    st = rtopo__error(RTOPO_ERR_INVAL, "bad %s '%s' (0..1024, "
                                      "0 = no limit)", key, eq + 1);
                else if (key[0] == 'p')
                    m->ports = (int)v;
                else if (key[0] == 'h')
                    m->hostlinks = (int)v;
                else
                    m->lanes = (int)v;
            } else if (!strcmp(key, "tq")) {
                if (rtopo__time(eq + 1, &x, 0))
                    st = rtopo__error(RTOPO_ERR_INVAL, "bad tq '%s' (time every "
                                      "message pays on a machine with more ranks "
                                      "than processors)", eq + 1);
                else
                    m->tq = x;
            } else if (!strcmp(key, "tt")) {
                if (rtopo__time(eq + 1, &x, 0))
                    st = rtopo__error(RTOPO_ERR_INVAL, "bad tt '%s' (time a message "
                                      "takes to land for its receiver's turn on a "
                                      "machine with more ranks than processors)", eq + 1);
                else
                    m->tt = x;
            } else if (!strcmp(key, "tk")) {
                if (rtopo__time(eq + 1, &x, 0))
                    st = rtopo__error(RTOPO_ERR_INVAL, "bad tk '%s' (time per byte "
                                      "a kernel touches)", eq + 1);
                else
                    m->tk = x;
            } else if (rtopo__bytes(eq + 1, &b)) {
                st = rtopo__error(RTOPO_ERR_INVAL, "bad %s '%s' (bytes > 0)", key,
                                  eq + 1);
            } else if (key[0] == 'e') {
                m->eager = b;
            } else {
                m->chunk = (size_t)b;
            }
            continue;
        }
        if (!strcmp(key, "bw")) {
            if (rtopo__rate(eq + 1, &x)) {
                st = rtopo__error(RTOPO_ERR_INVAL, "bad bw '%s' (bytes per "
                                  "second, e.g. 10G)", eq + 1);
                break;
            }
            x = 1.0 / x;
            key = "tw";
        } else if (strcmp(key, "ts") && strcmp(key, "tw") && strcmp(key, "th")) {
            st = rtopo__error(RTOPO_ERR_INVAL, "unknown key '%s' (ts, tw, th, bw, "
                              "chunk, ports, lanes, hostlinks, tk, tq, tt, eager)", key);
            break;
        } else if (rtopo__time(eq + 1, &x, !strcmp(key, "th"))) {
            st = rtopo__error(RTOPO_ERR_INVAL, "bad time '%s' (seconds, or with a "
                              "unit: 5us, 1ns)", eq + 1);
            break;
        }
        for (c = lo; c < hi; c++) {
            if (!dot && c == RTOPO__LINK_LOCAL)
                continue;
            if (!strcmp(key, "ts"))
                m->ts[c] = x;
            else if (!strcmp(key, "tw"))
                m->tw[c] = x;
            else
                m->th[c] = x;
        }
        /* a reach named, or without a prefix every reach parameter set */
        for (c = 0; c < RTOPO__REACH_COUNT; c++) {
            unsigned bit = key[1] == 's' ? RTOPO__RSET_TS : key[1] == 'w' ? RTOPO__RSET_TW :
                           RTOPO__RSET_TH;

            if (c != reach && (dot || !(m->reach_set[c] & bit)))
                continue;
            if (bit == RTOPO__RSET_TS)
                m->reach_ts[c] = x;
            else if (bit == RTOPO__RSET_TW)
                m->reach_tw[c] = x;
            else
                m->reach_th[c] = x;
            m->reach_set[c] |= bit;
        }
    }
    free(copy);
    return st;
}

int rtopo__model_str(const rtopo__model_t *m, char *out, size_t n)
{
    size_t len = 0;
    int c, k;

    if (!n)
        return 0;
    out[0] = '\0';
    for (c = 0; c < RTOPO__LINK_COUNT; c++) {
        if (c == RTOPO__LINK_LOCAL && !m->ts[c] && !m->tw[c])
            continue;
        k = snprintf(out + len, n - len, "%s%s.ts=%.4gus,%s.tw=%.4gns", len ? "," : "",
                     rtopo__link_name(c), m->ts[c] * 1e6, rtopo__link_name(c),
                     m->tw[c] * 1e9);
        if (k < 0 || (size_t)k >= n - len)
            return -1;
        len += (size_t)k;
        if (m->th[c] >= 0) {
            k = snprintf(out + len, n - len, ",%s.th=%.4gus", rtopo__link_name(c),
                         m->th[c] * 1e6);
            if (k < 0 || (size_t)k >= n - len)
                return -1;
            len += (size_t)k;
        }
    }
    k = snprintf(out + len, n - len, ",chunk=%zu,ports=%d,lanes=%d,tk=%.4gns", m->chunk,
                 m->ports, m->lanes, m->tk * 1e9);
    if (k < 0 || (size_t)k >= n - len)
        return -1;
    len += (size_t)k;
    /* named where it counts (a layout) or where it was changed */
    if (m->layout || m->hostlinks != 1) {
        k = snprintf(out + len, n - len, ",hostlinks=%d", m->hostlinks);
        if (k < 0 || (size_t)k >= n - len)
            return -1;
        len += (size_t)k;
    }
    if (m->tq != 0.0) {     /* named where it was set */
        k = snprintf(out + len, n - len, ",tq=%.4gus", m->tq * 1e6);
        if (k < 0 || (size_t)k >= n - len)
            return -1;
        len += (size_t)k;
    }
    if (m->tt != 0.0) {     /* named where it was set */
        k = m->eager ? snprintf(out + len, n - len, ",tt=%.4gus,eager=%llu", m->tt * 1e6,
                                (unsigned long long)m->eager) :
                       snprintf(out + len, n - len, ",tt=%.4gus", m->tt * 1e6);
        if (k < 0 || (size_t)k >= n - len)
            return -1;
        len += (size_t)k;
    }
    for (c = 0; c < RTOPO__REACH_COUNT; c++) {
        const char *r = rtopo__reach_name(c);

        k = 0;
        if (m->reach_set[c] & RTOPO__RSET_TS)
            k = snprintf(out + len, n - len, ",%s.ts=%.4gus", r, m->reach_ts[c] * 1e6);
        if (k >= 0 && (size_t)k < n - len && (m->reach_set[c] & RTOPO__RSET_TW)) {
            len += (size_t)k;
            k = snprintf(out + len, n - len, ",%s.tw=%.4gns", r, m->reach_tw[c] * 1e9);
        }
        if (k >= 0 && (size_t)k < n - len && (m->reach_set[c] & RTOPO__RSET_TH)) {
            len += (size_t)k;
            k = m->reach_th[c] >= 0 ?
                snprintf(out + len, n - len, ",%s.th=%.4gus", r, m->reach_th[c] * 1e6) :
                snprintf(out + len, n - len, ",%s.th=-1", r);
        }
        if (k < 0 || (size_t)k >= n - len)
            return -1;
        len += (size_t)k;
    }
    return 0;
}

const char *rtopo__reach_name(int reach)
{
    return reach == RTOPO__REACH_INTRA ? "intra" : reach == RTOPO__REACH_INTER ? "inter" :
           "unknown";
}
