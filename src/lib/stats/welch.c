/* SPDX-License-Identifier: MIT */
/*
 * welch.c - Welch's t-test on log values and Student's t distribution
 * (welch.h).
 *
 * Iteration and step times are positive and skewed, and a change is a
 * factor: the test runs on their logarithms, so the difference of the means
 * is the log of the geometric-mean ratio new/base and its interval is an
 * interval of that ratio. Welch's form does not assume equal spreads
 * (hyperfine's scripts/welch_ttest.py, scipy.stats.ttest_ind(equal_var=False)).
 * Student's t CDF is the regularized incomplete beta function,
 * P(|T| > t) = I_{df / (df + t^2)}(df / 2, 1 / 2), evaluated by its continued
 * fraction (modified Lentz); the quantile by bisection on the CDF. Pure
 * functions of their arguments: the same numbers everywhere.
 */
#include <math.h>

#include "stats/welch.h"
#include "util/error.h"

/* the continued fraction of I_x(a, b), for x < (a + 1) / (a + b + 2) */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 1000; m++) {
		double m2 = 2.0 * m, num, del;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* the regularized incomplete beta function I_x(a, b), a, b > 0 */
static double ibeta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double gp__student_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	tail = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t)); /* P(T > |t|) */
	return t > 0 ? 1 - tail : tail;
}

double gp__student_t_quantile(double q, double df)
{
	double lo = -1, hi = 1;
	int i;

	if (!(q > 0 && q < 1) || !(df > 0))
		return NAN;
	while (gp__student_t_cdf(lo, df) > q)
		lo *= 2;
	while (gp__student_t_cdf(hi, df) < q)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
		double mid = 0.5 * (lo + hi);

		if (gp__student_t_cdf(mid, df) < q)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* mean and sample variance of log x; false on a value that is not positive and finite */
static int log_moments(const double *x, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(x[i] > 0) || !isfinite(x[i]))
			return GP_EINVAL;
		s += log(x[i]);
	}
	*mean = s / (double)n;
	for (i = 0; i < n; i++) {
		double d = log(x[i]) - *mean;

		ss += d * d;
	}
	*var = ss / (double)(n - 1);
	return 0;
}

int gp__welch_log(const double *base, size_t nb, const double *new_, size_t nn, double confidence,
                  struct gp__welch *out)
{
	double mb, vb, mn, vn, qb, qn, se, d, tq;

	if (!base || !new_ || !out || nb < 2 || nn < 2)
		return gp__error(GP_EINVAL, "Welch's t-test needs 2 values or more per side");
	if (!(confidence > 0 && confidence < 1))
		return gp__error(GP_EINVAL, "confidence %g is not between 0 and 1", confidence);
	if (log_moments(base, nb, &mb, &vb) || log_moments(new_, nn, &mn, &vn))
		return gp__error(GP_EINVAL, "Welch's t-test on logs needs positive, finite values");
	qb = vb / (double)nb;
	qn = vn / (double)nn;
	se = sqrt(qb + qn);
	d = mn - mb;
	out->ratio = exp(d);
	if (se == 0) {
		out->t = d == 0 ? 0 : d > 0 ? INFINITY : -INFINITY;
		out->df = (double)(nb + nn - 2);
		out->p = d == 0 ? 1 : 0;
		out->ratio_lo = out->ratio_hi = out->ratio;
		return 0;
	}
	out->t = d / se;
	/* Welch-Satterthwaite; a side without spread adds nothing to either sum */
	out->df = (qb + qn) * (qb + qn) / (qb * qb / (double)(nb - 1) + qn * qn / (double)(nn - 1));
	out->p = 2 * gp__student_t_cdf(-fabs(out->t), out->df);
	if (out->p > 1)
		out->p = 1;
	tq = gp__student_t_quantile(0.5 + confidence / 2, out->df);
	out->ratio_lo = exp(d - tq * se);
	out->ratio_hi = exp(d + tq * se);
	return 0;
}

double gp__welch_p(double mean_b, double sd_b, double n_b, double mean_n, double sd_n, double n_n)
{
	double qb, qn, df, p;

	if (!(n_b >= 2 && n_n >= 2) || !isfinite(mean_b) || !isfinite(mean_n) ||
	    !(sd_b >= 0 && sd_n >= 0) || !isfinite(sd_b) || !isfinite(sd_n) || !isfinite(n_b) ||
	    !isfinite(n_n))
		return NAN;
	qb = sd_b * sd_b / n_b;
	qn = sd_n * sd_n / n_n;
	if (qb + qn == 0)
		return mean_b == mean_n ? 1 : 0;
	df = (qb + qn) * (qb + qn) / (qb * qb / (n_b - 1) + qn * qn / (n_n - 1));
	p = 2 * gp__student_t_cdf(-fabs(mean_n - mean_b) / sqrt(qb + qn), df);
	return p > 1 ? 1 : p;
}
