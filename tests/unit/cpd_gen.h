/* SPDX-License-Identifier: MIT */
/*
 * cpd_gen.h - the series generator shared by test_cpd_sim.c and
 * bench/bench_cpd.c: seeded (splitmix64 seeding xoshiro256**), so every run
 * and machine sees the same series. Noise shapes around a level of 100 with
 * a relative scale s: Gaussian, Student t with 3 degrees of freedom (heavy
 * tails), log-normal (right-skewed), bimodal (two modes s * 3 apart), and
 * Gaussian with 2 % outliers 20 % high (a run that shared its GPU).
 * Header-only: static functions, included by one file per program.
 */
#ifndef GP_TESTS_CPD_GEN_H
#define GP_TESTS_CPD_GEN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

enum cpd_shape { CPD_GAUSS, CPD_STUDENT3, CPD_LOGNORMAL, CPD_BIMODAL, CPD_OUTLIERS, CPD_NSHAPES };

static const char *const cpd_shape_names[CPD_NSHAPES] = { "gaussian", "student-t3", "lognormal",
	                                                  "bimodal", "outliers" };

struct cpd_rng {
	uint64_t s[4];
};

static uint64_t cpd_splitmix(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void cpd_rng_seed(struct cpd_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = cpd_splitmix(&seed);
}

static uint64_t cpd_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t cpd_next(struct cpd_rng *r)
{
	uint64_t *s = r->s, res = cpd_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = cpd_rotl(s[3], 45);
	return res;
}

/* uniform in (0, 1) */
static double cpd_unif(struct cpd_rng *r)
{
	return ((double)(cpd_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double cpd_normal(struct cpd_rng *r)
{
	double u = cpd_unif(r), v = cpd_unif(r);

	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

/* one noise value of @p shape, relative scale @p s, around 1 */
static double cpd_noise(struct cpd_rng *r, enum cpd_shape shape, double s)
{
	double z, c;

	switch (shape) {
	case CPD_STUDENT3:
		z = cpd_normal(r);
		c = 0;
		for (int k = 0; k < 3; k++) {
			double g = cpd_normal(r);

			c += g * g;
		}
		return 1 + s * z / sqrt(c / 3);
	case CPD_LOGNORMAL:
		return 1 + s * (exp(cpd_normal(r)) - 1.6487212707001282); /* mean 0 */
	case CPD_BIMODAL:
		return 1 + s * ((cpd_unif(r) < 0.5 ? -1.5 : 1.5) + 0.3 * cpd_normal(r));
	case CPD_OUTLIERS:
		return (1 + s * cpd_normal(r)) * (cpd_unif(r) < 0.02 ? 1.2 : 1.0);
	case CPD_GAUSS:
	default:
		return 1 + s * cpd_normal(r);
	}
}

/* x[0, n) = 100 * noise, pure noise */
static void cpd_series(struct cpd_rng *r, enum cpd_shape shape, double s, double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x[i] = 100 * cpd_noise(r, shape, s);
}

#endif
