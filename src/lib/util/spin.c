/* SPDX-License-Identifier: MIT */
/*
 * spin.c - bounded spin-waiting on a flag; see spin.h.
 */
#include "spin.h"

#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#elif defined(__aarch64__)
#define cpu_relax() __asm__ __volatile__("yield")
#else
#define cpu_relax() ((void)0)
#endif

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void gp__spin_until(const atomic_bool *done, uint64_t max_ns)
{
	uint64_t start = now_ns();
	unsigned i;

	for (;;) {
		/* a clock read every 256 pauses (some microseconds) */
		for (i = 0; i < 256; i++) {
			if (atomic_load_explicit(done, memory_order_acquire))
				return;
			cpu_relax();
		}
		if (now_ns() - start >= max_ns)
			return;
	}
}
