/* SPDX-License-Identifier: MIT */
/*
 * run.c - run.json of a `gpuprof run` directory (schema gpuprof.run/1,
 * written by the CLI's run-json.c), read back for analyze (tags, how each
 * process ended, the run itself when there is no capture) and report (the
 * page's environment). It is an extra: one that is missing, larger than
 * RUN_JSON_MAX_BYTES, not JSON or of another schema is left out silently.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source.h"
#include "util/error.h"

#define RUN_JSON_MAX_BYTES ((size_t)16 << 20)

int gp__run_json_read(const char *dir, struct gp_value **out)
{
	size_t plen = strlen(dir) + sizeof("/run.json"), got = 0;
	char *path = gp__malloc(plen), *text = NULL;
	const char *schema;
	struct gp_value *v = NULL;
	struct stat st;
	int fd = -1, rc = 0;

	*out = NULL;
	if (!path)
		return gp__error(GP_ENOMEM, "out of memory");
	snprintf(path, plen, "%s/run.json", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (size_t)st.st_size > RUN_JSON_MAX_BYTES)
		goto out;
	text = gp__malloc((size_t)st.st_size);
	if (!text)
		GP_TRY(gp__error(GP_ENOMEM, "out of memory"));
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, text + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	rc = gp_value_parse(text, got, &v, NULL);
	if (rc == GP_ENOMEM)
		goto out;
	rc = 0;
	gp_clear_error();
	schema = gp_value_get_str(gp_obj_get(v, "schema"));
	if (!schema || strcmp(schema, "gpuprof.run/1") != 0)
		goto out;
	*out = v;
	v = NULL;
out:
	gp_value_free(v);
	gp__free(text);
	gp__free(path);
	if (fd >= 0)
		close(fd);
	return rc;
}
