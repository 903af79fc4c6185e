/* SPDX-License-Identifier: MIT */
/*
 * gpuprof.c - main: finds the command (the table of commands.c, git's git.c,
 * perf's perf.c), runs it and checks its standard output. No command calls
 * back into this file: what commands share lives in cli-util.c, help-list.c.
 *
 * Every command is listed, including those of later versions, which answer
 * that they are not available yet (exit 1). After a command returns, main
 * flushes and closes stdout and fails on a write error (a full disk); a
 * closed pipe (`gpuprof ... | head`) fails quietly, and a closed stdout
 * (`>&-`) that nothing was written to is no error. A command flagged
 * GP_CLI_KEEP_STATUS (`run`, whose status is CMD's) keeps its status and
 * only says so on stderr. SIGPIPE is ignored so a closed pipe shows up as
 * EPIPE rather than killing the process mid-write; SIGHUP, SIGINT, SIGQUIT
 * and SIGTERM remove the temporary files of unfinished outputs before gpuprof
 * dies of them (gp_cli_signals_install()).
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <string.h>

#include "cli.h"
#include "gpuprof/gpuprof.h"

/*
 * git's run_builtin: the command's status, unless stdout could not be
 * written. A closed stdout (`>&-`) fails only when something was written to
 * it (the write failed and left ferror() set): closing it then finds EBADF
 * with nothing lost. With GP_CLI_KEEP_STATUS the error is said once on
 * stderr and the status stays the command's.
 */
static int finish_stdout(int status, unsigned flags)
{
	int e = 0;

	errno = 0;
	if (ferror(stdout))
		e = gp_cli_stdout_errno ? gp_cli_stdout_errno : EIO;
	else if (fflush(stdout))
		e = errno ? errno : EIO;
	errno = 0;
	if (fclose(stdout) && !e && errno != EBADF)
		e = errno ? errno : EIO;
	if (!e)
		return status;
	/* the reader went away (`| head`): nothing worth saying */
	if (e != EPIPE)
		fprintf(stderr, "gpuprof: %s: cannot write to standard output: %s\n",
		        flags & GP_CLI_KEEP_STATUS ? "warning" : "error", strerror(e));
	return flags & GP_CLI_KEEP_STATUS ? status : GP_EXIT_FAILURE;
}

static int run_command(const struct gp_cli_cmd *c, int argc, const char **argv)
{
	int rc;

	if (!c->fn) {
		fprintf(stderr, "gpuprof: '%s' is not available yet in this version (%s)\n",
		        c->name, gp_version());
		return GP_EXIT_FAILURE;
	}
	rc = c->fn(argc, argv);
	if (rc < 0)
		rc = GP_EXIT_FAILURE;
	else if (rc > 255)
		rc = GP_EXIT_FAILURE;
	return finish_stdout(rc, c->flags);
}

int main(int argc, char **argv)
{
	const char **av = (const char **)argv;
	const struct gp_cli_cmd *c;

	gp_cli_sigpipe_ignored = signal(SIGPIPE, SIG_IGN) == SIG_IGN;
	/* before any command: `run` overrides them while CMD runs and restores them */
	gp_cli_signals_install();
#ifdef M_MMAP_THRESHOLD
	/*
	 * Keep large temporaries (sort buffers, per-event arrays) in their own
	 * mappings, returned to the system when freed: glibc's default raises
	 * the threshold after such a free and then serves them from a heap
	 * that never shrinks, which costs several MB of peak RSS on big traces.
	 * The heap of the small blocks, on the other hand, is not trimmed each
	 * time its top is free (glibc's default at 128 KiB): a trim and the
	 * growth after it cost a system call, a TLB flush on every CPU the
	 * process ran on and the page faults again. On trace_diff_test: 18 %
	 * fewer page faults and 8 % less CPU for 0.5 MB more peak RSS.
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#ifdef M_TRIM_THRESHOLD
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
#ifdef M_TOP_PAD
	/*
	 * Each heap (the main one and each thread's) grows and shrinks by
	 * 64 MiB more than asked, so the blocks one stage frees are the next
	 * one's without new pages: a page fault costs about 2 us in the VMs
	 * measured, as much as parsing 4 KB. On trace_diff_control tiled to
	 * 1 GB: 31 % fewer page faults, 12 % less CPU, peak RSS 0.43 -> 0.47 x
	 * the JSON (bench/RESULTS.md, issue 26); 3.5 MB more on a 35 MB trace.
	 */
	mallopt(M_TOP_PAD, 64 << 20);
#endif
#endif
	if (argc < 2) {
		gp_cli_list_commands(stdout);
		return finish_stdout(GP_EXIT_USAGE, 0);
	}
	if (strcmp(av[1], "--version") == 0 || strcmp(av[1], "-v") == 0)
		return run_command(gp_cli_find("version"), 1, av + 1);
	if (strcmp(av[1], "--help") == 0 || strcmp(av[1], "-h") == 0) {
		gp_cli_list_commands(stdout);
		return finish_stdout(GP_EXIT_OK, 0);
	}
	if (av[1][0] == '-') {
		fprintf(stderr, "gpuprof: unknown option '%s'\n", av[1]);
		gp_cli_list_commands(stderr);
		return GP_EXIT_USAGE;
	}
	c = gp_cli_find(av[1]);
	if (!c) {
		fprintf(stderr, "gpuprof: '%s' is not a gpuprof command; see 'gpuprof help'\n",
		        av[1]);
		return GP_EXIT_USAGE;
	}
	/* git: `gpuprof CMD --help` is `gpuprof help CMD`; `CMD -h` is the command's usage */
	if (argc >= 3 && strcmp(av[2], "--help") == 0) {
		const char *help_argv[] = { "help", av[1], NULL };

		return run_command(gp_cli_find("help"), 2, help_argv);
	}
	return run_command(c, argc - 1, av + 1);
}
