/*
 * rtopo-info - what this build of rtopo can use here: version, transports
 * with their providers and devices, and every RTOPO_* variable.
 *
 *   rtopo-info [--transports] [--params] [--check TRANSPORT]
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtopo.h"
#include "params.h"
#include "tl.h"

static void print_line(const char *line, void *arg)
{
    (void)arg;
    printf("    %s\n", line);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: rtopo-info [--transports] [--params] [--errors] [--check TRANSPORT]\n"
               "  with no option, prints everything\n"
               "  --check T  exit 0 if transport T (e.g. ofi:shm, verbs) is usable here, else 1\n");
}

int main(int argc, char **argv)
{
    const struct rtopo__tl_ops *ops;
    const char *name, *type, *def, *help, *env;
    int all = argc == 1, tr = 0, par = 0, err = 0, i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--transports"))
            tr = 1;
        else if (!strcmp(argv[i], "--params"))
            par = 1;
        else if (!strcmp(argv[i], "--errors"))
            err = 1;
        else if (!strcmp(argv[i], "--check")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "rtopo-info: --check needs a TRANSPORT\n");
                usage(stderr);
                return 2;
            }
            ops = rtopo__tl_find(argv[i + 1]);
            return ops && ops->available(argv[i + 1]) ? 0 : 1;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "rtopo-info: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (all || (!tr && !par && !err))
        printf("rtopo %s\n", rtopo_version());
    if (all || tr) {
        printf("\ntransports (in order of preference for RTOPO_TRANSPORT=auto):\n");
        for (i = 0; (ops = rtopo__tl_get(i)) != NULL; i++) {
            /* available(NULL) asks whether RTOPO_TRANSPORT=auto may pick
             * the transport, available(name) whether it works when named */
            int named = ops->available(ops->name), picked = ops->available(NULL);

            if (!strcmp(ops->name, "multi"))   /* opened by auto per job, never named */
                printf("  %s: per peer, when the ranks share hosts only in part\n", ops->name);
            else
                printf("  %s: %s\n", ops->name, !named ? "not usable here" :
                       picked ? "usable" : "usable when named (RTOPO_TRANSPORT=auto does not pick it)");
            if (ops->info)
                ops->info(NULL, print_line, NULL);
        }
    }
    if (all || par) {
        printf("\nenvironment variables (name, type, default, current value):\n");
        for (i = 0; rtopo__params_row(i, &name, &type, &def, &help); i++) {
            env = getenv(name);
            if (env && strstr(name, "SECRET")) {
                /* run inside a job, this would print the job's secret */
                printf("  %-22s %-4s default '%s', current value not shown (set, %zu "
                       "characters)\n      %s\n", name, type, def, strlen(env), help);
                continue;
            }
            printf("  %-22s %-4s default '%s'%s%s%s\n      %s\n", name, type, def,
                   env ? ", set to '" : "", env ? env : "", env ? "'" : "", help);
        }
    }
    if (all || err) {
        printf("\nstatus codes:\n  %-24s %4d  %s\n", "RTOPO_OK", 0, rtopo_strerror(0));
        for (i = -1; i > RTOPO_ERR_LAST; i--)
            printf("  %-24s %4d  %s\n", rtopo_err_name(i), i, rtopo_strerror(i));
    }
    return 0;
}
