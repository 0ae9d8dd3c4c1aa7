/*
 * sim_draw.h - rtopo-sim --draw: a picture of the schedule the simulator
 * runs, drawn with gnuplot (Debian package gnuplot-nox, or $GNUPLOT).
 *
 * The topology in its own layout (ring: a circle; mesh: a grid with its
 * wraparound links; hypercube: nested squares; OTIS: the groups side by
 * side with the optical links between them), one panel per round (per
 * phase of rounds when there are many) with each hop of the round as an
 * arrow coloured by link class, and under every node the ranks whose
 * data it holds at the start of the round.  Above SIM_DRAW_MAX_RANKS
 * ranks, or arrows, the picture is a summary: hops per round and link
 * class.  FILE.png (pngcairo) or FILE.svg (svg terminal).
 */
#ifndef RTOPO_SIM_DRAW_H
#define RTOPO_SIM_DRAW_H

#include "rtopo_sched.h"

#define SIM_DRAW_MAX_RANKS 64      /* nodes drawn one by one, at most */
#define SIM_DRAW_MAX_PANELS 12     /* round panels, before rounds group in phases */
#define SIM_DRAW_MAX_ARROWS 256    /* arrows in one panel, at most */

/* the FILE of --draw, or NULL */
extern const char *sim_draw_path;

/* Take --draw FILE (or --draw=FILE) out of argv, wherever it is, and set
 * sim_draw_path.  0 when absent or well formed; 2 (with a message on
 * stderr) when FILE is missing, repeated or not *.png / *.svg. */
int sim_draw_option(int *argc, char **argv);

/* the gnuplot to run ($GNUPLOT, or gnuplot in PATH), malloc'd; NULL if
 * there is none */
char *sim_find_gnuplot(void);

/* Draw s into sim_draw_path; the title is printf-like.  One schedule per
 * run: a second call fails.  RTOPO_OK, or RTOPO_ERR_UNSUPPORTED (no
 * gnuplot), RTOPO_ERR_INVAL (gnuplot failed, a second schedule),
 * RTOPO_ERR_NOMEM, with rtopo_last_error() saying why. */
int sim_draw(const rtopo__sched_t *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
