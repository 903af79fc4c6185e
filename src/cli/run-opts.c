/* SPDX-License-Identifier: MIT */
/*
 * run-opts.c - the options of `gpuprof run`: one setter per option shared by
 * the command line (cmd-run.c) and the YAML file of --config, so both check a
 * value the same way, and the loader of that file (libyaml's document API).
 *
 * The file is a mapping whose keys are the long option names without dashes.
 * It is read whole (at most GP_RUN_CONFIG_MAX_SZ bytes) before CMD starts; an
 * unknown key, a wrong type or a bad value is a usage error (exit 2) naming
 * the file and line. Every value is checked against its limits here, never
 * later: the rest of `run` trusts struct gp_run_opts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuprof-config.h"
#include "run.h"

#if GP_HAVE_YAML
#include <yaml.h>
#endif

const char *const gp_run_opt_names[GP_RO_COUNT] = {
	[GP_RO_OUTPUT] = "output",     [GP_RO_SAMPLE_MS] = "sample-ms",
	[GP_RO_NO_CUDA] = "no-cuda",   [GP_RO_CAPTURE_RANGE] = "capture-range",
	[GP_RO_DELAY] = "delay",       [GP_RO_DURATION] = "duration",
	[GP_RO_SCHEDULE] = "schedule", [GP_RO_ITER_RANGE] = "iter-range",
	[GP_RO_TAG] = "tag",           [GP_RO_QUIET] = "quiet",
	[GP_RO_FORCE] = "force",       [GP_RO_CUDA_EVENTS] = "cuda-events",
	[GP_RO_WAIT] = "wait",         [GP_RO_PYTORCH] = "pytorch",
};

void gp_run_opts_init(struct gp_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sample_ms = 100;
	o->delay_ns = -1;
	o->duration_ns = -1;
}

void gp_run_opts_release(struct gp_run_opts *o)
{
	size_t i;

	free(o->output);
	free(o->capture_range);
	free(o->iter_range);
	free(o->config);
	for (i = 0; i < o->ntags; i++) {
		free(o->tags[i].key);
		free(o->tags[i].value);
	}
	free(o->tags);
	gp_run_opts_init(o);
}

GP_CLI_PRINTF(3, 4) static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* digits only, no sign or space, at most @p max */
static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/*
 * "S", "S.F" or ".F" seconds into ns from the decimal text (no double: the
 * value is exact), at most 9 decimals and GP_RUN_MAX_SECONDS.
 */
static int parse_seconds(const char *s, int64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int nfrac = 0, nint = 0;

	for (; *s >= '0' && *s <= '9'; s++, nint++) {
		sec = sec * 10 + (uint64_t)(*s - '0');
		if (sec > GP_RUN_MAX_SECONDS)
			return -1;
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, nfrac++) {
			if (nfrac == 9)
				return -1;
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
	}
	if (*s || nint + nfrac == 0)
		return -1;
	for (; nfrac < 9; nfrac++)
		frac *= 10;
	*ns = (int64_t)(sec * 1000000000ULL + frac);
	return 0;
}

static int set_text(char **dst, const char *opt, const char *text, char *err, size_t errlen)
{
	size_t len = strlen(text);

	if (!len)
		return fail(err, errlen, "option '--%s' expects a non-empty value", opt);
	if (len > GP_RUN_MAX_TEXT_LEN)
		return fail(err, errlen, "option '--%s': value longer than %d bytes", opt,
		            GP_RUN_MAX_TEXT_LEN);
	if (strchr(text, '\n'))
		return fail(err, errlen, "option '--%s': the value has a newline", opt);
	free(*dst);
	*dst = xstrdup(text);
	return 0;
}

static int set_bool(bool *dst, const char *opt, const char *text, char *err, size_t errlen)
{
	if (strcmp(text, "true") == 0)
		*dst = true;
	else if (strcmp(text, "false") == 0)
		*dst = false;
	else
		return fail(err, errlen, "option '--%s' expects true or false, not '%s'", opt,
		            text);
	return 0;
}

static int set_range(struct gp_run_opts *o, const char *text, char *err, size_t errlen)
{
	if (strcmp(text, "cudaProfilerApi") != 0 && (strncmp(text, "nvtx:", 5) != 0 || !text[5]))
		return fail(err, errlen,
		            "option '--capture-range' expects 'nvtx:NAME' or 'cudaProfilerApi', "
		            "not '%s'",
		            text);
	return set_text(&o->capture_range, "capture-range", text, err, errlen);
}

/* "wait=W,warmup=U,active=A,repeat=R": any order, active required, others 0 */
static int set_schedule(struct gp_run_opts *o, const char *text, char *err, size_t errlen)
{
	static const char *const names[] = { "wait", "warmup", "active", "repeat" };
	uint64_t v[4] = { 0, 0, 0, 0 };
	bool seen[4] = { false, false, false, false };
	const char *p = text;

	for (;;) {
		const char *eq = strchr(p, '='), *end = strchr(p, ',');
		char num[24];
		size_t klen, nlen;
		int k;

		if (!end)
			end = p + strlen(p);
		if (!eq || eq > end)
			return fail(err, errlen,
			            "option '--schedule': '%.*s' is not KEY=N (expected "
			            "wait=W,warmup=U,active=A,repeat=R)",
			            (int)(end - p), p);
		klen = (size_t)(eq - p);
		for (k = 0; k < 4; k++)
			if (strlen(names[k]) == klen && memcmp(names[k], p, klen) == 0)
				break;
		if (k == 4)
			return fail(err, errlen,
			            "option '--schedule': unknown key '%.*s' (expected wait, "
			            "warmup, active, repeat)",
			            (int)klen, p);
		if (seen[k])
			return fail(err, errlen, "option '--schedule': '%s' given twice", names[k]);
		nlen = (size_t)(end - eq - 1);
		if (nlen >= sizeof(num))
			nlen = sizeof(num) - 1;
		memcpy(num, eq + 1, nlen);
		num[nlen] = 0;
		if (parse_uint(num, GP_RUN_MAX_SCHED, &v[k]))
			return fail(err, errlen,
			            "option '--schedule': '%s' expects a number from 0 to %d, not "
			            "'%.*s'",
			            names[k], GP_RUN_MAX_SCHED, (int)(end - eq - 1), eq + 1);
		seen[k] = true;
		if (!*end)
			break;
		p = end + 1;
	}
	if (!seen[2] || v[2] < 1)
		return fail(err, errlen, "option '--schedule' needs active=N with N at least 1");
	o->have_schedule = true;
	o->schedule.wait = (uint32_t)v[0];
	o->schedule.warmup = (uint32_t)v[1];
	o->schedule.active = (uint32_t)v[2];
	o->schedule.repeat = (uint32_t)v[3];
	return 0;
}

/* "modules,ops,shapes": any of them, in any order; shapes implies ops */
static int set_pytorch(struct gp_run_opts *o, const char *text, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		unsigned bits;
	} words[] = { { "modules", GP_RUN_PT_MODULES },
		      { "ops", GP_RUN_PT_OPS },
		      { "shapes", GP_RUN_PT_OPS | GP_RUN_PT_SHAPES } };
	const char *p = text;
	unsigned bits = 0;

	for (;;) {
		const char *end = strchrnul(p, ',');
		size_t len = (size_t)(end - p), k;

		for (k = 0; k < sizeof(words) / sizeof(words[0]); k++)
			if (strlen(words[k].name) == len && memcmp(words[k].name, p, len) == 0)
				break;
		if (k == sizeof(words) / sizeof(words[0]))
			return fail(err, errlen,
			            "option '--pytorch' expects a list of modules, ops and shapes "
			            "(e.g. 'modules,ops'), not '%s'",
			            text);
		bits |= words[k].bits;
		if (!*end)
			break;
		p = end + 1;
	}
	o->pytorch = bits;
	return 0;
}

const char *gp_run_pytorch_str(unsigned pytorch, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s%s%s", pytorch & GP_RUN_PT_MODULES ? "modules" : "",
	         (pytorch & GP_RUN_PT_MODULES) && (pytorch & GP_RUN_PT_OPS) ? "," : "",
	         pytorch & GP_RUN_PT_OPS ? "ops" : "", pytorch & GP_RUN_PT_SHAPES ? "," : "",
	         pytorch & GP_RUN_PT_SHAPES ? "shapes" : "");
	return buf;
}

const char *gp_run_sched_str(const struct gp_run_sched *s, char *buf, size_t n)
{
	snprintf(buf, n, "wait=%" PRIu32 ",warmup=%" PRIu32 ",active=%" PRIu32 ",repeat=%" PRIu32,
	         s->wait, s->warmup, s->active, s->repeat);
	return buf;
}

static int tag_cmp(const void *a, const void *b)
{
	return strcmp(((const struct gp_run_tag *)a)->key, ((const struct gp_run_tag *)b)->key);
}

int gp_run_tag_set(struct gp_run_opts *o, const char *key, size_t klen, const char *value,
                   char *err, size_t errlen)
{
	size_t i, vlen = strlen(value);

	if (!klen)
		return fail(err, errlen, "option '--tag' expects KEY=VALUE with a non-empty KEY");
	for (i = 0; i < klen; i++) {
		char c = key[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return fail(err, errlen,
			            "option '--tag': key '%.*s' may only have letters, digits, "
			            "'_', '.' and '-'",
			            (int)klen, key);
	}
	if (klen + vlen + 1 > GP_RUN_MAX_TAG_LEN)
		return fail(err, errlen, "option '--tag': '%.*s' is longer than %d bytes",
		            (int)klen, key, GP_RUN_MAX_TAG_LEN);
	if (strchr(value, '\n'))
		return fail(err, errlen, "option '--tag': the value of '%.*s' has a newline",
		            (int)klen, key);
	for (i = 0; i < o->ntags; i++) {
		if (strlen(o->tags[i].key) == klen && memcmp(o->tags[i].key, key, klen) == 0) {
			free(o->tags[i].value);
			o->tags[i].value = xstrdup(value);
			return 0;
		}
	}
	if (o->ntags >= GP_RUN_MAX_TAGS)
		return fail(err, errlen, "more than %d tags", GP_RUN_MAX_TAGS);
	if (!o->tags)
		o->tags = xcalloc(GP_RUN_MAX_TAGS, sizeof(*o->tags));
	o->tags[o->ntags].key = xmalloc(klen + 1);
	memcpy(o->tags[o->ntags].key, key, klen);
	o->tags[o->ntags].key[klen] = 0;
	o->tags[o->ntags].value = xstrdup(value);
	o->ntags++;
	qsort(o->tags, o->ntags, sizeof(*o->tags), tag_cmp);
	o->set |= 1u << GP_RO_TAG;
	return 0;
}

int gp_run_opt_set(struct gp_run_opts *o, enum gp_run_opt which, const char *text, char *err,
                   size_t errlen)
{
	const char *name = gp_run_opt_names[which];
	uint64_t v;
	int rc = 0;

	switch (which) {
	case GP_RO_OUTPUT:
		rc = set_text(&o->output, "output", text, err, errlen);
		break;
	case GP_RO_SAMPLE_MS:
		if (parse_uint(text, GP_INTERVAL_MAX_MS, &v))
			return fail(err, errlen,
			            "option '--sample-ms' expects 1 to %d ms (0: no sampling), not "
			            "'%s'",
			            GP_INTERVAL_MAX_MS, text);
		o->sample_ms = (uint32_t)v;
		break;
	case GP_RO_NO_CUDA:
		rc = set_bool(&o->no_cuda, name, text, err, errlen);
		break;
	case GP_RO_CUDA_EVENTS:
		rc = set_bool(&o->cuda_events, name, text, err, errlen);
		break;
	case GP_RO_QUIET:
		rc = set_bool(&o->quiet, name, text, err, errlen);
		break;
	case GP_RO_FORCE:
		rc = set_bool(&o->force, name, text, err, errlen);
		break;
	case GP_RO_CAPTURE_RANGE:
		rc = set_range(o, text, err, errlen);
		break;
	case GP_RO_DELAY:
	case GP_RO_DURATION: {
		int64_t ns;

		if (parse_seconds(text, &ns))
			return fail(err, errlen,
			            "option '--%s' expects seconds (up to 9 decimals, at most %d), "
			            "not '%s'",
			            name, GP_RUN_MAX_SECONDS, text);
		if (which == GP_RO_DURATION && ns == 0)
			return fail(err, errlen, "option '--duration' expects more than 0 seconds");
		*(which == GP_RO_DELAY ? &o->delay_ns : &o->duration_ns) = ns;
		break;
	}
	case GP_RO_SCHEDULE:
		rc = set_schedule(o, text, err, errlen);
		break;
	case GP_RO_ITER_RANGE:
		rc = set_text(&o->iter_range, "iter-range", text, err, errlen);
		break;
	case GP_RO_WAIT:
		if (strcmp(text, "all") && strcmp(text, "primary"))
			return fail(err, errlen,
			            "option '--wait' expects 'all' or 'primary', not '%s'", text);
		o->wait_primary = strcmp(text, "primary") == 0;
		break;
	case GP_RO_PYTORCH:
		rc = set_pytorch(o, text, err, errlen);
		break;
	case GP_RO_TAG: {
		const char *eq = strchr(text, '=');

		if (!eq)
			return fail(err, errlen, "option '--tag' expects KEY=VALUE, not '%s'",
			            text);
		return gp_run_tag_set(o, text, (size_t)(eq - text), eq + 1, err, errlen);
	}
	case GP_RO_COUNT:
		return fail(err, errlen, "no such option");
	}
	if (!rc)
		o->set |= 1u << which;
	return rc;
}

#if GP_HAVE_YAML

struct cfg {
	const char *file;
	yaml_document_t doc;
	struct gp_run_opts *o;
};

GP_CLI_NORETURN GP_CLI_PRINTF(3, 4) static void cfg_die(const struct cfg *c, const yaml_node_t *n,
                                                        const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n)
		usage_die("'%s' line %zu: %s", c->file, n->start_mark.line + 1, msg);
	usage_die("'%s': %s", c->file, msg);
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static bool is_plain(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* a YAML 1.1 boolean of a plain scalar: 1 true, 0 false, -1 not a boolean */
static int yaml_bool(const yaml_node_t *n)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes",
		                           "YES",  "on",   "On",   "ON" };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No",
		                          "NO",    "off",   "Off",   "OFF" };
	size_t i;

	if (!is_plain(n))
		return -1;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcmp(scalar(n), yes[i]) == 0)
			return 1;
		if (strcmp(scalar(n), no[i]) == 0)
			return 0;
	}
	return -1;
}

static const char *kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return is_plain(n) && !*scalar(n) ? "nothing" : "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static void cfg_set(struct cfg *c, const yaml_node_t *at, enum gp_run_opt which, const char *text)
{
	char err[512];

	if (gp_run_opt_set(c->o, which, text, err, sizeof(err)))
		cfg_die(c, at, "%s", err);
}

static void cfg_tag(struct cfg *c, const yaml_node_t *at, const char *key, size_t klen,
                    const char *value)
{
	char err[512];

	if (gp_run_tag_set(c->o, key, klen, value, err, sizeof(err)))
		cfg_die(c, at, "%s", err);
}

/* tag: {k: v, ...} or ["k=v", ...] */
static void cfg_tags(struct cfg *c, const yaml_node_t *v)
{
	if (v->type == YAML_MAPPING_NODE) {
		yaml_node_pair_t *p;

		for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(&c->doc, p->key);
			yaml_node_t *val = yaml_document_get_node(&c->doc, p->value);

			if (!k || !val || k->type != YAML_SCALAR_NODE ||
			    val->type != YAML_SCALAR_NODE)
				cfg_die(c, k ? k : v, "'tag' expects KEY: VALUE pairs of scalars");
			cfg_tag(c, k, scalar(k), k->data.scalar.length, scalar(val));
		}
	} else if (v->type == YAML_SEQUENCE_NODE) {
		yaml_node_item_t *i;

		for (i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
			yaml_node_t *it = yaml_document_get_node(&c->doc, *i);

			if (!it || it->type != YAML_SCALAR_NODE)
				cfg_die(c, it ? it : v, "'tag' expects a list of \"KEY=VALUE\"");
			cfg_set(c, it, GP_RO_TAG, scalar(it));
		}
	} else if (v->type == YAML_SCALAR_NODE && *scalar(v)) {
		cfg_set(c, v, GP_RO_TAG, scalar(v));
	} else {
		cfg_die(c, v, "'tag' expects a mapping or a list of \"KEY=VALUE\", not %s",
		        kind_name(v));
	}
}

/* schedule: "wait=1,..." or {wait: 1, warmup: 1, active: 3, repeat: 2} */
static void cfg_schedule(struct cfg *c, const yaml_node_t *v)
{
	char text[256] = "";
	size_t len = 0;
	yaml_node_pair_t *p;

	if (v->type == YAML_SCALAR_NODE) {
		cfg_set(c, v, GP_RO_SCHEDULE, scalar(v));
		return;
	}
	if (v->type != YAML_MAPPING_NODE)
		cfg_die(c, v,
		        "'schedule' expects a mapping or \"wait=W,warmup=U,active=A,repeat=R\"");
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&c->doc, p->key);
		yaml_node_t *val = yaml_document_get_node(&c->doc, p->value);
		int w;

		if (!k || !val || k->type != YAML_SCALAR_NODE || !is_plain(val))
			cfg_die(c, k ? k : v, "'schedule' expects KEY: N pairs");
		w = snprintf(text + len, sizeof(text) - len, "%s%s=%s", len ? "," : "", scalar(k),
		             scalar(val));
		if (w < 0 || (size_t)w >= sizeof(text) - len)
			cfg_die(c, k, "'schedule' is too long");
		len += (size_t)w;
	}
	cfg_set(c, v, GP_RO_SCHEDULE, text);
}

static void cfg_member(struct cfg *c, const yaml_node_t *k, const yaml_node_t *v)
{
	enum gp_run_opt which;
	int b;

	for (which = 0; which < GP_RO_COUNT; which++)
		if (strcmp(scalar(k), gp_run_opt_names[which]) == 0)
			break;
	if (which == GP_RO_COUNT)
		cfg_die(c, k, "unknown key '%s'%s", scalar(k),
		        strcmp(scalar(k), "o") == 0 ? " (the output directory is 'output')" : "");
	if (c->o->set & (1u << which) && which != GP_RO_TAG)
		cfg_die(c, k, "'%s' given twice", scalar(k));
	switch (which) {
	case GP_RO_NO_CUDA:
	case GP_RO_CUDA_EVENTS:
	case GP_RO_QUIET:
	case GP_RO_FORCE:
		b = yaml_bool(v);
		if (b < 0)
			cfg_die(c, v, "'%s' expects true or false, not %s", scalar(k),
			        v->type == YAML_SCALAR_NODE && *scalar(v) ? scalar(v)
			                                                  : kind_name(v));
		cfg_set(c, v, which, b ? "true" : "false");
		break;
	case GP_RO_SAMPLE_MS:
	case GP_RO_DELAY:
	case GP_RO_DURATION:
		if (!is_plain(v) || !*scalar(v))
			cfg_die(c, v, "'%s' expects a number, not %s", scalar(k),
			        v->type == YAML_SCALAR_NODE ? "a quoted string" : kind_name(v));
		cfg_set(c, v, which, scalar(v));
		break;
	case GP_RO_OUTPUT:
	case GP_RO_CAPTURE_RANGE:
	case GP_RO_ITER_RANGE:
	case GP_RO_WAIT:
	case GP_RO_PYTORCH:
		if (v->type != YAML_SCALAR_NODE || (is_plain(v) && !*scalar(v)))
			cfg_die(c, v, "'%s' expects a string, not %s", scalar(k), kind_name(v));
		cfg_set(c, v, which, scalar(v));
		break;
	case GP_RO_SCHEDULE:
		cfg_schedule(c, v);
		break;
	case GP_RO_TAG:
		cfg_tags(c, v);
		break;
	case GP_RO_COUNT:
		break;
	}
}

static char *read_config(const char *file, size_t *len)
{
	char *buf = read_file_max(file, GP_RUN_CONFIG_MAX_SZ, len);

	if (!buf && errno == EFBIG)
		usage_die("config file '%s' is larger than %d bytes", file, GP_RUN_CONFIG_MAX_SZ);
	if (!buf)
		usage_die("cannot read config file '%s': %s", file, strerror(errno));
	return buf;
}

/* Parses the file into @p c->o (a fresh gp_run_opts); the caller merges it. */
static void cfg_parse(struct cfg *c)
{
	yaml_parser_t parser;
	yaml_node_t *root;
	yaml_node_pair_t *p;
	size_t len;
	char *text = read_config(c->file, &len);

	if (!yaml_parser_initialize(&parser))
		die("out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &c->doc)) {
		usage_die("'%s' line %zu: %s%s%s", c->file, parser.problem_mark.line + 1,
		          parser.problem ? parser.problem : "bad YAML", parser.context ? " " : "",
		          parser.context ? parser.context : "");
	}
	root = yaml_document_get_root_node(&c->doc);
	if (root) {
		yaml_document_t extra;

		/* a second document would be ignored silently: refuse it */
		if (!yaml_parser_load(&parser, &extra))
			usage_die("'%s' line %zu: %s", c->file, parser.problem_mark.line + 1,
			          parser.problem ? parser.problem : "bad YAML");
		if (yaml_document_get_root_node(&extra))
			usage_die("'%s': more than one YAML document", c->file);
		yaml_document_delete(&extra);
	}
	yaml_parser_delete(&parser);
	free(text);
	if (!root)
		return; /* an empty file sets nothing */
	if (root->type == YAML_SCALAR_NODE && is_plain(root) && !*scalar(root))
		return;
	if (root->type != YAML_MAPPING_NODE)
		cfg_die(c, root, "expected a mapping of options (e.g. 'sample-ms: 50'), not %s",
		        kind_name(root));
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(&c->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(&c->doc, p->value);

		if (!k || !v || k->type != YAML_SCALAR_NODE)
			cfg_die(c, k ? k : root, "expected an option name as the key");
		cfg_member(c, k, v);
	}
}

static void take_str(char **dst, char **src)
{
	free(*dst);
	*dst = *src;
	*src = NULL;
}

void gp_run_config_load(struct gp_run_opts *o)
{
	struct gp_run_opts f;
	struct cfg c;
	unsigned fresh;
	size_t i;

	gp_run_opts_init(&f);
	memset(&c, 0, sizeof(c));
	c.file = o->config;
	c.o = &f;
	cfg_parse(&c);
	yaml_document_delete(&c.doc);

	/* the command line wins; what it left unset comes from the file */
	fresh = f.set & ~o->set;
	if (fresh & (1u << GP_RO_OUTPUT))
		take_str(&o->output, &f.output);
	if (fresh & (1u << GP_RO_SAMPLE_MS))
		o->sample_ms = f.sample_ms;
	if (fresh & (1u << GP_RO_NO_CUDA))
		o->no_cuda = f.no_cuda;
	if (fresh & (1u << GP_RO_CUDA_EVENTS))
		o->cuda_events = f.cuda_events;
	if (fresh & (1u << GP_RO_QUIET))
		o->quiet = f.quiet;
	if (fresh & (1u << GP_RO_FORCE))
		o->force = f.force;
	if (fresh & (1u << GP_RO_CAPTURE_RANGE))
		take_str(&o->capture_range, &f.capture_range);
	if (fresh & (1u << GP_RO_DELAY))
		o->delay_ns = f.delay_ns;
	if (fresh & (1u << GP_RO_DURATION))
		o->duration_ns = f.duration_ns;
	if (fresh & (1u << GP_RO_SCHEDULE)) {
		o->have_schedule = true;
		o->schedule = f.schedule;
	}
	if (fresh & (1u << GP_RO_ITER_RANGE))
		take_str(&o->iter_range, &f.iter_range);
	if (fresh & (1u << GP_RO_WAIT))
		o->wait_primary = f.wait_primary;
	if (fresh & (1u << GP_RO_PYTORCH))
		o->pytorch = f.pytorch;
	/* tags merge: the file's, then the command line's over them */
	if (f.ntags) {
		struct gp_run_opts cl = *o;
		char err[512];

		o->tags = f.tags;
		o->ntags = f.ntags;
		f.tags = NULL;
		f.ntags = 0;
		for (i = 0; i < cl.ntags; i++) {
			if (gp_run_tag_set(o, cl.tags[i].key, strlen(cl.tags[i].key),
			                   cl.tags[i].value, err, sizeof(err)))
				usage_die("%s", err);
			free(cl.tags[i].key);
			free(cl.tags[i].value);
		}
		free(cl.tags);
	}
	o->from_config = f.set & (fresh | (1u << GP_RO_TAG));
	o->set |= f.set;
	gp_run_opts_release(&f);
}

#else /* !GP_HAVE_YAML */

void gp_run_config_load(struct gp_run_opts *o)
{
	usage_die("option '--config' is not available: this gpuprof was built without libyaml "
	          "(Debian package libyaml-dev)");
}

#endif
