/* SPDX-License-Identifier: MIT */
/*
 * cmd-help.c - `gpuprof help [COMMAND]`: the list of commands, or the page of
 * one command, docs/cli/gpuprof-COMMAND.md embedded at build time, rendered as
 * text by help-render.c (the renderer the man pages are written with). main
 * sends `gpuprof COMMAND --help` here too; `gpuprof COMMAND -h` is the
 * command's own short usage.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "help-render.h"

static const char usage_text[] = "usage: gpuprof help [<command>]\n";

/*
 * The width of the text: the terminal's, at most 100 columns so that lines stay
 * readable; 80 when standard output is not a terminal (a pipe, a file), so the
 * text is the same wherever it goes.
 */
static int text_width(void)
{
	struct winsize ws;

	if (!isatty(STDOUT_FILENO))
		return 80;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) || ws.ws_col == 0)
		return 80;
	return ws.ws_col > 100 ? 100 : ws.ws_col;
}

/* renders the page in memory, then writes it as every command writes (write_stdout) */
static int show_page(const char *name, const char *md)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return error("cannot render the page of '%s': %s", name, strerror(errno));
	rc = gp_help_render_text(f, md, strlen(md), text_width());
	if (fclose(f) || rc) {
		free(buf);
		return error("cannot render the page of '%s': %s", name, strerror(ENOMEM));
	}
	write_stdout(buf, len);
	free(buf);
	return GP_EXIT_OK;
}

int cmd_help(int argc, const char **argv)
{
	const char *text;

	if (argc < 2) {
		gp_cli_list_commands(stdout);
		return GP_EXIT_OK;
	}
	if (argc > 2 || argv[1][0] == '-') {
		if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
			fputs(usage_text, stdout);
			return GP_EXIT_OK;
		}
		fputs(usage_text, stderr);
		return GP_EXIT_USAGE;
	}
	if (!gp_cli_is_command(argv[1])) {
		fprintf(stderr, "gpuprof: '%s' is not a gpuprof command; see 'gpuprof help'\n",
		        argv[1]);
		return GP_EXIT_USAGE;
	}
	text = gp_cli_doc_find(argv[1]);
	if (!text || !*text) {
		fprintf(stderr, "gpuprof: no documentation for '%s' in this build\n", argv[1]);
		return GP_EXIT_FAILURE;
	}
	return show_page(argv[1], text);
}
