/*
 * log.h - logging and error detail.
 *
 * rtopo__log() costs one comparison when the level is off.  Lines read
 * "rtopo[rank pid] level file:line function: message".  rtopo__error()
 * records the detail of an error (rtopo_last_error()) and logs it once, at
 * info level, where it is first detected, then returns the status for
 * `return`: the caller gets the code, so the library stays quiet by
 * default.  Events nobody returns to (a dead peer) use rtopo__warn().
 */
#ifndef RTOPO_LOG_H
#define RTOPO_LOG_H

#include <stdarg.h>

enum { RTOPO__LOG_ERROR = 0, RTOPO__LOG_WARN, RTOPO__LOG_INFO,
       RTOPO__LOG_DEBUG, RTOPO__LOG_TRACE };

extern int rtopo__log_level;
extern int rtopo__log_rank;

/* the level of a name (error, warn, info, debug, trace; any case), or -1 */
int rtopo__log_level_of(const char *name);
/* sets the level by name: RTOPO_ERR_INVAL for another name; NULL or "":
 * unchanged */
int rtopo__log_set_level(const char *name);
void rtopo__log_emit(int level, const char *file, int line, const char *func,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
int rtopo__error_set(int status, int level, const char *file, int line,
                     const char *func, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

#define rtopo__log(lvl, ...)                                                  \
    do {                                                                      \
        if ((lvl) <= rtopo__log_level)                                        \
            rtopo__log_emit((lvl), __FILE__, __LINE__, __func__, __VA_ARGS__); \
    } while (0)
#define rtopo__warn(...)  rtopo__log(RTOPO__LOG_WARN, __VA_ARGS__)
#define rtopo__info(...)  rtopo__log(RTOPO__LOG_INFO, __VA_ARGS__)
#define rtopo__debug(...) rtopo__log(RTOPO__LOG_DEBUG, __VA_ARGS__)
#define rtopo__trace(...) rtopo__log(RTOPO__LOG_TRACE, __VA_ARGS__)

/* return rtopo__error(RTOPO_ERR_INVAL, "bytes %zu too large", n); */
#define rtopo__error(status, ...)                                             \
    rtopo__error_set((status), RTOPO__LOG_INFO, __FILE__, __LINE__, __func__, \
                     __VA_ARGS__)
/* the same, logged only at debug level (expected errors, e.g. probing) */
#define rtopo__error_quiet(status, ...)                                       \
    rtopo__error_set((status), RTOPO__LOG_DEBUG, __FILE__, __LINE__,          \
                     __func__, __VA_ARGS__)

#endif
