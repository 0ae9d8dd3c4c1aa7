/*
 * sim_opts.c - rtopo-sim's table-driven option parser (sim_opts.h).
 */
#include "config.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "rtopo.h"
#include "sim_opts.h"

int sim_bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "rtopo-sim: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(try rtopo-sim --help)\n");
    return 2;
}

int sim_parse_int(const char *s, long *v)
{
    char *end;

    errno = 0;
    *v = strtol(s, &end, 10);
    return errno || end == s || *end ? -1 : 0;
}

int sim_parse_bytes(const char *s, uint64_t *v)
{
    unsigned long long n;
    char *end;
    int shift = 0;

    if (!s || *s == '-')
        return -1;
    errno = 0;
    n = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (shift && (!strcasecmp(end, "ib") || !strcasecmp(end, "b")))
        end += strlen(end);
    if (!shift && !strcasecmp(end, "b"))
        end++;
    if (*end || (shift && n > (UINT64_MAX >> shift)))
        return -1;
    *v = (uint64_t)n << shift;
    return 0;
}

int sim_parse_model(const char *list, rtopo__model_t *m)
{
    if (rtopo__model_parse(list, m))
        return sim_bad("--model: %s", rtopo_last_error());
    return 0;
}

static void store_int(void *field, size_t size, long long v)
{
    if (size == sizeof(int32_t)) {
        int32_t x = (int32_t)v;
        memcpy(field, &x, sizeof(x));
    } else {
        int64_t x = (int64_t)v;
        memcpy(field, &x, sizeof(x));
    }
}

static int apply(const sim_opt_t *t, void *opts, const char *arg)
{
    char *field = (char *)opts + t->off;
    uint64_t u;
    long v;
    int rc;

    switch (t->kind) {
    case SIM_OPT_FLAG:
        store_int(field, t->size, 1);
        break;
    case SIM_OPT_STR:
        memcpy(field, &arg, sizeof(arg));
        break;
    case SIM_OPT_INT:
        if (sim_parse_int(arg, &v) || v < t->lo || v > t->hi)
            return sim_bad(t->msg, arg);
        store_int(field, t->size, v);
        break;
    case SIM_OPT_BYTES:
        if (sim_parse_bytes(arg, &u) || u < (uint64_t)t->lo ||
            (t->hi >= 0 && u > (uint64_t)t->hi))
            return sim_bad(t->msg, arg);
        memcpy(field, &u, sizeof(u));
        break;
    case SIM_OPT_MODEL:
        if ((rc = sim_parse_model(arg, (rtopo__model_t *)(void *)field)))
            return rc;
        break;
    case SIM_OPT_FN:
        if ((rc = t->fn(opts, arg)))
            return rc;
        break;
    default:
        break;
    }
    if (t->have >= 0)
        store_int((char *)opts + t->have, sizeof(int), 1);
    return 0;
}

int sim_opts_parse(int argc, char **argv, int first, const sim_opt_t *tab, int n, void *opts,
                   void (*usage)(FILE *f))
{
    struct option longopts[SIM_OPTS_MAX + 1];
    int i, c, rc;

    if (n > SIM_OPTS_MAX)
        n = SIM_OPTS_MAX;
    for (i = 0; i < n; i++) {
        longopts[i].name = tab[i].name;
        longopts[i].has_arg = tab[i].has_arg ? required_argument : no_argument;
        longopts[i].flag = NULL;
        longopts[i].val = 256 + i;
    }
    memset(&longopts[n], 0, sizeof(longopts[n]));
    optind = first;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h' || (c >= 256 && tab[c - 256].kind == SIM_OPT_HELP)) {
            usage(stdout);
            return 0;
        }
        if (c < 256 || c >= 256 + n) {
            usage(stderr);
            return 2;
        }
        if ((rc = apply(&tab[c - 256], opts, optarg)))
            return rc;
    }
    if (optind < argc)
        return sim_bad("unexpected argument '%s'", argv[optind]);
    return -1;
}
