#include "config.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "rtopo.h"
#include "log.h"

int rtopo__log_level = RTOPO__LOG_WARN;
int rtopo__log_rank = -1;

static const char *const rtopo__level_names[] = {
    "error", "warn", "info", "debug", "trace"
};

static __thread char rtopo__last_error[256];

int rtopo__log_level_of(const char *name)
{
    int i;

    for (i = 0; name && i <= RTOPO__LOG_TRACE; i++)
        if (!strcasecmp(name, rtopo__level_names[i]))
            return i;
    return -1;
}

/* NULL or "": unchanged */
int rtopo__log_set_level(const char *name)
{
    int i = rtopo__log_level_of(name);

    if (!name || !*name)
        return RTOPO_OK;
    if (i < 0)
        return rtopo__error(RTOPO_ERR_INVAL, "RTOPO_LOG_LEVEL '%s' is not one of error, "
                            "warn, info, debug, trace", name);
    rtopo__log_level = i;
    return RTOPO_OK;
}

static void rtopo__log_vemit(int level, const char *file, int line,
                             const char *func, const char *fmt, va_list ap)
{
    int saved = errno;
    const char *base = strrchr(file, '/');
    char msg[512];

    vsnprintf(msg, sizeof(msg), fmt, ap);
    fprintf(stderr, "rtopo[%d %d] %s %s:%d %s: %s\n", rtopo__log_rank,
            (int)getpid(), rtopo__level_names[level], base ? base + 1 : file,
            line, func, msg);
    errno = saved;
}

void rtopo__log_emit(int level, const char *file, int line, const char *func,
                     const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    rtopo__log_vemit(level, file, line, func, fmt, ap);
    va_end(ap);
}

int rtopo__error_set(int status, int level, const char *file, int line,
                     const char *func, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(rtopo__last_error, sizeof(rtopo__last_error), fmt, ap);
    va_end(ap);
    if (level <= rtopo__log_level)
        rtopo__log_emit(level, file, line, func, "%s: %s",
                        rtopo_err_name(status), rtopo__last_error);
    return status;
}

const char *rtopo_last_error(void)
{
    return rtopo__last_error;
}

const char *rtopo_strerror(int status)
{
    switch (status) {
    case RTOPO_OK:
        return "success";
#define RTOPO__ERR_STR(name, val, msg) case RTOPO_ERR_##name: return msg;
    RTOPO_ERRNO_MAP(RTOPO__ERR_STR)
#undef RTOPO__ERR_STR
    default:
        return "unknown error";
    }
}

const char *rtopo_err_name(int status)
{
    switch (status) {
    case RTOPO_OK:
        return "RTOPO_OK";
#define RTOPO__ERR_NAME(name, val, msg) case RTOPO_ERR_##name: return "RTOPO_ERR_" #name;
    RTOPO_ERRNO_MAP(RTOPO__ERR_NAME)
#undef RTOPO__ERR_NAME
    default:
        return "RTOPO_ERR_UNKNOWN";
    }
}
