/* SPDX-License-Identifier: MIT */
/*
 * spare.h - one spare thread that runs the jobs handed to it, one at a time.
 *
 * Between jobs it spins (util/spin.h) for a bounded time before it sleeps, so
 * a job handed within milliseconds of the last starts at once, even on a VM
 * whose idle CPUs wake a host tick late; and whoever waits for a job spins
 * the same way. The analysis of one trace uses it for the sorts of its
 * context and for its sections (analyze.c, ctx.c).
 */
#ifndef GP_UTIL_SPARE_H
#define GP_UTIL_SPARE_H

struct gp_spare;

/** Starts the thread; NULL when it cannot be (the caller then runs the jobs itself). */
struct gp_spare *gp__spare_start(void);

/** Hands @p fn(@p arg) to the thread, which must be idle (its last job waited for). */
void gp__spare_run(struct gp_spare *s, void (*fn)(void *), void *arg);

/** Waits until the job handed last has returned (at once when there was none). */
void gp__spare_wait(struct gp_spare *s);

/** Waits for the job, stops the thread and frees @p s; a no-op on NULL. */
void gp__spare_stop(struct gp_spare *s);

#endif
