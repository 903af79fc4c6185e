/* SPDX-License-Identifier: MIT */
/*
 * cli-commands.h - the one list of gpuprof's commands, as an X-macro.
 *
 * GP_CLI_COMMAND_LIST(X) calls X(name, fn, summary, flags) once per command,
 * in the order `gpuprof help` lists them. Two tables are made from it, so the
 * list is written once and no file calls back into another: the dispatch
 * table of commands.c (with the functions, seen by main only) and the names
 * and summaries of help-list.c (without them, seen by `help` and main). A
 * command of a later version has fn NULL and the flag GP_CLI_LATER.
 *
 * To add a command: write cmd-NAME.c with `int cmd_NAME(int, const char **)`,
 * declare it in cli.h, add its line here and its page docs/cli/gpuprof-NAME.md.
 */
#ifndef GP_CLI_COMMANDS_H
#define GP_CLI_COMMANDS_H

#define GP_CLI_COMMAND_LIST(X)                                                                     \
	X("analyze", cmd_analyze, "where the time goes, per step and overall; findings", 0)        \
	X("run", cmd_run, "capture a program: CUDA kernels, copies, API calls, NVTX ranges",       \
	  GP_CLI_KEEP_STATUS)                                                                      \
	X("top", cmd_top, "live GPU/CPU monitor; JSON lines; Prometheus metrics", 0)               \
	X("bench", cmd_bench, "iteration statistics: latency p50/p95/p99, FPS, warmup", 0)         \
	X("compare", cmd_compare, "regression verdict with significance", 0)                       \
	X("aggregate", cmd_aggregate, "many ranks: per-rank table, collectives, stragglers", 0)    \
	X("history", cmd_history, "the performance database: add results, list series", 0)         \
	X("report", cmd_report, "one self-contained HTML page", 0)                                 \
	X("export", cmd_export, "convert a trace for Perfetto and chrome://tracing", 0)            \
	X("version", cmd_version, "what this build and this machine support", 0)                   \
	X("help", cmd_help, "show the docs of a command", 0)

#endif
