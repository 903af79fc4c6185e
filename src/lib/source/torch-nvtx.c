/* SPDX-License-Identifier: MIT */
/*
 * torch-nvtx.c - the message of one of PyTorch's NVTX op ranges (emit_nvtx,
 * what `gpuprof run --pytorch ops,shapes` turns on) into the op's name, its
 * sequence number and op id, and its input sizes in Kineto's spelling of
 * "Input Dims" ("[[512], [64, 1024]]", which is PyTorch's shapesToStr in both
 * places). PyTorch writes the suffix with fmt in a fixed order
 * (torch/csrc/profiler/util.cpp, getNvtxStr); anything else is not an op
 * range and stays a plain NVTX range. Parsed defensively: every length is
 * checked, numbers are bounded, and a message the tracer cut at 4 KiB keeps
 * its name with its sizes unknown.
 */
#include <string.h>

#include "torch-nvtx.h"

struct cur {
	const char *p, *e;
	bool cut;   /* the message was cut: running out of text is not a mismatch */
	bool trunc; /* the last mismatch was the text running out */
};

/* 1 matched, 0 no match (c->trunc says whether the text ran out inside it) */
static int lit(struct cur *c, const char *s)
{
	size_t n = strlen(s), left = (size_t)(c->e - c->p);

	if (left >= n && memcmp(c->p, s, n) == 0) {
		c->p += n;
		return 1;
	}
	c->trunc = left < n && memcmp(c->p, s, left) == 0;
	return 0;
}

/* an optionally negative decimal of 1 to 18 digits */
static int num(struct cur *c, int64_t *v)
{
	const char *p = c->p;
	bool neg = p < c->e && *p == '-';
	int64_t x = 0;
	int k = 0;

	if (neg)
		p++;
	for (; p < c->e && *p >= '0' && *p <= '9'; p++, k++) {
		if (k == 18)
			return c->trunc = false, 0;
		x = x * 10 + (*p - '0');
	}
	c->trunc = p == c->e;
	if (!k)
		return 0;
	c->p = p;
	*v = neg ? -x : x;
	return 1;
}

/* "[2, 3]" or "[]": one input's sizes */
static int shape(struct cur *c)
{
	int64_t v;

	if (!lit(c, "["))
		return 0;
	if (lit(c, "]"))
		return 1;
	do {
		if (!num(c, &v))
			return 0;
	} while (lit(c, ", "));
	return lit(c, "]");
}

/* "(7,0)": an input's producer, (op id, output number) */
static int op_id(struct cur *c)
{
	int64_t v;

	return lit(c, "(") && num(c, &v) && lit(c, ",") && num(c, &v) && lit(c, ")");
}

/* "[ITEM, ITEM]" or "[]" */
static int list_of(struct cur *c, int (*item)(struct cur *))
{
	if (!lit(c, "["))
		return 0;
	if (lit(c, "]"))
		return 1;
	do {
		if (!item(c))
			return 0;
	} while (lit(c, ", "));
	return lit(c, "]");
}

/* the text ran out where the message was cut: what was read so far stands */
static bool cut_here(const struct cur *c)
{
	return c->cut && (c->p >= c->e || c->trunc);
}

/* PyTorch's suffix from @p at to the end; fills @p out but for name_len */
static bool suffix(const char *msg, const char *at, const char *end, bool cut,
                   struct gp__torch_op *out)
{
	struct cur c = { at, end, cut, false };
	bool have = false;
	const char *s;

	out->seq = -1;
	out->op_id = 0;
	out->sizes_off = out->sizes_len = 0;
	if (lit(&c, ", seq = ")) {
		if (!num(&c, &out->seq) || out->seq < 0)
			return cut_here(&c); /* the label is PyTorch's: the name is certain */
		have = true;
	} else if (cut_here(&c)) {
		return false; /* nothing of the suffix is certain */
	}
	if (lit(&c, ", op_id = ")) {
		if (!num(&c, &out->op_id) || out->op_id <= 0)
			return have && cut_here(&c);
		have = true;
	} else if (cut_here(&c)) {
		return have;
	}
	if (lit(&c, ", sizes = ")) {
		s = c.p;
		if (!list_of(&c, shape))
			return have && cut_here(&c);
		out->sizes_off = (size_t)(s - msg);
		out->sizes_len = (size_t)(c.p - s);
		have = true;
	} else if (cut_here(&c)) {
		return have;
	}
	if (lit(&c, ", input_op_ids = ")) {
		if (!list_of(&c, op_id))
			return have && cut_here(&c);
		have = true;
	} else if (cut_here(&c)) {
		return have;
	}
	return have && c.p == end;
}

bool gp__torch_op_parse(const char *msg, size_t n, bool cut, struct gp__torch_op *out)
{
	const char *end = msg + n, *p = msg + 1;

	if (n < 2)
		return false;
	/* the first ", " after which the rest is the suffix: a name may hold ", " itself */
	while (p + 1 < end && (p = memchr(p, ',', (size_t)(end - p - 1))) != NULL) {
		if (p[1] == ' ' && suffix(msg, p, end, cut, out)) {
			out->name_len = (size_t)(p - msg);
			return true;
		}
		p++;
	}
	return false;
}
