/*
 * params.c - reading the RTOPO_* table (params.h) from the environment.
 */
#include "config.h"
#include <errno.h>
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

static int rtopo__parse_int(const char *name, const char *s, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 0);
    if (errno || end == s || *end != '\0')
        return rtopo__error(RTOPO_ERR_INVAL, "%s: '%s' is not an integer", name, s);
    *out = v;
    return RTOPO_OK;
}

#define RTOPO__PSET_STR(name, field, s) (p->field = (s), RTOPO_OK)
#define RTOPO__PSET_INT(name, field, s) rtopo__parse_int(name, s, &p->field)
#define RTOPO__PSET_SIZE(name, field, s) rtopo__parse_size(name, s, &p->field)

int rtopo__params_load(rtopo__params_t *p)
{
    const char *v;
    int st;

    memset(p, 0, sizeof(*p));
#define RTOPO__PLOAD(N, f, t, d, h)                                           \
    v = getenv("RTOPO_" #N);                                                  \
    if ((st = RTOPO__PSET_##t("RTOPO_" #N, f, d)) != RTOPO_OK)                \
        return st;                                                            \
    if (v && *v && (st = RTOPO__PSET_##t("RTOPO_" #N, f, v)) != RTOPO_OK)     \
        return st;
    RTOPO_PARAMS_MAP(RTOPO__PLOAD)
#undef RTOPO__PLOAD
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
