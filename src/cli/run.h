/* SPDX-License-Identifier: MIT */
/*
 * run.h - what the parts of `gpuprof run` share: the options (run-opts.c,
 * from the command line and a YAML file), the child process and its
 * environment (run-child.c), the metrics timeline and the status line
 * (run-metrics.c) and the run record run.json (run-json.c, over the
 * library's gpuprof/run.h). cmd-run.c ties
 * them together.
 *
 * Ownership: struct gp_run and everything it points to belong to cmd-run.c,
 * which frees them with gp_run_release(); the other files borrow.
 */
#ifndef GP_CLI_RUN_H
#define GP_CLI_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gpuprof/run.h"
#include "gpuprof/sample.h"

/**
 * The options, the indexes of gp_run_opt_names[] (the config file's keys).
 * Numbered as the library's enum gp_run_option, so that the bits of
 * gp_run_opts.from_config go into run.json's record as they are.
 */
enum gp_run_opt {
	GP_RO_OUTPUT = GP_RUN_OPTION_OUTPUT,
	GP_RO_SAMPLE_MS = GP_RUN_OPTION_SAMPLE_MS,
	GP_RO_NO_CUDA = GP_RUN_OPTION_NO_CUDA,
	GP_RO_CUDA_EVENTS = GP_RUN_OPTION_CUDA_EVENTS,
	GP_RO_CAPTURE_RANGE = GP_RUN_OPTION_CAPTURE_RANGE,
	GP_RO_DELAY = GP_RUN_OPTION_DELAY,
	GP_RO_DURATION = GP_RUN_OPTION_DURATION,
	GP_RO_SCHEDULE = GP_RUN_OPTION_SCHEDULE,
	GP_RO_ITER_RANGE = GP_RUN_OPTION_ITER_RANGE,
	GP_RO_TAG = GP_RUN_OPTION_TAGS,
	GP_RO_QUIET = GP_RUN_OPTION_QUIET,
	GP_RO_FORCE = GP_RUN_OPTION_FORCE,
	GP_RO_WAIT = GP_RUN_OPTION_WAIT,
	GP_RO_PYTORCH = GP_RUN_OPTION_PYTORCH,
	GP_RO_COUNT = GP_RUN_OPTION_COUNT
};

/** "output", "sample-ms", ...: the long option names, also the config keys. */
extern const char *const gp_run_opt_names[GP_RO_COUNT];

#define GP_RUN_MAX_TAGS      256
#define GP_RUN_MAX_TAG_LEN   4096      /* key=value */
#define GP_RUN_MAX_SECONDS   315360000 /* 10 years, for --delay and --duration */
#define GP_RUN_MAX_SCHED     1000000000
#define GP_RUN_MAX_TEXT_LEN  4096 /* --capture-range, --iter-range, -o */
#define GP_RUN_CONFIG_MAX_SZ (1 << 20)

struct gp_run_tag {
	char *key, *value; /* owned */
};

/* --pytorch: what the Python startup hook does (bits of gp_run_opts.pytorch) */
#define GP_RUN_PT_MODULES 1u /* a range around every nn.Module forward */
#define GP_RUN_PT_OPS     2u /* PyTorch's NVTX op ranges (emit_nvtx) */
#define GP_RUN_PT_SHAPES  4u /* ... with the input shapes (implies GP_RUN_PT_OPS) */

struct gp_run_sched {
	uint32_t wait, warmup, active, repeat; /* repeat 0: forever */
};

/** The options as resolved. Strings are owned (gp_run_opts_release). */
struct gp_run_opts {
	char *output;       /* -o DIR; NULL: ./gpuprof-run-N */
	uint32_t sample_ms; /* 0: no sampling */
	bool no_cuda, quiet, force;
	bool cuda_events;    /* --cuda-events: CUPTI's CUDA_EVENT kind */
	bool no_report;      /* --no-report (command line only; cmd-run.c) */
	uint32_t live_ms;    /* --live: a metrics line every live_ms, 0 none (command line only) */
	bool wait_primary;   /* --wait primary: not for CMD's other processes */
	char *capture_range; /* "nvtx:NAME" or "cudaProfilerApi", or NULL */
	int64_t delay_ns;    /* -1: not given */
	int64_t duration_ns; /* -1: not given */
	bool have_schedule;
	struct gp_run_sched schedule;
	char *iter_range;
	unsigned pytorch;        /* GP_RUN_PT_* bits, 0: no --pytorch */
	struct gp_run_tag *tags; /* sorted by key, keys unique */
	size_t ntags;
	char *config; /* --config FILE as given, or NULL */
	unsigned set; /* bit (1u << enum gp_run_opt): given, on the command line or in the file */
	unsigned from_config; /* bit: the value came from the config file */
};

/* ---- run-opts.c ---- */

void gp_run_opts_init(struct gp_run_opts *o);
void gp_run_opts_release(struct gp_run_opts *o);

/**
 * Sets option @p which from its text (a flag takes "true" or "false").
 * @return 0, or -1 with a message (no prefix, no full stop) in @p err.
 */
int gp_run_opt_set(struct gp_run_opts *o, enum gp_run_opt which, const char *text, char *err,
                   size_t errlen);

/** Adds or replaces one tag. @return 0, or -1 with a message in @p err. */
int gp_run_tag_set(struct gp_run_opts *o, const char *key, size_t klen, const char *value,
                   char *err, size_t errlen);

/**
 * Reads the YAML file o->config and fills in every option not already set
 * in @p o (the command line wins; tags are merged, the command line's
 * winning for the same key). Exits 2 with "FILE:LINE: ..." on a bad file.
 */
void gp_run_config_load(struct gp_run_opts *o);

/** "modules,ops,shapes" (the bits of @p pytorch set, in that order) into @p buf; "" for 0. */
const char *gp_run_pytorch_str(unsigned pytorch, char *buf, size_t n);

/** "wait=W,warmup=U,active=A,repeat=R" into @p buf. */
const char *gp_run_sched_str(const struct gp_run_sched *s, char *buf, size_t n);

/* ---- run-child.c ---- */

/** The injector: where it is (or why not) and what of it is used. */
struct gp_run_injector {
	char *path; /* absolute, owned; NULL when not found */
	/* --pytorch: the directory of the Python startup hook (sitecustomize.py), owned */
	char *pyhook;
	char *lib; /* libgpuprof.so.0 of this build, absolute, owned; NULL when not found */
	/* why not found, or why a found one records no NVTX or CUDA (owned); else NULL */
	char *reason;
	bool cuda, nvtx; /* the injections set up */
};

#define GP_RUN_MAX_PROCS 1024 /* the other processes of CMD listed in run.json */

/** Another process of CMD that gpuprof reaped (an orphan of CMD: gpuprof is their subreaper). */
struct gp_run_proc {
	pid_t pid;
	int status;          /* waitpid status */
	int64_t end_mono_ns; /* when gpuprof reaped it */
};

/** A process of CMD still running when gpuprof stopped waiting (--wait primary). */
struct gp_run_left {
	pid_t pid;
	char cmd[128]; /* its command line, cut */
	bool tracer;   /* it has the tracer loaded: its capture may be incomplete */
};

/** The child process and the signals gpuprof handles meanwhile. */
struct gp_run_child {
	pid_t pid;  /* 0 before fork */
	int go_fd;  /* write end: one byte lets the child exec, EOF makes it exit */
	int err_fd; /* read end: the errno of a failed exec, EOF on success */
	int sig_fd; /* signalfd: SIGCHLD and the forwarded signals */
	sigset_t old_mask;
	struct sigaction old_int, old_quit, old_chld;
	bool signals_set;
	int status; /* waitpid status once reaped */
	bool reaped;
	int64_t end_mono_ns;  /* when CMD was reaped */
	bool wait_all;        /* also wait for every other process of CMD (--wait all) */
	bool quiet;           /* no note on standard error about the processes waited for */
	const char *inj_path; /* the tracer, to tell which processes loaded it (may be NULL) */
	struct gp_run_proc
	    *procs; /* the others reaped, in order (malloc'd), GP_RUN_MAX_PROCS at most */
	size_t nprocs, procs_cap;
	uint64_t procs_more;      /* reaped past GP_RUN_MAX_PROCS */
	struct gp_run_left *left; /* not waited for (malloc'd) */
	size_t nleft;
	bool interrupted; /* SIGINT stopped the wait for the others: c->left lists them */
	int exec_errno;   /* 0, or why exec failed */
	char *const *argv, *const *envp, *const *sh_argv; /* borrowed */
	const char *path;
};

/**
 * Refuses (exit 2) when another CUDA tool's injection variable is set, naming
 * the variable, its value and the tool that probably set it.
 */
void gp_run_check_env(void);

/**
 * Resolves @p cmd like execvp (PATH when it has no slash) into *@p path
 * (malloc'd). @return 0, or 126/127 after printing why, like a shell.
 */
int gp_run_resolve(const char *cmd, char **path);

/** Finds the injector ($GPUPROF_INJECT_LIBRARY, next to the binary, where installed). */
void gp_run_find_injector(struct gp_run_injector *inj, bool no_cuda);

/**
 * --pytorch: finds the directory of the Python startup hook
 * (python/gpuprof/_startup/sitecustomize.py beside the binary, or in
 * LIBDIR/gpuprof where installed) into inj->pyhook. Exits 1 saying where it
 * looked when there is none.
 */
void gp_run_find_pyhook(struct gp_run_injector *inj);

/**
 * The child's environment: gpuprof's, less the variables of the contract,
 * plus those of this run (listed as "NAME=VALUE" in *@p set, a NULL-ended
 * array sharing the strings of *@p envp). Both arrays malloc'd; the strings
 * added are malloc'd too and listed in *@p set.
 */
void gp_run_build_env(const struct gp_run_opts *o, const struct gp_run_injector *inj,
                      const char *dir, int64_t start_mono_ns, char ***envp, char ***set);

/** Blocks SIGCHLD and the forwarded signals, ignores SIGINT and SIGQUIT. @return 0 or -1. */
int gp_run_signals_take(struct gp_run_child *c);
/** Undoes gp_run_signals_take(). */
void gp_run_signals_restore(struct gp_run_child *c);
/** Frees c->procs and c->left. */
void gp_run_child_release_lists(struct gp_run_child *c);

/** Forks the child, which waits for gp_run_child_release(). @return 0 or -1. */
int gp_run_child_fork(struct gp_run_child *c);
/** Lets the child exec. @return 0 when it did, else c->exec_errno says why. */
int gp_run_child_release(struct gp_run_child *c);
/** Makes a child that was never released exit, and reaps it. */
void gp_run_child_abort(struct gp_run_child *c);

/**
 * Makes gpuprof the subreaper of CMD's processes (prctl PR_SET_CHILD_SUBREAPER):
 * the orphans CMD leaves behind (`cmd &` in a shell, a daemon's double fork)
 * become gpuprof's children, so it can wait for them. Before the fork.
 */
void gp_run_subreaper(void);

/**
 * Waits for the child, forwarding SIGTERM, SIGHUP, SIGUSR1 and SIGUSR2 to it
 * and calling @p tick every @p tick_ms (0: never). With c->wait_all it then
 * waits for every other process of CMD too (they are gpuprof's children by
 * then, as their subreaper), saying once on standard error which ones, and
 * forwards the signals to them; the ones reaped go to c->procs. Without it,
 * the processes still running are listed in c->left. @return 0 or -1.
 */
int gp_run_child_wait(struct gp_run_child *c, void (*tick)(void *arg), void *arg, int tick_ms);

/* ---- run-metrics.c ---- */

struct gp_run_metrics;

/**
 * Opens the sampler on process tree @p pid and starts recording to @p path
 * (gpuprof.metrics/1) on its own thread. @return 0 or -1 (printed).
 */
int gp_run_metrics_start(struct gp_run_metrics **out, uint32_t interval_ms, pid_t pid,
                         const char *path);
/** Stops recording and writes the end line. @return 0 or -1 (printed). NULL: 0. */
int gp_run_metrics_stop(struct gp_run_metrics *m);
/** Frees @p m (stopping it first). NULL is a no-op. */
void gp_run_metrics_free(struct gp_run_metrics *m);
/** Why GPUs are not sampled, or NULL. */
const char *gp_run_metrics_gpu_status(struct gp_run_metrics *m);
/** Samples written so far. */
uint64_t gp_run_metrics_count(struct gp_run_metrics *m);

/**
 * Formats the line `gpuprof run --live` prints every SECONDS into @p buf:
 * elapsed time, then per GPU its memory used/total (%), utilisation,
 * temperature and power, then the host's CPU and memory used/total (%) and
 * the process tree's CPU and resident memory; "-" for what is unknown.
 * @p m may be NULL (no sampling).
 */
void gp_run_live_format(struct gp_run_metrics *m, int64_t elapsed_ns, char *buf, size_t n);

/**
 * Formats the status line into @p buf, at most @p width columns: elapsed
 * time, the busiest GPU (memory, utilisation) or why none, host CPU and the
 * process tree's CPU. @p m may be NULL (no sampling).
 */
void gp_run_status_format(struct gp_run_metrics *m, int64_t elapsed_ns, char *buf, size_t n,
                          int width);

/* ---- run-json.c ---- */

/** Everything known about a run; run.json is its image. */
struct gp_run {
	struct gp_run_opts opts;
	int argc;
	const char **argv; /* CMD and its arguments, borrowed from main */
	char *exe;         /* the resolved path of CMD */
	char *dir;         /* absolute capture directory */
	char *config_path; /* absolute --config path, or NULL */
	char *cwd, host[256];
	struct gp_run_injector inj;
	char **env_set; /* "NAME=VALUE" set for CMD, NULL-ended */
	int64_t start_real_ns, start_mono_ns;
	int64_t end_real_ns, end_mono_ns; /* 0 while running */
	pid_t pid;
	enum gp_run_state state;
	int exit_code;   /* valid when state is GP_RUN_EXITED */
	int exit_signal; /* valid when state is GP_RUN_SIGNALED */
	int wait_status; /* CMD's waitpid status, for both */
	int exec_errno;
	char *gpu_status; /* owned; NULL: GPUs sampled (or no sampling) */
	uint64_t samples;
	bool metrics_ok;
	enum gp_run_report_state report_state; /* the report step (run-report.c) */
	char *report_error;                    /* owned; why there is no report.json, or NULL */
	bool report_salvaged;
	/* CMD's other processes (borrowed from struct gp_run_child): reaped, not waited for */
	const struct gp_run_proc *procs;
	size_t nprocs;
	uint64_t procs_more;
	const struct gp_run_left *left;
	size_t nleft;
	bool wait_interrupted; /* SIGINT stopped the wait for them */
};

/**
 * Writes DIR/run.json from @p r through the library's record of the run
 * (gp_run_record_write(): atomically; on a full disk at the end, in place,
 * or state "unknown" with why), saying on standard error what went wrong.
 * @return 0 or -1 (printed).
 */
int gp_run_json_write(const struct gp_run *r);

/**
 * Starts the guardian of DIR/run.json: a process of its own (its own session,
 * adopted by init) that outlives gpuprof, and, if gpuprof dies without
 * calling gp_run_guardian_done() (SIGKILL, a crash), turns a run.json still
 * saying "running" into state "unknown" with why. Before any thread starts
 * and before gp_run_subreaper(). @return the descriptor to pass to
 * gp_run_guardian_done(), or -1 (then there is no guardian).
 */
int gp_run_guardian_start(const char *dir);
/** gpuprof's files are complete: the guardian exits and changes nothing. */
void gp_run_guardian_done(int fd);

/* ---- run-report.c ---- */

/**
 * The report step, once CMD and its tracer have ended: analyses DIR as
 * `gpuprof analyze DIR` does, writes DIR/report.json (the `--json` report) and,
 * unless --quiet, prints the summary on standard error. A failure is a note,
 * recorded in r->report_state / r->report_error; it never changes the exit status.
 */
void gp_run_report(struct gp_run *r);

#endif
