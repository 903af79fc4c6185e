/* SPDX-License-Identifier: MIT */
/*
 * reload.c - a saved gpuprof.aggregate/1 document read back
 * (gp_aggregate_load()), so that `gpuprof aggregate saved.json` draws it
 * again with another --top or width without the ranks' reports.
 *
 * The kind of the file is the source layer's (source.h: sniffed from its
 * first bytes, gunzipped when gzip); only a gpuprof document is read whole.
 * What gp_aggregate_paths() reads (traces, analyze reports, directories) is
 * handed back untouched (*out NULL). Called by the CLI before
 * gp_aggregate_paths(); calls nothing of aggregate/.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "gpuprof/aggregate.h"
#include "source/source.h"
#include "util/json-prune.h"
#include "util/error.h"

#define SCHEMA_FAMILY "gpuprof.aggregate/"

/* the member judge() looks at */
static const struct gp_jkeep schema_only[] = { { "schema", NULL, false }, { NULL, NULL, false } };

/* a parsed document: the aggregate kept in *out, or why it is refused, or NULL for the others */
static int judge(const char *path, struct gp_value *doc, struct gp_value **out)
{
	const char *schema = gp_value_get_str(gp_obj_get(doc, "schema")); /* doc's */
	int rc = 0;

	if (schema && strcmp(schema, GP_AGGREGATE_SCHEMA) == 0) {
		*out = doc;
		return 0;
	}
	/* a report, or no gpuprof document: gp_aggregate_paths() says what it is */
	if (!schema || strcmp(schema, GP_ANALYZE_SCHEMA) == 0)
		rc = 0;
	else if (strncmp(schema, SCHEMA_FAMILY, strlen(SCHEMA_FAMILY)) == 0)
		rc = gp__error(GP_EVERSION,
		               "'%s': a %s document: this version reads %s; aggregate the ranks' "
		               "reports again with it",
		               path, schema, GP_AGGREGATE_SCHEMA);
	else if (strncmp(schema, "gpuprof.", 8) == 0)
		rc = gp__error(GP_EFORMAT,
		               "'%s': a %s document: aggregate reads analyze reports (%s), traces "
		               "or a saved %s",
		               path, schema, GP_ANALYZE_SCHEMA, GP_AGGREGATE_SCHEMA);
	gp_value_free(doc);
	return rc;
}

GP_API int gp_aggregate_load(const char *path, struct gp_value **out)
{
	struct gp__src src = { .kind = GP_SRC_DOC, .rank = -1, .pid = -1 };
	enum gp__src_kind kind;
	struct gp_value *doc = NULL;
	struct stat st;
	int rc;

	if (!out || !path)
		return gp__error(GP_EINVAL, "gp_aggregate_load: NULL argument");
	*out = NULL;
	/* standard input and directories are gp_aggregate_paths()'s to read */
	if (strcmp(path, "-") == 0)
		return 0;
	if (stat(path, &st) != 0)
		return gp__error(errno == ENOENT ? GP_ENOENT : GP_EIO, "cannot read '%s': %s", path,
		                 strerror(errno));
	if (!S_ISREG(st.st_mode))
		return 0;
	if ((rc = gp__sniff_file(path, &kind)))
		return rc;
	switch (kind) {
	case GP_SRC_KINETO:
	case GP_SRC_CAPTURE:
	case GP_SRC_METRICS:
	case GP_SRC_RUN_DIR:
	case GP_SRC_OTHER:
	case GP_SRC_ANALYZE:
	case GP_SRC_SNAPSHOT:
		return 0;
	default: /* another gpuprof document, or one whose schema comes after the first bytes */
		break;
	}
	/*
	 * Its schema first, the rest skipped: a large analyze report is read
	 * again by gp_aggregate_paths(), pruned; only an aggregate is built whole.
	 */
	src.path = (char *)path;
	if ((rc = gp__doc_read_pruned(&src, schema_only, &doc)))
		return rc;
	if ((rc = judge(path, doc, out)) || !*out)
		return rc;
	gp_value_free(*out);
	*out = NULL;
	if ((rc = gp__doc_read(&src, &doc)))
		return rc;
	*out = doc;
	return 0;
}
