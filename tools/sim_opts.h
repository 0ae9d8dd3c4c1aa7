/*
 * sim_opts.h - rtopo-sim's option parser: each subcommand describes its
 * options in one table (name, kind, the field it sets, the field that
 * records it was given, the accepted range and the message for a bad
 * value), and sim_opts_parse runs getopt_long over it.
 */
#ifndef RTOPO_SIM_OPTS_H
#define RTOPO_SIM_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "rtopo_sched.h"

enum {
    SIM_OPT_HELP,       /* --help: the usage on stdout, exit status 0 */
    SIM_OPT_FLAG,       /* int field = 1 */
    SIM_OPT_STR,        /* const char * field = the value */
    SIM_OPT_INT,        /* a decimal integer from lo to hi, into a 4- or 8-byte field */
    SIM_OPT_BYTES,      /* a byte count (K, M, G suffixes) from lo to hi (hi < 0: no
                           limit), into an 8-byte field */
    SIM_OPT_MODEL,      /* cost parameters into an rtopo__model_t field */
    SIM_OPT_FN          /* fn(options, value): 0, or the exit status */
};

typedef struct sim_opt {
    const char *name;
    int kind;
    int has_arg;                /* getopt's no_argument, required_argument */
    size_t off, size;           /* the field it sets */
    long have;                  /* offset of the int set to 1 when given, or -1 */
    long long lo, hi;           /* SIM_OPT_INT, SIM_OPT_BYTES */
    const char *msg;            /* printed with the value when it is bad */
    int (*fn)(void *opts, const char *arg);
} sim_opt_t;

#define SIM_NONE (-1L)
#define SIM_HAVE(T, f) ((long)offsetof(T, f))
#define SIM_FIELD(T, f) offsetof(T, f), sizeof(((T *)0)->f)
#define SIM_HELP_OPT { "help", SIM_OPT_HELP, 0, 0, 0, SIM_NONE, 0, 0, NULL, NULL }
#define SIM_FLAG(T, name, f, have) { name, SIM_OPT_FLAG, 0, SIM_FIELD(T, f), have, 0, 0, NULL, NULL }
#define SIM_STR(T, name, f, have) { name, SIM_OPT_STR, 1, SIM_FIELD(T, f), have, 0, 0, NULL, NULL }
#define SIM_INT(T, name, f, have, lo, hi, msg) \
    { name, SIM_OPT_INT, 1, SIM_FIELD(T, f), have, lo, hi, msg, NULL }
#define SIM_BYTES(T, name, f, have, lo, hi, msg) \
    { name, SIM_OPT_BYTES, 1, SIM_FIELD(T, f), have, lo, hi, msg, NULL }
#define SIM_MODEL(T, name, f) { name, SIM_OPT_MODEL, 1, SIM_FIELD(T, f), SIM_NONE, 0, 0, NULL, NULL }
#define SIM_FN(name, fn) { name, SIM_OPT_FN, 1, 0, 0, SIM_NONE, 0, 0, NULL, fn }
#define SIM_OPTS_MAX 48

/* "rtopo-sim: " fmt with arg, the hint to --help; returns 2 */
int sim_bad(const char *fmt, const char *arg);
/* a decimal integer (long); 0 or -1 */
int sim_parse_int(const char *s, long *v);
/* a byte count with an optional K, M, G suffix (x1024, then B or iB); 0 or -1 */
int sim_parse_bytes(const char *s, uint64_t *v);
/* --model LIST into m (rtopo__model_parse); 0, or 2 after the message */
int sim_parse_model(const char *list, rtopo__model_t *m);

/* Parses argv[first..] with the n options of tab into opts: -1 when all
 * were good (then no argument is left over), else the exit status (0
 * after --help, 2 after a bad option, value or argument; the message and,
 * for an unknown option, usage(stderr) printed). */
int sim_opts_parse(int argc, char **argv, int first, const sim_opt_t *tab, int n, void *opts,
                   void (*usage)(FILE *f));

#endif
