/*
 * boot.c - choosing the bootstrap method, and the single method.
 *
 * auto: an allgather callback in the config wins (the caller knows
 * best), then rtopo-run's environment, then a PMIx server, then a job
 * of one.  A PMIx server without PMIx support is an error rather than
 * a job of one: N processes each believing they are alone would fail
 * much later and much less clearly.
 */
#include "config.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "rtopo.h"
#include "log.h"
#include "params.h"
#include "boot.h"
#include "boot_wire.h"

extern char **environ;

static int rtopo__single_allgather(struct rtopo__boot *b, const void *in,
                                   void *out, size_t len)
{
    if (len)
        memmove(out, in, len);
    return RTOPO_OK;
}

static int rtopo__single_barrier(struct rtopo__boot *b)
{
    return RTOPO_OK;
}

static int rtopo__single_poll_failure(struct rtopo__boot *b, int *rank)
{
    return 0;
}

static void rtopo__single_close(struct rtopo__boot *b)
{
    free(b);
}

static const struct rtopo__boot_ops rtopo__boot_single_ops = {
    .name = "single",
    .allgather = rtopo__single_allgather,
    .barrier = rtopo__single_barrier,
    .poll_failure = rtopo__single_poll_failure,
    .close = rtopo__single_close,
};

static int rtopo__boot_single_open(struct rtopo__boot **boot_p)
{
    struct rtopo__boot *b = calloc(1, sizeof(*b));

    if (!b)
        return rtopo__error(RTOPO_ERR_NOMEM, "single bootstrap");
    b->ops = &rtopo__boot_single_ops;
    b->rank = 0;
    b->size = 1;
    *boot_p = b;
    return RTOPO_OK;
}

/* PMIx servers (mpirun, prterun, slurm) export these to their clients */
static int rtopo__pmix_present(void)
{
    char **e;

    for (e = environ; e && *e; e++)
        if (!strncmp(*e, "PMIX_SERVER_URI", 15) ||
            !strncmp(*e, "PMIX_NAMESPACE=", 15))
            return 1;
    return 0;
}

static int rtopo__cfg_has_allgather(const rtopo_config_t *cfg)
{
    return cfg && cfg->size >= offsetof(rtopo_config_t, allgather_arg) +
                               sizeof(cfg->allgather_arg) &&
           cfg->allgather;
}

int rtopo__boot_open(const rtopo_config_t *cfg, const char *method,
                     int timeout_ms, struct rtopo__boot **boot_p)
{
    struct rtopo__boot *b = NULL;
    rtopo__params_t p;
    int st;

    st = rtopo__params_load(&p);
    if (st != RTOPO_OK)
        return st;
    if (!method || !*method)
        method = p.boot;
    if (timeout_ms <= 0)
        timeout_ms = p.timeout_ms > 0 ? (int)p.timeout_ms : 60000;

    if (!strcmp(method, "auto")) {
        if (rtopo__cfg_has_allgather(cfg))
            method = "oob";
        else if (*p.boot_addr)
            method = "env";
        else if (rtopo__pmix_present())
            method = "pmix";
        else
            method = "single";
    }

    if (!strcmp(method, "oob")) {
        if (!rtopo__cfg_has_allgather(cfg))
            return rtopo__error(RTOPO_ERR_INVAL,
                                "bootstrap method oob needs an allgather "
                                "callback in rtopo_config_t");
        st = rtopo__boot_oob_open(cfg->rank, cfg->nranks, cfg->allgather,
                                  cfg->allgather_arg, &b);
    } else if (!strcmp(method, "env")) {
        if (!*p.boot_addr)
            return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                                "bootstrap method env needs RTOPO_BOOT_ADDR "
                                "(start the job with rtopo-run)");
        st = rtopo__boot_env_open((int)p.rank, (int)p.size, p.boot_addr,
                                  p.job_secret, timeout_ms, &b);
    } else if (!strcmp(method, "pmix")) {
#ifdef HAVE_PMIX
        st = rtopo__boot_pmix_open(timeout_ms, &b);
#else
        return rtopo__error(RTOPO_ERR_BOOTSTRAP,
                            "a PMIx launcher started this process, but rtopo "
                            "was built without PMIx (use rtopo-run, an "
                            "allgather callback, or RTOPO_BOOT=single)");
#endif
    } else if (!strcmp(method, "single")) {
        /* a job of one, which RTOPO_SIZE or RTOPO_RANK must not contradict */
        if (p.size > 1 || p.rank > 0)
            return rtopo__error(RTOPO_ERR_INVAL,
                                "bootstrap method single runs a job of 1 rank, but "
                                "RTOPO_%s is %d (start a job of several ranks with "
                                "rtopo-run)", p.size > 1 ? "SIZE" : "RANK",
                                p.size > 1 ? (int)p.size : (int)p.rank);
        st = rtopo__boot_single_open(&b);
    } else {
        return rtopo__error(RTOPO_ERR_INVAL,
                            "RTOPO_BOOT '%s' is not auto, env, pmix, oob or single",
                            method);
    }
    if (st != RTOPO_OK)
        return st;

    if (*p.host_id) {
        snprintf(b->host_id, sizeof(b->host_id), "%s", p.host_id);
    } else if (gethostname(b->host_id, sizeof(b->host_id) - 1)) {
        rtopo__warn("gethostname: %m; using \"localhost\" as the host id");
        strcpy(b->host_id, "localhost");
    }
    b->host_id[sizeof(b->host_id) - 1] = '\0';
    rtopo__log_rank = b->rank;
    rtopo__debug("bootstrap %s: rank %d of %d on host %s", b->ops->name,
                 b->rank, b->size, b->host_id);
    *boot_p = b;
    return RTOPO_OK;
}

/* The running kernel (its boot id) and one namespace of this process,
 * as "BOOTID|NS". */
static void rtopo__boot_kernel_ns(const char *ns_kind, char *out, size_t n)
{
    char boot[48] = "", ns[64] = "", path[32];
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    ssize_t k;

    if (f) {
        if (!fgets(boot, sizeof(boot), f))
            boot[0] = '\0';
        boot[strcspn(boot, "\n")] = '\0';
        fclose(f);
    }
    snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_kind);
    k = readlink(path, ns, sizeof(ns) - 1);
    ns[k > 0 ? k : 0] = '\0';
    snprintf(out, n, "%s|%s", boot, ns);
}

int rtopo__boot_locate(struct rtopo__boot *b)
{
    /* stack: the running kernel and the network namespace; two ranks with
     * the same reach each other over loopback (the host name does not
     * tell: emulated hosts share the machine, containers may share a
     * name).  machine: the host's name (or RTOPO_HOST_ID, which
     * rtopo-run --hosts sets to emulate several), the running kernel and
     * the pid namespace (cross-memory attach takes pids); two ranks with
     * the same may share memory. */
    struct rtopo__where {
        char stack[112];
        char machine[176];
    } me, *all;
    char kns[112];
    size_t boot_len;
    int r, st;

    free(b->local);
    free(b->same_host);
    free(b->same_kernel);
    b->local = calloc((size_t)b->size, 1);
    b->same_host = calloc((size_t)b->size, 1);
    b->same_kernel = calloc((size_t)b->size, 1);
    if (!b->local || !b->same_host || !b->same_kernel)
        return RTOPO_ERR_NOMEM;
    b->one_stack = b->one_host = 1;
    if (b->size == 1) {
        b->local[0] = b->same_host[0] = b->same_kernel[0] = 1;
        return RTOPO_OK;
    }
    memset(&me, 0, sizeof(me));
    rtopo__boot_kernel_ns("net", me.stack, sizeof(me.stack));
    rtopo__boot_kernel_ns("pid", kns, sizeof(kns));
    snprintf(me.machine, sizeof(me.machine), "%s|%s", b->host_id, kns);
    all = calloc((size_t)b->size, sizeof(*all));
    if (!all)
        return RTOPO_ERR_NOMEM;
    st = rtopo__boot_allgather(b, &me, all, sizeof(me));
    boot_len = strcspn(me.stack, "|");
    for (r = 0; st == RTOPO_OK && r < b->size; r++) {
        /* an id that could not be read matches nothing but itself */
        b->local[r] = r == b->rank ||
                      (me.stack[0] != '|' && !memcmp(all[r].stack, me.stack, sizeof(me.stack)));
        b->same_kernel[r] = r == b->rank ||
                            (boot_len && !strncmp(all[r].stack, me.stack, boot_len + 1));
        b->same_host[r] = !memcmp(all[r].machine, me.machine, sizeof(me.machine));
        b->one_stack &= b->local[r];
        b->one_host &= b->same_host[r];
    }
    free(all);
    if (st == RTOPO_OK)
        rtopo__debug("%s network stack: %s", b->one_stack ? "every rank in this"
                     : "ranks in several", me.stack);
    return st;
}
