/* SPDX-License-Identifier: MIT */
/*
 * spin.h - waiting for another thread's job of a few milliseconds.
 *
 * A CPU that blocks for longer than a VM host's halt polling (a fraction of
 * a millisecond) is descheduled by the host, and waking it again takes up to
 * a host tick: 0-4 ms on the machines gpuprof was measured on, as long as
 * the jobs the analyses hand to a second thread. So a thread that waits for
 * such a job first spins on the job's done flag (with a pause hint, which
 * also lets a host see the spin), for a bounded time, and only then blocks.
 */
#ifndef GP_UTIL_SPIN_H
#define GP_UTIL_SPIN_H

#include <stdatomic.h>
#include <stdint.h>

/*
 * How long a waiter spins before it sleeps: long enough for the usual
 * hand-over between the analysis threads, short enough that on a loaded host
 * (where a spinning CPU takes time from the working one) a long wait costs
 * little: measured on a 2-vCPU VM under another tenant's load, spins of
 * 50 ms made analyze 10 % slower than spins of 0.3-1 ms.
 */
#define GP_SPIN_NS (1000u * 1000)

/** Returns when *@p done is true, or after about @p max_ns of spinning. */
void gp__spin_until(const atomic_bool *done, uint64_t max_ns);

#endif
