/* SPDX-License-Identifier: MIT */
/*
 * cmd-help.c - `gpuprof help [COMMAND]`: the list of commands, or the
 * embedded docs/cli/gpuprof-COMMAND.md of one command.
 */
#include <string.h>

#include "cli.h"

int cmd_help(int argc, const char **argv)
{
	const char *text;

	if (argc < 2) {
		gp_cli_list_commands(stdout);
		return GP_EXIT_OK;
	}
	if (argc > 2 || argv[1][0] == '-') {
		if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
			fputs("usage: gpuprof help [<command>]\n", stdout);
			return GP_EXIT_OK;
		}
		fputs("usage: gpuprof help [<command>]\n", stderr);
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
	write_stdout(text, strlen(text));
	return GP_EXIT_OK;
}
