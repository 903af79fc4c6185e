/* SPDX-License-Identifier: MIT */
/*
 * commands.c - the dispatch table: each command's name, function and flags,
 * made from the list of cli-commands.h (git's git.c commands[], perf's
 * perf.c). Only main looks commands up here; no command calls this file, so
 * the table may point at every command without a call cycle between files.
 * `help` reads the same list through help-list.c, which has no functions.
 */
#include <string.h>

#include "cli-commands.h"
#include "cli.h"

#define GP_CLI_DISPATCH(name, fn, summary, flags) { name, fn, summary, flags },
const struct gp_cli_cmd gp_cli_commands[] = {
	GP_CLI_COMMAND_LIST(GP_CLI_DISPATCH){ NULL, NULL, NULL, 0 },
};

const struct gp_cli_cmd *gp_cli_find(const char *name)
{
	const struct gp_cli_cmd *c;

	for (c = gp_cli_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}
