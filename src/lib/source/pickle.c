/* SPDX-License-Identifier: MIT */
/*
 * pickle.c - the pickle subset of PyTorch memory snapshots, read without
 * executing anything (pickle.h).
 *
 * The in-memory form is a compact graph of our own, not the gp_value DOM: a
 * snapshot shares each frame list among every block and trace entry with the
 * same stack (torch dedups them and pickle memoizes them), so a DOM, a tree,
 * would copy each shared list once per reference, many times the file's size
 * and without bound on a hostile memo; it would also copy every string. Here
 * a node is 24 bytes, strings are slices of the input, a memo reference is
 * the id of the node it names, and a container's children are ids in one
 * pool. Every push of the unpickler's stack consumes at least one input byte,
 * so nodes, pool entries, the stack and the memo are each bounded by the
 * input's size (the pool by 4 x: a container that outgrows its room moves to
 * the end with double the room); the total is also checked against
 * gp__pk_limits.max_bytes (64 x the input + 1 MiB by default) and a parse over
 * it stops with GP_ELIMIT. Nothing recurses: the parse is the stack machine
 * itself, and the cycle check (a container that holds itself through memo
 * references) is an iterative depth-first walk over the finished graph.
 *
 * Errors are one message "byte N: ..." (the opcode's offset); callers prefix
 * the file name.
 */
#include "source/pickle.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* None, False, True are shared constant nodes: they cost no memory per opcode */
enum { NODE_NONE = 0, NODE_FALSE, NODE_TRUE, NODE_FIRST };

struct parser {
	struct gp__pk *pk;
	size_t node_cap, kid_cap;
	uint32_t *stack;
	size_t nstack, stack_cap;
	size_t *marks;
	size_t nmarks, marks_cap;
	uint32_t *memo;
	size_t nmemo, memo_cap; /* nmemo: one past the highest index set (MEMOIZE's next) */
	size_t max_bytes;
	size_t pos; /* offset of the opcode being read */
};

static const struct {
	uint8_t op;
	const char *name;
} opnames[] = {
	{ '(', "MARK" },
	{ '.', "STOP" },
	{ '0', "POP" },
	{ '1', "POP_MARK" },
	{ '2', "DUP" },
	{ 'F', "FLOAT" },
	{ 'I', "INT" },
	{ 'J', "BININT" },
	{ 'K', "BININT1" },
	{ 'L', "LONG" },
	{ 'M', "BININT2" },
	{ 'N', "NONE" },
	{ 'P', "PERSID" },
	{ 'Q', "BINPERSID" },
	{ 'R', "REDUCE" },
	{ 'S', "STRING" },
	{ 'T', "BINSTRING" },
	{ 'U', "SHORT_BINSTRING" },
	{ 'V', "UNICODE" },
	{ 'X', "BINUNICODE" },
	{ 'a', "APPEND" },
	{ 'b', "BUILD" },
	{ 'c', "GLOBAL" },
	{ 'd', "DICT" },
	{ '}', "EMPTY_DICT" },
	{ 'e', "APPENDS" },
	{ 'g', "GET" },
	{ 'h', "BINGET" },
	{ 'i', "INST" },
	{ 'j', "LONG_BINGET" },
	{ 'l', "LIST" },
	{ ']', "EMPTY_LIST" },
	{ 'o', "OBJ" },
	{ 'p', "PUT" },
	{ 'q', "BINPUT" },
	{ 'r', "LONG_BINPUT" },
	{ 's', "SETITEM" },
	{ 't', "TUPLE" },
	{ ')', "EMPTY_TUPLE" },
	{ 'u', "SETITEMS" },
	{ 'G', "BINFLOAT" },
	{ 0x80, "PROTO" },
	{ 0x81, "NEWOBJ" },
	{ 0x82, "EXT1" },
	{ 0x83, "EXT2" },
	{ 0x84, "EXT4" },
	{ 0x85, "TUPLE1" },
	{ 0x86, "TUPLE2" },
	{ 0x87, "TUPLE3" },
	{ 0x88, "NEWTRUE" },
	{ 0x89, "NEWFALSE" },
	{ 0x8a, "LONG1" },
	{ 0x8b, "LONG4" },
	{ 'B', "BINBYTES" },
	{ 'C', "SHORT_BINBYTES" },
	{ 0x8c, "SHORT_BINUNICODE" },
	{ 0x8d, "BINUNICODE8" },
	{ 0x8e, "BINBYTES8" },
	{ 0x8f, "EMPTY_SET" },
	{ 0x90, "ADDITEMS" },
	{ 0x91, "FROZENSET" },
	{ 0x92, "NEWOBJ_EX" },
	{ 0x93, "STACK_GLOBAL" },
	{ 0x94, "MEMOIZE" },
	{ 0x95, "FRAME" },
	{ 0x96, "BYTEARRAY8" },
	{ 0x97, "NEXT_BUFFER" },
	{ 0x98, "READONLY_BUFFER" },
};

static const char *opname(uint8_t op)
{
	size_t i;

	for (i = 0; i < GP_ARRAY_SIZE(opnames); i++)
		if (opnames[i].op == op)
			return opnames[i].name;
	return NULL;
}

static int unsupported(const struct parser *ps, uint8_t op)
{
	const char *name = opname(op);

	if (!name)
		return gp__error(GP_EFORMAT, "byte %zu: unknown opcode 0x%02x: not a pickle",
		                 ps->pos, op);
	return gp__error(GP_EFORMAT,
	                 "byte %zu: opcode %s (0x%02x) is not read: a memory snapshot holds only "
	                 "dicts, lists, tuples, strings and numbers, and nothing is executed",
	                 ps->pos, name, op);
}

static size_t used_bytes(const struct parser *ps)
{
	return ps->node_cap * sizeof(struct gp__pk_node) + ps->kid_cap * sizeof(uint32_t) +
	       ps->stack_cap * sizeof(uint32_t) + ps->marks_cap * sizeof(size_t) +
	       ps->memo_cap * sizeof(uint32_t);
}

/* gp__grow() that keeps the parse under its memory limit */
static int grow(struct parser *ps, void **p, size_t *cap, size_t need, size_t size)
{
	int rc;

	if (need <= *cap)
		return 0;
	rc = gp__grow(p, cap, need, size);
	if (rc < 0)
		return rc;
	if (used_bytes(ps) > ps->max_bytes) {
		return gp__error(GP_ELIMIT,
		                 "byte %zu: the pickle needs more than %zu bytes of memory to read "
		                 "(the limit for %zu bytes of input)",
		                 ps->pos, ps->max_bytes, ps->pk->n);
	}
	return 0;
}

static int new_node(struct parser *ps, uint8_t type, uint32_t *id)
{
	struct gp__pk *pk = ps->pk;
	struct gp__pk_node *nd;
	int rc;

	if (pk->nnode >= UINT32_MAX - 1)
		return gp__error(GP_ELIMIT, "byte %zu: more than 2^32 values", ps->pos);
	rc = grow(ps, (void **)&pk->node, &ps->node_cap, (size_t)pk->nnode + 1, sizeof(*nd));
	if (rc < 0)
		return rc;
	nd = &pk->node[pk->nnode];
	memset(nd, 0, sizeof(*nd));
	nd->type = type;
	nd->off = ps->pos;
	*id = pk->nnode++;
	return 0;
}

static int push(struct parser *ps, uint32_t id)
{
	int rc = grow(ps, (void **)&ps->stack, &ps->stack_cap, ps->nstack + 1, sizeof(uint32_t));

	if (rc < 0)
		return rc;
	ps->stack[ps->nstack++] = id;
	return 0;
}

static int push_new(struct parser *ps, uint8_t type, struct gp__pk_node **nd)
{
	uint32_t id = 0;
	int rc = new_node(ps, type, &id);

	if (rc < 0)
		return rc;
	rc = push(ps, id);
	if (rc < 0)
		return rc;
	*nd = &ps->pk->node[id];
	return 0;
}

/* the stack's first index above the innermost mark, which is popped */
static int pop_mark(struct parser *ps, uint8_t op, size_t *from)
{
	if (!ps->nmarks)
		return gp__error(GP_EFORMAT, "byte %zu: %s without a MARK before it", ps->pos,
		                 opname(op));
	*from = ps->marks[--ps->nmarks];
	return 0;
}

static int need_stack(const struct parser *ps, uint8_t op, size_t k)
{
	size_t floor = ps->nmarks ? ps->marks[ps->nmarks - 1] : 0;

	if (ps->nstack < floor + k)
		return gp__error(GP_EFORMAT, "byte %zu: %s needs %zu value%s on the stack", ps->pos,
		                 opname(op), k, k == 1 ? "" : "s");
	return 0;
}

/* appends stack[from..nstack) to container @p id (a list: 1 child a value; a dict: 2) */
static int add_children(struct parser *ps, uint32_t id, size_t from)
{
	struct gp__pk *pk = ps->pk;
	struct gp__pk_node *nd = &pk->node[id];
	size_t k = ps->nstack - from;
	size_t per = nd->type == GP_PK_DICT ? 2 : 1;
	size_t len = (size_t)nd->len * per;
	uint32_t first = nd->u.c.first, cap = nd->u.c.cap;
	int rc;

	if (!k) /* MARK then APPENDS, SETITEMS or TUPLE: nothing to add */
		return 0;

	if (len + k > UINT32_MAX - 1 || pk->nkid + len + k > UINT32_MAX - 1)
		return gp__error(GP_ELIMIT, "byte %zu: a container of more than 2^32 values",
		                 ps->pos);
	if (len + k > cap) {
		if ((size_t)first + cap == pk->nkid && cap) {
			/* the last container in the pool grows in place */
			size_t ncap = cap * 2 > len + k ? (size_t)cap * 2 : len + k;

			rc = grow(ps, (void **)&pk->kid, &ps->kid_cap, first + ncap,
			          sizeof(uint32_t));
			if (rc < 0)
				return rc;
			pk->nkid = first + ncap;
			cap = (uint32_t)ncap;
		} else {
			size_t ncap = (size_t)cap * 2 > len + k ? (size_t)cap * 2 : len + k;

			rc = grow(ps, (void **)&pk->kid, &ps->kid_cap, pk->nkid + ncap,
			          sizeof(uint32_t));
			if (rc < 0)
				return rc;
			if (len)
				memcpy(pk->kid + pk->nkid, pk->kid + first, len * sizeof(uint32_t));
			first = (uint32_t)pk->nkid;
			pk->nkid += ncap;
			cap = (uint32_t)ncap;
		}
		nd = &pk->node[id];
		nd->u.c.first = first;
		nd->u.c.cap = cap;
	}
	memcpy(pk->kid + first + len, ps->stack + from, k * sizeof(uint32_t));
	nd->len += (uint32_t)(k / per);
	ps->nstack = from;
	return 0;
}

/* reads @p k bytes at *@p p as a little-endian unsigned number */
static uint64_t le(const uint8_t *p, size_t k)
{
	uint64_t v = 0;

	while (k--)
		v = v << 8 | p[k];
	return v;
}

static int need_bytes(const struct parser *ps, size_t at, size_t k, const char *what)
{
	if (k > ps->pk->n - at)
		return gp__error(GP_ETRUNC,
		                 "byte %zu: the pickle ends inside %s (%zu bytes needed, %zu left)",
		                 ps->pos, what, k, ps->pk->n - at);
	return 0;
}

/* a LONG1/LONG4 of @p k bytes at @p p: two's complement, little-endian */
static int push_long(struct parser *ps, const uint8_t *p, size_t k)
{
	struct gp__pk_node *nd;
	bool neg = k && (p[k - 1] & 0x80);
	size_t sig = k, i;
	int rc;

	/* drop the sign-extension bytes beyond the eighth */
	while (sig > 8 && p[sig - 1] == (neg ? 0xff : 0x00))
		sig--;
	if (sig > 8 || (sig == 8 && k > 8 && ((p[7] & 0x80) != 0) != neg)) {
		double d = 0;

		for (i = k; i-- > 0;)
			d = d * 256 + (double)(neg ? (uint8_t)~p[i] : p[i]);
		rc = push_new(ps, GP_PK_BIGINT, &nd);
		if (rc < 0)
			return rc;
		nd->u.d = neg ? -(d + 1) : d;
		return 0;
	}
	rc = push_new(ps, GP_PK_INT, &nd);
	if (rc < 0)
		return rc;
	if (!k) {
		nd->u.i = 0;
	} else {
		uint64_t v = le(p, sig);

		if (neg && sig < 8)
			v |= ~(uint64_t)0 << (8 * sig);
		nd->u.i = (int64_t)v;
	}
	return 0;
}

static int push_slice(struct parser *ps, uint8_t type, size_t at, uint64_t len)
{
	struct gp__pk_node *nd;
	int rc;

	rc = need_bytes(ps, at, len, type == GP_PK_STR ? "a string" : "a bytes value");
	if (rc < 0)
		return rc;
	if (len > UINT32_MAX - 1)
		return gp__error(GP_ELIMIT,
		                 "byte %zu: a string of %" PRIu64 " bytes (at most 4 GiB)", ps->pos,
		                 len);
	rc = push_new(ps, type, &nd);
	if (rc < 0)
		return rc;
	nd->u.at = at;
	nd->len = (uint32_t)len;
	return 0;
}

static int memo_put(struct parser *ps, uint64_t idx)
{
	int rc;
	size_t i;

	if (!ps->nstack || (ps->nmarks && ps->marks[ps->nmarks - 1] == ps->nstack))
		return gp__error(GP_EFORMAT, "byte %zu: memo store with nothing on the stack",
		                 ps->pos);
	if (idx >= ps->pk->n)
		return gp__error(GP_EFORMAT,
		                 "byte %zu: memo index %" PRIu64
		                 " is beyond any a pickle of %zu bytes "
		                 "holds",
		                 ps->pos, idx, ps->pk->n);
	if (idx >= ps->memo_cap) {
		size_t old = ps->memo_cap;

		rc = grow(ps, (void **)&ps->memo, &ps->memo_cap, (size_t)idx + 1, sizeof(uint32_t));
		if (rc < 0)
			return rc;
		for (i = old; i < ps->memo_cap; i++)
			ps->memo[i] = GP_PK_NIL;
	}
	ps->memo[idx] = ps->stack[ps->nstack - 1];
	if (idx >= ps->nmemo)
		ps->nmemo = (size_t)idx + 1;
	return 0;
}

static int memo_get(struct parser *ps, uint64_t idx)
{
	if (idx >= ps->memo_cap || ps->memo[idx] == GP_PK_NIL)
		return gp__error(GP_EFORMAT, "byte %zu: memo index %" PRIu64 " was never stored",
		                 ps->pos, idx);
	return push(ps, ps->memo[idx]);
}

/* the decimal argument of PUT/GET, ended by a newline, at @p at; *@p next after it */
static int text_index(const struct parser *ps, size_t at, uint64_t *idx, size_t *next)
{
	const uint8_t *p = ps->pk->base;
	size_t n = ps->pk->n, i = at;
	uint64_t v = 0;

	while (i < n && p[i] >= '0' && p[i] <= '9' && i - at < 19)
		v = v * 10 + (uint64_t)(p[i++] - '0');
	if (i == n)
		return gp__error(GP_ETRUNC, "byte %zu: the pickle ends inside a memo index",
		                 ps->pos);
	if (i == at || p[i] != '\n')
		return gp__error(GP_EFORMAT, "byte %zu: a memo index is not a decimal number",
		                 ps->pos);
	*idx = v;
	*next = i + 1;
	return 0;
}

static int make_tuple(struct parser *ps, size_t from)
{
	uint32_t id = 0;
	int rc = new_node(ps, GP_PK_TUPLE, &id);

	if (rc < 0)
		return rc;
	rc = add_children(ps, id, from);
	if (rc < 0)
		return rc;
	return push(ps, id);
}

/* appends or sets items: stack[from..) into the container below them */
static int fill(struct parser *ps, uint8_t op, size_t from, uint8_t want)
{
	uint32_t target;
	size_t k = ps->nstack - from;
	struct gp__pk_node *nd;

	if (from == 0 || (ps->nmarks && ps->marks[ps->nmarks - 1] >= from))
		return gp__error(GP_EFORMAT, "byte %zu: %s with no container below its values",
		                 ps->pos, opname(op));
	target = ps->stack[from - 1];
	nd = &ps->pk->node[target];
	if (nd->type != want)
		return gp__error(GP_EFORMAT, "byte %zu: %s on a %s (a %s expected)", ps->pos,
		                 opname(op), gp__pk_type_name(nd->type), gp__pk_type_name(want));
	if (want == GP_PK_DICT && k % 2)
		return gp__error(GP_EFORMAT, "byte %zu: %s with an odd number of values (%zu)",
		                 ps->pos, opname(op), k);
	return add_children(ps, target, from);
}

static int step(struct parser *ps, size_t *at, bool *stop)
{
	const uint8_t *p = ps->pk->base;
	struct gp__pk_node *nd;
	size_t i = *at, from = 0;
	uint64_t len = 0;
	uint8_t op = p[i++];
	int rc = 0;

	ps->pos = *at;
	switch (op) {
	case 0x80: /* PROTO */
		if ((rc = need_bytes(ps, i, 1, "PROTO")) < 0)
			return rc;
		if (p[i] < 2 || p[i] > 5)
			return gp__error(GP_EVERSION,
			                 "byte %zu: pickle protocol %u (protocols 2 to 5 are read)",
			                 ps->pos, p[i]);
		ps->pk->proto = p[i++];
		break;
	case 0x95: /* FRAME: a length prefix, checked and otherwise ignored */
		if ((rc = need_bytes(ps, i, 8, "FRAME")) < 0)
			return rc;
		len = le(p + i, 8);
		i += 8;
		if (len > ps->pk->n - i)
			return gp__error(GP_ETRUNC,
			                 "byte %zu: a frame of %" PRIu64 " bytes, %zu left",
			                 ps->pos, len, ps->pk->n - i);
		break;
	case '.':
		if (ps->nmarks)
			return gp__error(GP_EFORMAT, "byte %zu: STOP inside an open MARK", ps->pos);
		if (ps->nstack != 1)
			return gp__error(GP_EFORMAT,
			                 "byte %zu: STOP with %zu values on the stack (1 expected)",
			                 ps->pos, ps->nstack);
		ps->pk->root = ps->stack[0];
		*stop = true;
		break;
	case 'N':
		rc = push(ps, NODE_NONE);
		break;
	case 0x88:
		rc = push(ps, NODE_TRUE);
		break;
	case 0x89:
		rc = push(ps, NODE_FALSE);
		break;
	case 'J':
		if ((rc = need_bytes(ps, i, 4, "BININT")) < 0 ||
		    (rc = push_new(ps, GP_PK_INT, &nd)) < 0)
			return rc;
		nd->u.i = (int32_t)(uint32_t)le(p + i, 4);
		i += 4;
		break;
	case 'K':
		if ((rc = need_bytes(ps, i, 1, "BININT1")) < 0 ||
		    (rc = push_new(ps, GP_PK_INT, &nd)) < 0)
			return rc;
		nd->u.i = p[i++];
		break;
	case 'M':
		if ((rc = need_bytes(ps, i, 2, "BININT2")) < 0 ||
		    (rc = push_new(ps, GP_PK_INT, &nd)) < 0)
			return rc;
		nd->u.i = (int64_t)le(p + i, 2);
		i += 2;
		break;
	case 0x8a: /* LONG1 */
		if ((rc = need_bytes(ps, i, 1, "LONG1")) < 0)
			return rc;
		len = p[i++];
		if ((rc = need_bytes(ps, i, len, "LONG1")) < 0 ||
		    (rc = push_long(ps, p + i, len)) < 0)
			return rc;
		i += len;
		break;
	case 0x8b: /* LONG4 */
		if ((rc = need_bytes(ps, i, 4, "LONG4")) < 0)
			return rc;
		len = le(p + i, 4);
		i += 4;
		if (len & 0x80000000u)
			return gp__error(GP_EFORMAT, "byte %zu: LONG4 of negative length", ps->pos);
		if ((rc = need_bytes(ps, i, len, "LONG4")) < 0 ||
		    (rc = push_long(ps, p + i, len)) < 0)
			return rc;
		i += len;
		break;
	case 'G': {
		uint64_t bits = 0;
		double d;
		size_t k;

		if ((rc = need_bytes(ps, i, 8, "BINFLOAT")) < 0 ||
		    (rc = push_new(ps, GP_PK_FLOAT, &nd)) < 0)
			return rc;
		for (k = 0; k < 8; k++)
			bits = bits << 8 | p[i + k];
		memcpy(&d, &bits, sizeof(d));
		nd->u.d = d;
		i += 8;
		break;
	}
	case 0x8c: /* SHORT_BINUNICODE */
	case 'C':  /* SHORT_BINBYTES */
		if ((rc = need_bytes(ps, i, 1, "a string's length")) < 0)
			return rc;
		len = p[i++];
		if ((rc = push_slice(ps, op == 'C' ? GP_PK_BYTES : GP_PK_STR, i, len)) < 0)
			return rc;
		i += len;
		break;
	case 'X': /* BINUNICODE */
	case 'B': /* BINBYTES */
		if ((rc = need_bytes(ps, i, 4, "a string's length")) < 0)
			return rc;
		len = le(p + i, 4);
		i += 4;
		if ((rc = push_slice(ps, op == 'B' ? GP_PK_BYTES : GP_PK_STR, i, len)) < 0)
			return rc;
		i += len;
		break;
	case 0x8d: /* BINUNICODE8 */
	case 0x8e: /* BINBYTES8 */
		if ((rc = need_bytes(ps, i, 8, "a string's length")) < 0)
			return rc;
		len = le(p + i, 8);
		i += 8;
		if ((rc = push_slice(ps, op == 0x8e ? GP_PK_BYTES : GP_PK_STR, i, len)) < 0)
			return rc;
		i += len;
		break;
	case '}':
		rc = push_new(ps, GP_PK_DICT, &nd);
		break;
	case ']':
		rc = push_new(ps, GP_PK_LIST, &nd);
		break;
	case ')':
		rc = push_new(ps, GP_PK_TUPLE, &nd);
		break;
	case '(':
		rc = grow(ps, (void **)&ps->marks, &ps->marks_cap, ps->nmarks + 1, sizeof(size_t));
		if (rc < 0)
			return rc;
		ps->marks[ps->nmarks++] = ps->nstack;
		break;
	case 't':
		if ((rc = pop_mark(ps, op, &from)) < 0)
			return rc;
		rc = make_tuple(ps, from);
		break;
	case 0x85:
	case 0x86:
	case 0x87:
		if ((rc = need_stack(ps, op, (size_t)(op - 0x84))) < 0)
			return rc;
		rc = make_tuple(ps, ps->nstack - (size_t)(op - 0x84));
		break;
	case 'a':
		if ((rc = need_stack(ps, op, 1)) < 0)
			return rc;
		rc = fill(ps, op, ps->nstack - 1, GP_PK_LIST);
		break;
	case 'e':
		if ((rc = pop_mark(ps, op, &from)) < 0)
			return rc;
		rc = fill(ps, op, from, GP_PK_LIST);
		break;
	case 's':
		if ((rc = need_stack(ps, op, 2)) < 0)
			return rc;
		rc = fill(ps, op, ps->nstack - 2, GP_PK_DICT);
		break;
	case 'u':
		if ((rc = pop_mark(ps, op, &from)) < 0)
			return rc;
		rc = fill(ps, op, from, GP_PK_DICT);
		break;
	case '0': /* POP */
		if ((rc = need_stack(ps, op, 1)) < 0)
			return rc;
		ps->nstack--;
		break;
	case '1': /* POP_MARK */
		if ((rc = pop_mark(ps, op, &from)) < 0)
			return rc;
		ps->nstack = from;
		break;
	case 'q':
		if ((rc = need_bytes(ps, i, 1, "BINPUT")) < 0)
			return rc;
		rc = memo_put(ps, p[i++]);
		break;
	case 'r':
		if ((rc = need_bytes(ps, i, 4, "LONG_BINPUT")) < 0)
			return rc;
		rc = memo_put(ps, le(p + i, 4));
		i += 4;
		break;
	case 0x94: /* MEMOIZE */
		rc = memo_put(ps, ps->nmemo);
		break;
	case 'h':
		if ((rc = need_bytes(ps, i, 1, "BINGET")) < 0)
			return rc;
		rc = memo_get(ps, p[i++]);
		break;
	case 'j':
		if ((rc = need_bytes(ps, i, 4, "LONG_BINGET")) < 0)
			return rc;
		rc = memo_get(ps, le(p + i, 4));
		i += 4;
		break;
	case 'p':
	case 'g':
		if ((rc = text_index(ps, i, &len, &i)) < 0)
			return rc;
		rc = op == 'p' ? memo_put(ps, len) : memo_get(ps, len);
		break;
	default:
		return unsupported(ps, op);
	}
	*at = i;
	return rc;
}

/* refuses a container that holds itself: iterative DFS, O(nodes + children) */
static int check_cycles(struct gp__pk *pk)
{
	uint8_t *color = NULL; /* 0 new, 1 on the path, 2 done */
	uint32_t *st = NULL;
	size_t *next = NULL, top, r;
	int rc = 0;

	color = gp__calloc(pk->nnode, 1);
	st = gp__calloc(pk->nnode, sizeof(*st));
	next = gp__calloc(pk->nnode, sizeof(*next));
	if (!color || !st || !next) {
		rc = gp__error(GP_ENOMEM, "out of memory checking the pickle for cycles");
		goto out_free;
	}
	for (r = NODE_FIRST; r < pk->nnode; r++) {
		if (color[r] || pk->node[r].type < GP_PK_LIST)
			continue;
		top = 0;
		st[top] = (uint32_t)r;
		next[top++] = 0;
		color[r] = 1;
		while (top) {
			const struct gp__pk_node *nd = &pk->node[st[top - 1]];
			size_t nk = (size_t)nd->len * (nd->type == GP_PK_DICT ? 2 : 1);
			uint32_t c;

			if (next[top - 1] == nk) {
				color[st[--top]] = 2;
				continue;
			}
			c = pk->kid[nd->u.c.first + next[top - 1]++];
			if (pk->node[c].type < GP_PK_LIST || color[c] == 2)
				continue;
			if (color[c] == 1) {
				rc = gp__error(GP_EFORMAT,
				               "byte %" PRIu64 ": a %s holds itself through memo "
				               "references (a cycle)",
				               pk->node[c].off, gp__pk_type_name(pk->node[c].type));
				goto out_free;
			}
			color[c] = 1;
			st[top] = c;
			next[top++] = 0;
		}
	}
out_free:
	gp__free(next);
	gp__free(st);
	gp__free(color);
	return rc;
}

int gp__pk_parse(const void *p, size_t n, const struct gp__pk_limits *lim, struct gp__pk **out)
{
	struct parser ps = { 0 };
	struct gp__pk *pk;
	size_t at = 0;
	bool stop = false;
	uint32_t id = 0, k;
	int rc;

	*out = NULL;
	pk = gp__calloc(1, sizeof(*pk));
	if (!pk)
		return gp__error(GP_ENOMEM, "out of memory reading a pickle");
	pk->base = p;
	pk->n = n;
	pk->root = GP_PK_NIL;
	ps.pk = pk;
	ps.max_bytes = lim && lim->max_bytes              ? lim->max_bytes
	               : n > (SIZE_MAX - (1u << 20)) / 64 ? SIZE_MAX
	                                                  : 64 * n + (1u << 20);
	if (!n) {
		rc = gp__error(GP_ETRUNC, "byte 0: an empty file, no pickle");
		goto out_free;
	}
	if (pk->base[0] != 0x80) {
		rc = gp__error(GP_EVERSION,
		               "byte 0: not a pickle of protocol 2 to 5 (no PROTO opcode "
		               "first)");
		goto out_free;
	}
	/* the constants None, False, True */
	for (k = 0; k < NODE_FIRST; k++) {
		rc = new_node(&ps, k == NODE_NONE ? GP_PK_NONE : GP_PK_BOOL, &id);
		if (rc < 0)
			goto out_free;
		pk->node[id].u.i = k == NODE_TRUE;
	}
	while (!stop) {
		if (at >= n) {
			ps.pos = n;
			rc = gp__error(GP_ETRUNC,
			               "byte %zu: the pickle ends before its STOP opcode", n);
			goto out_free;
		}
		rc = step(&ps, &at, &stop);
		if (rc < 0)
			goto out_free;
	}
	rc = check_cycles(pk);
	if (rc < 0)
		goto out_free;
	*out = pk;
	pk = NULL;
out_free:
	gp__free(ps.stack);
	gp__free(ps.marks);
	gp__free(ps.memo);
	gp__pk_free(pk);
	return rc;
}

void gp__pk_free(struct gp__pk *pk)
{
	if (!pk)
		return;
	gp__free(pk->node);
	gp__free(pk->kid);
	gp__free(pk);
}
