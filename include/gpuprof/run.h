/* SPDX-License-Identifier: MIT */
/*
 * run.h - the record of a profiled run: DIR/run.json, schema "gpuprof.run/1"
 * (docs/cli/gpuprof-run.md lists its keys). `gpuprof run` writes it; a
 * launcher of its own (a job script, another runner) can write the same
 * record, and `gpuprof analyze` and `report` read it back from a run
 * directory.
 *
 * A struct gp_run_record holds what is known about the run so far: the
 * program filled in with the setters, then gp_run_record_write() once when
 * the program starts (state GP_RUN_RUNNING) and again whenever more is known
 * (how it ended, the report step). Each write replaces run.json whole
 * (atomically: a reader never sees half a file). A version that another will
 * follow keeps room on disk after the document (trailing spaces, which JSON
 * allows), so that the last version can still go in place when a full disk
 * refuses the temporary file of an atomic write.
 *
 * gp_run_record_mark_unfinished() is for a process that outlives the writer
 * (gpuprof's guardian): it turns a run.json left "running" into "unknown".
 *
 * Strings passed to the setters are borrowed and copied. Nothing here
 * prints. One record is used by one thread at a time.
 */
#ifndef GPUPROF_RUN_H
#define GPUPROF_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_RUN_SCHEMA "gpuprof.run/1"

/** How the run stands: run.json's "state". */
enum gp_run_state {
	GP_RUN_STARTING = 0, /**< "starting": nothing started yet (the default) */
	GP_RUN_RUNNING,      /**< "running": the program runs */
	GP_RUN_EXITED,       /**< "exited", with exit_code */
	GP_RUN_SIGNALED,     /**< "signaled", with exit_signal and core_dumped */
	GP_RUN_EXEC_FAILED,  /**< "exec_failed", with exec_error */
	GP_RUN_UNKNOWN,      /**< "unknown", with state_reason */
};

/** The report step: run.json's "report.state". */
enum gp_run_report_state {
	GP_RUN_REPORT_PENDING = 0, /**< not done yet (the default) */
	GP_RUN_REPORT_WRITTEN,     /**< report.json written */
	GP_RUN_REPORT_FAILED,      /**< no report.json, error says why */
	GP_RUN_REPORT_DISABLED,    /**< not asked for (--no-report) */
};

/** The options of run.json's "options" list in "from_config" (bits 1u << value). */
enum gp_run_option {
	GP_RUN_OPTION_OUTPUT = 0,
	GP_RUN_OPTION_SAMPLE_MS,
	GP_RUN_OPTION_NO_CUDA,
	GP_RUN_OPTION_CUDA_EVENTS,
	GP_RUN_OPTION_CAPTURE_RANGE,
	GP_RUN_OPTION_DELAY,
	GP_RUN_OPTION_DURATION,
	GP_RUN_OPTION_SCHEDULE,
	GP_RUN_OPTION_ITER_RANGE,
	GP_RUN_OPTION_TAGS,
	GP_RUN_OPTION_QUIET,
	GP_RUN_OPTION_FORCE,
	GP_RUN_OPTION_WAIT,
	GP_RUN_OPTION_PYTORCH,
	GP_RUN_OPTION_COUNT
};

/**
 * The options of the run as resolved (run.json's "options"; the capture
 * directory is its "output"). Zero-initialise, then set size =
 * sizeof(struct gp_run_options). Strings are borrowed; NULL is null.
 */
struct gp_run_options {
	uint32_t size;
	/** Sampling interval of the metrics timeline; 0: no sampling. */
	uint32_t sample_ms;
	bool no_cuda, cuda_events, quiet, force, no_report;
	/** Wait for the program only, not for the other processes it started. */
	bool wait_primary;
	/** delay_ns and duration_ns are given (else null). */
	bool have_delay, have_duration;
	int64_t delay_ns, duration_ns;
	/** "nvtx:NAME", "cudaProfilerApi", or NULL. */
	const char *capture_range;
	/** "wait=W,warmup=U,active=A,repeat=R", or NULL. */
	const char *schedule;
	const char *iter_range;
	/** The configuration file the options came from, or NULL. */
	const char *config;
	/** Bits (1u << enum gp_run_option): options whose value came from the configuration file.
	 */
	uint32_t from_config;
	/** `--pytorch`: "modules", "ops", "shapes" joined by commas in that order, or NULL. */
	const char *pytorch;
};

/** How gp_run_record_write() put run.json on disk. */
enum gp_run_write_how {
	GP_RUN_WRITE_NONE = 0, /**< not written (the status says why) */
	GP_RUN_WRITE_ATOMIC,   /**< replaced whole, through a temporary file */
	GP_RUN_WRITE_IN_PLACE, /**< the atomic write failed; written in place, into the room kept */
	GP_RUN_WRITE_UNKNOWN,  /**< even that did not fit: the state "unknown", with why, went there
	                        */
};

struct gp_run_record;

/**
 * A new record of a run whose capture directory is @p dir (absolute; the
 * record is written to DIR/run.json). Its state is GP_RUN_STARTING, its
 * report GP_RUN_REPORT_PENDING.
 * @param out the record, owned by the caller (gp_run_record_free()); NULL on error
 * @return 0, GP_EINVAL (empty @p dir) or GP_ENOMEM.
 */
GP_API int gp_run_record_new(const char *dir, struct gp_run_record **out);

/** Frees @p rec; NULL is a no-op. */
GP_API void gp_run_record_free(struct gp_run_record *rec);

/**
 * The program run: @p argc arguments of @p argv (its name first) and the
 * file executed (@p executable, may be NULL). @return 0 or GP_ENOMEM.
 */
GP_API int gp_run_record_set_command(struct gp_run_record *rec, const char *const *argv,
                                     size_t argc, const char *executable);

/** Where it runs: host name and working directory (either may be NULL). @return 0 or GP_ENOMEM. */
GP_API int gp_run_record_set_host(struct gp_run_record *rec, const char *hostname, const char *cwd);

/** The options (see struct gp_run_options). @return 0, GP_EINVAL (bad size) or GP_ENOMEM. */
GP_API int gp_run_record_set_options(struct gp_run_record *rec, const struct gp_run_options *opts);

/** Adds or replaces the tag @p key. @return 0, GP_EINVAL (NULL key or value) or GP_ENOMEM. */
GP_API int gp_run_record_set_tag(struct gp_run_record *rec, const char *key, const char *value);

/**
 * Records one variable set in the program's environment, as "NAME=VALUE"
 * (the form of environ). @return 0, GP_EINVAL (no '=') or GP_ENOMEM.
 */
GP_API int gp_run_record_set_env(struct gp_run_record *rec, const char *assignment);

/**
 * The tracer injected: its path (NULL: none), why it is missing or records
 * less (NULL: nothing to say), and whether the CUDA and NVTX injections were
 * set up. @return 0 or GP_ENOMEM.
 */
GP_API int gp_run_record_set_injector(struct gp_run_record *rec, const char *path,
                                      const char *reason, bool cuda, bool nvtx);

/**
 * When the run started (CLOCK_REALTIME and CLOCK_MONOTONIC, in ns) and the
 * program's process id (0 or less: none yet). @return 0.
 */
GP_API int gp_run_record_set_start(struct gp_run_record *rec, int64_t unix_ns, int64_t monotonic_ns,
                                   int pid);

/**
 * When the program ended (CLOCK_REALTIME and CLOCK_MONOTONIC, in ns); 0 and 0:
 * not ended. @return 0.
 */
GP_API int gp_run_record_set_end(struct gp_run_record *rec, int64_t unix_ns, int64_t monotonic_ns);

/**
 * Sets the state. GP_RUN_EXITED and GP_RUN_SIGNALED take @p code, the
 * program's waitpid() status (the state follows from it: WIFEXITED gives
 * GP_RUN_EXITED); GP_RUN_EXEC_FAILED takes the errno of the failed exec in
 * @p code; the others ignore it. @p reason (may be NULL) is state_reason.
 * @return 0, GP_EINVAL (an unknown state) or GP_ENOMEM.
 */
GP_API int gp_run_record_set_state(struct gp_run_record *rec, enum gp_run_state state, int code,
                                   const char *reason);

/**
 * Adds one of the program's other processes that was waited for: its pid,
 * waitpid() status and the CLOCK_MONOTONIC time it was reaped. @return 0 or GP_ENOMEM.
 */
GP_API int gp_run_record_add_process(struct gp_run_record *rec, int pid, int wait_status,
                                     int64_t end_monotonic_ns);

/**
 * Adds one of the program's processes that was left running (not waited
 * for): its pid, command line, and whether it had loaded the tracer.
 * @return 0 or GP_ENOMEM.
 */
GP_API int gp_run_record_add_not_waited(struct gp_run_record *rec, int pid, const char *command,
                                        bool tracer);

/**
 * The end of the wait for the other processes: @p more reaped beyond those
 * added (not listed), and whether an interruption (SIGINT) ended it. @return 0.
 */
GP_API int gp_run_record_set_wait(struct gp_run_record *rec, uint64_t more, bool interrupted);

/**
 * The metrics timeline: its file in DIR (NULL: none), the samples in it and
 * why GPUs are not sampled (NULL: they are, or nothing is). @return 0 or GP_ENOMEM.
 */
GP_API int gp_run_record_set_sampler(struct gp_run_record *rec, const char *file, uint64_t samples,
                                     const char *gpu_status);

/**
 * The report step: its state, why it failed (may be NULL), and whether the
 * report was made from a capture cut short (salvaged). A written report is
 * DIR/report.json. @return 0, GP_EINVAL (an unknown state) or GP_ENOMEM.
 */
GP_API int gp_run_record_set_report(struct gp_run_record *rec, enum gp_run_report_state state,
                                    const char *error, bool salvaged);

/**
 * Writes DIR/run.json from @p rec, replacing it whole. A version another
 * will follow (the state GP_RUN_STARTING or GP_RUN_RUNNING, or the report
 * pending) keeps 4 KiB on disk after the document. When the atomic write of
 * a later version fails (a full disk), the document goes in place into the
 * file's room (GP_RUN_WRITE_IN_PLACE, and 0); if it does not fit, the state
 * "unknown" with why goes there instead (GP_RUN_WRITE_UNKNOWN, and an error).
 * Whenever *@p how is not GP_RUN_WRITE_ATOMIC, gp_last_error() says why the
 * atomic write failed.
 * @param how how it was written (may be NULL)
 * @return 0 when the record is on disk; GP_EIO (errno kept), GP_ENOMEM.
 */
GP_API int gp_run_record_write(const struct gp_run_record *rec, enum gp_run_write_how *how);

/**
 * For a process that outlives the writer of DIR/run.json: when the file
 * still says "starting" or "running", sets state "unknown" and state_reason
 * @p reason, keeping everything else, and writes it back (atomically, else
 * in place). Anything else (no file, another state, not run.json) is left
 * alone.
 * @param changed whether the file was changed (may be NULL)
 * @return 0; GP_EIO, GP_ENOMEM.
 */
GP_API int gp_run_record_mark_unfinished(const char *dir, const char *reason, bool *changed);

#ifdef __cplusplus
}
#endif
#endif
