/* SPDX-License-Identifier: MIT */
/*
 * opmodel-parse.c - the recorded inputs of PyTorch ops as the models read
 * them: dtypes (names, sizes, the c10 spellings of "Input type") and the
 * bounded parsers of the three record_shapes texts (an array of arrays of
 * integers, two arrays of strings), which never read past the given length
 * and stop at GP_OPM_MAX_IN inputs and GP_OPM_MAX_RANK dimensions; sizes
 * past GP_OPM_DIM_MAX make a shape unknown. The models that use them are
 * opmodel.c.
 */
#include <string.h>

#include "opmodel.h"
#include "util/error.h"

/* ---- dtypes ---- */

static const struct {
	const char *c10;
	size_t len;
	enum gp__dtype d;
} c10_types[] = {
#define T(s, d)                                                                                    \
	{                                                                                          \
		s, sizeof(s) - 1, d                                                                \
	}
	T("float", GP_DT_F32),
	T("double", GP_DT_F64),
	T("c10::Half", GP_DT_F16),
	T("c10::BFloat16", GP_DT_BF16),
	T("c10::Float8_e4m3fn", GP_DT_F8),
	T("c10::Float8_e5m2", GP_DT_F8),
	T("c10::Float8_e4m3fnuz", GP_DT_F8),
	T("c10::Float8_e5m2fnuz", GP_DT_F8),
	T("c10::Float8_e8m0fnu", GP_DT_F8),
	T("signed char", GP_DT_I8),
	T("unsigned char", GP_DT_U8),
	T("short int", GP_DT_I16),
	T("short", GP_DT_I16),
	T("unsigned short", GP_DT_I16),
	T("int", GP_DT_I32),
	T("unsigned int", GP_DT_I32),
	T("long int", GP_DT_I64),
	T("long", GP_DT_I64),
	T("long long int", GP_DT_I64),
	T("unsigned long", GP_DT_I64),
	T("bool", GP_DT_BOOL),
	T("c10::complex<float>", GP_DT_C64),
	T("c10::complex<double>", GP_DT_C128),
	T("c10::qint8", GP_DT_I8),
	T("c10::quint8", GP_DT_U8),
	T("c10::qint32", GP_DT_I32),
#undef T
};

static const struct {
	const char *name;
	size_t size;
} dtypes[GP_DT__COUNT] = {
	[GP_DT_NONE] = { NULL, 0 },       [GP_DT_F64] = { "fp64", 8 },
	[GP_DT_F32] = { "fp32", 4 },      [GP_DT_F16] = { "fp16", 2 },
	[GP_DT_BF16] = { "bf16", 2 },     [GP_DT_F8] = { "fp8", 1 },
	[GP_DT_I8] = { "int8", 1 },       [GP_DT_U8] = { "uint8", 1 },
	[GP_DT_I16] = { "int16", 2 },     [GP_DT_I32] = { "int32", 4 },
	[GP_DT_I64] = { "int64", 8 },     [GP_DT_BOOL] = { "bool", 1 },
	[GP_DT_C64] = { "complex64", 8 }, [GP_DT_C128] = { "complex128", 16 },
};

size_t gp__dtype_size(enum gp__dtype d)
{
	return (unsigned)d < GP_DT__COUNT ? dtypes[d].size : 0;
}

const char *gp__dtype_name(enum gp__dtype d)
{
	return (unsigned)d < GP_DT__COUNT ? dtypes[d].name : NULL;
}

bool gp__dtype_float(enum gp__dtype d)
{
	return d == GP_DT_F64 || d == GP_DT_F32 || d == GP_DT_F16 || d == GP_DT_BF16 ||
	       d == GP_DT_F8 || d == GP_DT_C64 || d == GP_DT_C128;
}

enum gp__dtype gp__dtype_from_c10(const char *s, size_t len)
{
	size_t i;

	/* "" (not a tensor) is the most common entry */
	if (len == 0)
		return GP_DT_NONE;
	for (i = 0; i < GP_ARRAY_SIZE(c10_types); i++)
		if (c10_types[i].len == len && c10_types[i].c10[0] == s[0] &&
		    memcmp(c10_types[i].c10, s, len) == 0)
			return c10_types[i].d;
	return GP_DT_NONE;
}

static const char *const kind_names[] = { NULL,      "gemm", "conv",        "attention",
	                                  "softmax", "norm", "elementwise", "reduction" };

const char *gp__opm_kind_name(enum gp__opm_kind k)
{
	return (unsigned)k < GP_ARRAY_SIZE(kind_names) ? kind_names[k] : NULL;
}

bool gp__opm_matrix(enum gp__opm_kind k)
{
	return k == GP_OPM_GEMM || k == GP_OPM_CONV || k == GP_OPM_ATTENTION;
}

/* ---- the parsers ---- */

void gp__opm_skip_ws(const char **p, const char *end)
{
	const char *q = *p;

	/* the characters past ' ' are none of them (nearly every call) */
	while (q < end && (unsigned char)*q <= ' ' &&
	       (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
		q++;
	*p = q;
}

/* skips a string whose opening quote is at *p; false when it does not end */
static bool skip_string(const char **p, const char *end)
{
	const char *q = *p + 1;

	while (q < end && *q != '"')
		q += *q == '\\' ? 2 : 1;
	if (q >= end)
		return false;
	*p = q + 1;
	return true;
}

/* skips one value (nested arrays, strings, scalars) up to the ',' or ']' that ends it */
static bool skip_value(const char **p, const char *end)
{
	size_t depth = 0;

	while (*p < end) {
		char ch = **p;

		if (ch == '"') {
			if (!skip_string(p, end))
				return false;
			continue;
		}
		if (ch == '[' || ch == '{')
			depth++;
		else if (ch == ']' || ch == '}') {
			if (!depth)
				return true;
			depth--;
		} else if (ch == ',' && !depth)
			return true;
		(*p)++;
	}
	return false;
}

/* one "Input Dims" item, at *p: [d0, d1, ...] of integers, else rank -1 */
static bool parse_shape(const char **p, const char *end, struct gp__opm_in *in)
{
	bool ok = true;
	int rank = 0;

	if (*p >= end || **p != '[') {
		in->rank = -1;
		return skip_value(p, end);
	}
	(*p)++;
	gp__opm_skip_ws(p, end);
	if (*p < end && **p == ']') {
		(*p)++;
		in->rank = 0;
		return true;
	}
	for (;;) {
		gp__opm_skip_ws(p, end);
		if (*p >= end)
			return false;
		if (**p >= '0' && **p <= '9') {
			int64_t v = 0;

			while (*p < end && **p >= '0' && **p <= '9') {
				if (v <= GP_OPM_DIM_MAX)
					v = v * 10 + (**p - '0');
				(*p)++;
			}
			if (v > GP_OPM_DIM_MAX || rank >= GP_OPM_MAX_RANK)
				ok = false;
			else
				in->d[rank] = v;
			rank++;
			if (*p < end && **p != ',' && **p != ']' && **p != ' ') {
				ok = false; /* 1.5, 1e3 */
				if (!skip_value(p, end))
					return false;
			}
		} else {
			ok = false;
			if (!skip_value(p, end))
				return false;
		}
		gp__opm_skip_ws(p, end);
		if (*p >= end)
			return false;
		if (**p == ',') {
			(*p)++;
			continue;
		}
		if (**p != ']')
			return false;
		(*p)++;
		break;
	}
	in->rank = ok ? rank : -1;
	return true;
}

static bool parse_dims(const char *s, size_t len, struct gp__opm_args *a)
{
	const char *p = s, *end = s + len;

	gp__opm_skip_ws(&p, end);
	if (p >= end || *p != '[')
		return false;
	p++;
	gp__opm_skip_ws(&p, end);
	if (p < end && *p == ']')
		return true;
	for (;;) {
		struct gp__opm_in scratch, *in = a->n < GP_OPM_MAX_IN ? &a->in[a->n] : &scratch;

		if (a->n < GP_OPM_MAX_IN && a->used <= a->n)
			a->used = a->n + 1;
		gp__opm_skip_ws(&p, end);
		if (!parse_shape(&p, end, in))
			return false;
		if (a->n < GP_OPM_MAX_IN)
			a->n++;
		gp__opm_skip_ws(&p, end);
		if (p >= end)
			return false;
		if (*p == ',') {
			p++;
			continue;
		}
		return *p == ']';
	}
}

/*
 * The strings of a JSON array of strings, raw (escapes left as they are):
 * each input's dtype (@p types) or Concrete Inputs slice. Stops quietly at
 * the first thing that is not a string.
 */
static void parse_strings(const char *s, size_t len, struct gp__opm_args *a, bool types)
{
	const char *p = s, *end = s + len;
	size_t i = 0;

	gp__opm_skip_ws(&p, end);
	if (p >= end || *p != '[')
		return;
	p++;
	for (; i < GP_OPM_MAX_IN; i++) {
		const char *q;

		gp__opm_skip_ws(&p, end);
		if (p >= end || *p != '"')
			return;
		q = p;
		if (!skip_string(&p, end))
			return;
		if (a->used <= i)
			a->used = i + 1;
		if (types)
			a->in[i].ty = gp__dtype_from_c10(q + 1, (size_t)(p - q - 2));
		else {
			a->in[i].conc = q + 1;
			a->in[i].conc_len = (size_t)(p - q - 2);
		}
		gp__opm_skip_ws(&p, end);
		if (p >= end || *p != ',')
			return;
		p++;
	}
}

/* the parse into @p a, all zero */
static bool parse_into(const char *dims, size_t dims_len, const char *types, size_t types_len,
                       const char *conc, size_t conc_len, struct gp__opm_args *a)
{
	if (!dims || !parse_dims(dims, dims_len, a))
		return false;
	if (types) {
		a->typed = true;
		parse_strings(types, types_len, a, true);
	}
	if (conc)
		parse_strings(conc, conc_len, a, false);
	return true;
}

bool gp__opm_parse(const char *dims, size_t dims_len, const char *types, size_t types_len,
                   const char *conc, size_t conc_len, struct gp__opm_args *a)
{
	memset(a, 0, sizeof(*a));
	return parse_into(dims, dims_len, types, types_len, conc, conc_len, a);
}

bool gp__opm_reparse(const char *dims, size_t dims_len, const char *types, size_t types_len,
                     const char *conc, size_t conc_len, struct gp__opm_args *a)
{
	size_t used = a->used < GP_OPM_MAX_IN ? a->used : GP_OPM_MAX_IN;

	memset(a->in, 0, used * sizeof(a->in[0]));
	a->n = 0;
	a->typed = false;
	a->used = 0;
	return parse_into(dims, dims_len, types, types_len, conc, conc_len, a);
}
