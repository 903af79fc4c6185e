/* SPDX-License-Identifier: MIT */
/*
 * mkman.c - gpuprof-mkman, the build-time tool that writes the man pages:
 * `gpuprof-mkman SOURCE PAGE.md OUT.1` renders a command page with the roff
 * back end of help-render.c, the renderer `gpuprof help` uses for text, so
 * the man page and the help say the same. Run by cmake/GpManPages.cmake;
 * not installed. `gpuprof-mkman --text WIDTH PAGE.md OUT` writes the text
 * that `gpuprof help` would, for the renderer's golden test (t0005).
 * Exit 0, or 1 with a message; 2 on a usage error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "help-render.h"

int main(int argc, char **argv)
{
	FILE *in, *out;
	char *md = NULL;
	size_t len = 0, cap = 0, got;
	int rc = 1, width = 0;
	bool text = argc == 5 && strcmp(argv[1], "--text") == 0;

	if (text) {
		width = atoi(argv[2]);
		argv++;
		argc--;
	}
	if (argc != 4 || (text && width <= 0)) {
		fputs("usage: gpuprof-mkman SOURCE PAGE.md OUT.1\n"
		      "       gpuprof-mkman --text WIDTH PAGE.md OUT\n",
		      stderr);
		return 2;
	}
	in = fopen(argv[2], "rb");
	if (!in) {
		fprintf(stderr, "gpuprof-mkman: cannot open '%s': %s\n", argv[2], strerror(errno));
		return 1;
	}
	do {
		if (len == cap) {
			char *p = realloc(md, cap = cap ? 2 * cap : 65536);

			if (!p)
				goto out_in;
			md = p;
		}
		got = fread(md + len, 1, cap - len, in);
		len += got;
	} while (got);
	if (ferror(in)) {
		fprintf(stderr, "gpuprof-mkman: cannot read '%s'\n", argv[2]);
		goto out_in;
	}
	out = fopen(argv[3], "w");
	if (!out) {
		fprintf(stderr, "gpuprof-mkman: cannot create '%s': %s\n", argv[3],
		        strerror(errno));
		goto out_in;
	}
	if ((text ? gp_help_render_text(out, md, len, width)
	          : gp_help_render_roff(out, md, len, argv[1])) == 0)
		rc = 0;
	if (fclose(out) || rc) {
		fprintf(stderr, "gpuprof-mkman: cannot write '%s'\n", argv[3]);
		remove(argv[3]);
		rc = 1;
	}
out_in:
	fclose(in);
	free(md);
	return rc;
}
