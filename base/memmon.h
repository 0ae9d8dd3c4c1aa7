/*
 * memmon.h - hearing of memory that leaves the process.
 *
 * A registration made for a buffer names the pages behind its addresses
 * when it was made.  Once those addresses are unmapped, or their pages
 * discarded, a new allocation at the same addresses gets other pages,
 * and a kept registration would move data to or from the old ones.  The
 * monitor watches ranges through the kernel's userfaultfd, in
 * write-protect mode with nothing protected: it never takes a page fault
 * of the process, and it hears of munmap, of mremap away, of a shrinking
 * brk, of mmap over a range, and of madvise(MADV_DONTNEED, MADV_FREE,
 * MADV_REMOVE) on a watched range.  Some ways out of other kinds of
 * mappings go unreported (shmdt of a System V segment): a caller that
 * must hear of every one asks for private anonymous memory only, which
 * is what malloc and anonymous mmap give.
 *
 * The kernel holds the thread that unmaps until the event is read; a
 * thread of the monitor reads it and reports the range.  A caller that
 * looks up a registration calls rtopo__memmon_sync first: it returns
 * only when every event read so far has been reported, so that a range
 * unmapped before the lookup (the unmap call has returned) is already
 * known as gone.
 */
#ifndef RTOPO_MEMMON_H
#define RTOPO_MEMMON_H

#include <stddef.h>
#include <stdint.h>

typedef struct rtopo__memmon rtopo__memmon_t;

/* called on the monitor's thread for each range [start, end) whose
 * pages left a watched mapping; it must not unmap memory itself */
typedef void (*rtopo__memmon_fn)(void *arg, uintptr_t start, uintptr_t end);

/* Starts a monitor and its thread.  0, or -errno (why names the step
 * that failed: the kernel may refuse userfaultfd, or lack an event). */
int rtopo__memmon_open(rtopo__memmon_fn fn, void *arg, rtopo__memmon_t **mm_p,
                       const char **why);

/* Watches the pages holding [buf, buf + len).  0, or -errno when the
 * kernel cannot watch that mapping, or (anon_only) when some of it is
 * not private anonymous memory: then nothing of it is watched.  anon_only
 * reads /proc/self/maps (tens of microseconds). */
int rtopo__memmon_watch(rtopo__memmon_t *mm, const void *buf, size_t len, int anon_only);

/* Returns when every event read so far has been reported. */
void rtopo__memmon_sync(rtopo__memmon_t *mm);

/* Stops the thread and drops every watch. */
void rtopo__memmon_close(rtopo__memmon_t *mm);

#endif
