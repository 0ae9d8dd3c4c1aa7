/*
 * params.c - reading the RTOPO_* table (params.h) from the environment.
 */
#include "config.h"
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "log.h"
#include "params.h"
#include "size.h"

extern char **environ;

struct rtopo__param_row {
    const char *name, *type, *def, *help;
};

static const struct rtopo__param_row rtopo__param_rows[] = {
#define RTOPO__PROW(N, f, t, d, h) { "RTOPO_" #N, #t, d, h },
    RTOPO_PARAMS_MAP(RTOPO__PROW)
#undef RTOPO__PROW
};

#define RTOPO__NPARAMS (int)(sizeof(rtopo__param_rows) / sizeof(rtopo__param_rows[0]))

/* from_env has a bit per row */
typedef char rtopo__params_fit_from_env[RTOPO__P_COUNT <= 64 ? 1 : -1];

int rtopo__params_row(int i, const char **name, const char **type,
                      const char **def, const char **help)
{
    if (i < 0 || i >= RTOPO__NPARAMS)
        return 0;
    *name = rtopo__param_rows[i].name;
    *type = rtopo__param_rows[i].type;
    *def = rtopo__param_rows[i].def;
    *help = rtopo__param_rows[i].help;
    return 1;
}

/*
 * Bounds of the numeric variables, checked as each value is read: a value
 * outside them fails rtopo_init() with RTOPO_ERR_INVAL naming variable and
 * value, instead of wrapping when stored or misbehaving later.  The help
 * text of each row in params.h states the same range.  An INT variable
 * without a row here still has to fit in an int (every INT field ends up
 * in one); a SIZE variable without a row, in a size_t.
 */
struct rtopo__param_bound {
    const char *name;
    long long min, max;
};

static const struct rtopo__param_bound rtopo__param_bounds[] = {
    { "RTOPO_TIMEOUT_MS",     1, INT_MAX },     /* stored in an int */
    { "RTOPO_EAGER_LIMIT",    0, 1 << 20 },
    { "RTOPO_CHUNK_SIZE",     4096, 1 << 30 },  /* piece counts stay in 32 bits */
    { "RTOPO_PIPELINE_DEPTH", 1, 64 },
    { "RTOPO_SPIN_US",        0, 1000000 },
    { "RTOPO_CHECK_BUFFERS",  0, 1 },
    { "RTOPO_RANK",           -1, INT_MAX },
    { "RTOPO_SIZE",           0, INT_MAX },
    { "RTOPO_SHM_RING_SIZE",  65536, 1 << 30 }, /* below: the built-in least */
    { "RTOPO_VERBS_SQ_DEPTH", 16, 2048 },       /* 2048: the work requests of all QPs */
    { "RTOPO_VERBS_INJECT_MAX", 1024, 1 << 16 },  /* 256 of them pinned: 16 MiB at most */
};

#define RTOPO__NBOUNDS (int)(sizeof(rtopo__param_bounds) / sizeof(rtopo__param_bounds[0]))

static const struct rtopo__param_bound *rtopo__param_bound(const char *name)
{
    int i;

    for (i = 0; i < RTOPO__NBOUNDS; i++)
        if (!strcmp(rtopo__param_bounds[i].name, name))
            return &rtopo__param_bounds[i];
    return NULL;
}

int rtopo__params_bounds(const char *name, long long *min, long long *max)
{
    const struct rtopo__param_bound *b = rtopo__param_bound(name);

    if (!b)
        return 0;
    *min = b->min;
    *max = b->max;
    return 1;
}

static int rtopo__out_of_range(const char *name, const char *s,
                               long long min, long long max)
{
    return rtopo__error(RTOPO_ERR_INVAL, "%s: '%s' is out of range (%lld to %lld)",
                        name, s, min, max);
}

/* decimal only, no leading zero: "010" or "0x10" is refused, not read as
 * 8 or 16 */
static int rtopo__parse_int(const char *name, const char *s, long *out)
{
    const struct rtopo__param_bound *b = rtopo__param_bound(name);
    long long min = b ? b->min : INT_MIN, max = b ? b->max : INT_MAX;
    const char *t = s + (*s == '-');
    unsigned long long v = 0;
    long long x;
    int big = 0;

    /* digits, no leading zero ("0" alone is fine, "-0" is not) */
    if (!isdigit((unsigned char)*t) || (t[0] == '0' && (t[1] != '\0' || t != s)))
        goto bad;
    for (; isdigit((unsigned char)*t); t++) {
        if (v > (unsigned long long)LLONG_MAX / 10)
            big = 1;   /* keep scanning: the rest must still be digits */
        else
            v = v * 10 + (unsigned)(*t - '0');
    }
    if (*t != '\0')
        goto bad;
    if (big || v > (unsigned long long)LLONG_MAX)
        return rtopo__out_of_range(name, s, min, max);
    x = *s == '-' ? -(long long)v : (long long)v;
    if (x < min || x > max)
        return rtopo__out_of_range(name, s, min, max);
    *out = (long)x;
    return RTOPO_OK;
bad:
    return rtopo__error(RTOPO_ERR_INVAL, "%s: '%s' is not a decimal integer", name, s);
}

static int rtopo__parse_size_bounded(const char *name, const char *s, size_t *out)
{
    const struct rtopo__param_bound *b = rtopo__param_bound(name);
    size_t v;
    int st;

    if ((st = rtopo__parse_size(name, s, &v)) != RTOPO_OK)
        return st;
    if (b && (v < (unsigned long long)b->min || v > (unsigned long long)b->max))
        return rtopo__out_of_range(name, s, b->min, b->max);
    *out = v;
    return RTOPO_OK;
}

#define RTOPO__PSET_STR(name, field, s) (p->field = (s), RTOPO_OK)
#define RTOPO__PSET_INT(name, field, s) rtopo__parse_int(name, s, &p->field)
#define RTOPO__PSET_SIZE(name, field, s) rtopo__parse_size_bounded(name, s, &p->field)

int rtopo__params_load(rtopo__params_t *p)
{
    const char *v;
    int st;

    memset(p, 0, sizeof(*p));
#define RTOPO__PLOAD(N, f, t, d, h)                                           \
    v = getenv("RTOPO_" #N);                                                  \
    if ((st = RTOPO__PSET_##t("RTOPO_" #N, f, d)) != RTOPO_OK)                \
        return st;                                                            \
    if (v && *v) {                                                            \
        if ((st = RTOPO__PSET_##t("RTOPO_" #N, f, v)) != RTOPO_OK)            \
            return st;                                                        \
        p->from_env |= 1ull << RTOPO__P_##N;                                  \
    }
    RTOPO_PARAMS_MAP(RTOPO__PLOAD)
#undef RTOPO__PLOAD
    if (rtopo__log_level_of(p->log_level) < 0)
        return rtopo__error(RTOPO_ERR_INVAL, "RTOPO_LOG_LEVEL '%s' is not one of error, "
                            "warn, info, debug, trace", p->log_level);
    return RTOPO_OK;
}

/* RTOPO_* names nobody reads are most likely typos */
void rtopo__params_warn_unknown(void)
{
    char **e;
    int i, known;

    for (e = environ; e && *e; e++) {
        if (strncmp(*e, "RTOPO_", 6))
            continue;
        known = 0;
        for (i = 0; i < RTOPO__NPARAMS && !known; i++) {
            size_t n = strlen(rtopo__param_rows[i].name);
            known = !strncmp(*e, rtopo__param_rows[i].name, n) && (*e)[n] == '=';
        }
        if (!known)
            rtopo__warn("unknown environment variable %.*s (see rtopo-info)",
                        (int)(strchr(*e, '=') ? strchr(*e, '=') - *e : (long)strlen(*e)), *e);
    }
}
