/* SPDX-License-Identifier: MIT */
/*
 * bench.h - iteration series and their statistics: the result of `gpuprof
 * bench`, of the Python helper gpuprof.bench(), and one input of `gpuprof
 * compare`, in the "gpuprof.bench/1" schema (docs/bench-schema.md).
 *
 * A gp_bench holds named series; each series holds the measured iterations
 * (warm-up already removed) and, per iteration, optional GPU time, peak
 * memory and memory allocated at its end. gp_bench_result() computes the
 * statistics (stats.h) and builds the JSON tree. The entry points take
 * plain scalars and arrays so that Python's ctypes can call them without
 * declaring structs.
 */
#ifndef GPUPROF_BENCH_H
#define GPUPROF_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuprof.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GP_BENCH_SCHEMA "gpuprof.bench/1"

struct gp_bench;

/**
 * A new, empty result. @p source_kind: "command", "trace", "capture" or
 * "python". @p seed: of the bootstrap intervals (0: the fixed default; the low 63
 * bits are used and recorded).
 * @return NULL when out of memory.
 */
GP_API struct gp_bench *gp_bench_new(const char *source_kind, uint64_t seed);
GP_API void gp_bench_free(struct gp_bench *b);

/** Adds a free-form tag ("dtype": "fp16", "compiled": "yes", ...) shown and compared. */
GP_API int gp_bench_tag(struct gp_bench *b, const char *key, const char *value);

/** Records one element of the source (a command's argv word, a path). */
GP_API int gp_bench_source_arg(struct gp_bench *b, const char *arg);

/**
 * Adds a series of @p n measured iterations.
 * @param name       the series ("step", "frame", the command line)
 * @param rate_name  what one item is per second ("FPS", "samples/s", "steps/s"); NULL: "items/s"
 * @param batch_size items per iteration (> 0; 1 when each iteration is one item)
 * @param warmup     iterations run before these and excluded
 * @param times_ns   wall time of each iteration, ns
 * @param gpu_ns     GPU time of each iteration (kernel time projected onto it), ns; NULL: unknown
 * @param mem_bytes  peak device memory of each iteration, bytes; NULL: unknown
 * @param exit_codes the command's exit status per iteration; NULL: not a command
 * @return the index of the series, or a negative status.
 */
GP_API int gp_bench_add(struct gp_bench *b, const char *name, const char *rate_name,
                        double batch_size, uint32_t warmup, const double *times_ns, size_t n,
                        const double *gpu_ns, const double *mem_bytes, const int *exit_codes);

/**
 * Adds to series @p series the warm-up iterations' times (kept for the
 * steady-state check and shown, never in the statistics).
 */
GP_API int gp_bench_warmup_times(struct gp_bench *b, int series, const double *times_ns, size_t n);

/**
 * Adds to series @p series the device memory allocated at the end of each
 * of its @p n iterations, bytes (@p n: the series' iteration count), beside
 * the peaks of gp_bench_add(): "memory_at_end_bytes" and its statistics
 * "memory_at_end_stats" in the result.
 */
GP_API int gp_bench_memory_at_end(struct gp_bench *b, int series, const double *bytes, size_t n);

/**
 * Records that series @p series ran with parameter @p name set to @p value
 * (a parameter scan: `--parameter-scan`, `--parameter-list`). The result
 * lists the parameters' names in the order first seen ("parameters") and
 * each series' values; with one parameter it also has the sweeps
 * ("sweeps": latency and throughput per value, the knee of a batch-size
 * sweep). Strings are copied.
 */
GP_API int gp_bench_param(struct gp_bench *b, int series, const char *name, const char *value);

/**
 * Records the command of series @p series before its parameters were
 * substituted ("sleep {t}"): the series of one template form one sweep.
 */
GP_API int gp_bench_template(struct gp_bench *b, int series, const char *tmpl);

/**
 * Adds a performance target, METRIC OP VALUE [UNIT]: "p50<16.67ms",
 * "p99 <= 25 ms", "fps>=60". Metrics: the time statistics mean, median,
 * min, max, std, mad, p25, p50, p75, p90, p95, p99 (gpu_p50 ... for the GPU
 * time), with a unit ns, us, µs, ms or s; the rates fps, rate, throughput
 * (items per second) and iterations/s, with no unit. Every series of the
 * result gets each target's value and status (met, missed, unknown) and
 * the result "targets_met" (false when one is missed or unknown).
 * @return 0, GP_EINVAL (gp_last_error() says what is wrong with @p spec) or
 * GP_ELIMIT (more than 64).
 */
GP_API int gp_bench_target(struct gp_bench *b, const char *spec);

/**
 * The values of a parameter scan from @p min to @p max by @p step
 * (`--parameter-scan NAME MIN MAX`, `--parameter-step-size STEP`; @p step
 * NULL: 1), as hyperfine makes them: integers when all three are, else
 * decimals (a step is then required) written with as many decimals as the
 * most precise of the three ("0.3", "0.5", "0.7"), without the
 * accumulation error of adding binary fractions.
 * @param out a new array of strings (gp_value_free() it)
 * @return 0 or GP_EINVAL (not numbers, step 0 or negative, min above max,
 * gp_last_error() says which), GP_ELIMIT (more than 10000 values).
 */
GP_API int gp_bench_scan_values(const char *min, const char *max, const char *step,
                                struct gp_value **out);

/**
 * The values of `--parameter-list NAME VALUES`: @p list split at commas
 * ("\," is a comma inside a value); empty values are kept.
 * @param out a new array of strings (gp_value_free() it)
 */
GP_API int gp_bench_list_values(const char *list, struct gp_value **out);

/**
 * @p tmpl with every "{NAME}" of a parameter replaced by its value
 * (@p params: an object of strings), left to right; a value put in is not
 * scanned again. Braces that name no parameter stay as they are.
 * @param out the text (gp_free() it)
 */
GP_API int gp_bench_subst(const char *tmpl, const struct gp_value *params, char **out);

/** Where the iterations of a trace or capture are (gp_bench_add_paths()). */
struct gp_bench_iter_opts {
	uint32_t size; /**< sizeof(struct gp_bench_iter_opts) */
	/** An NVTX range or annotation (Kineto user_annotation) whose instances are the
	 * iterations; NULL with frame_mark NULL: ProfilerStep#N. */
	const char *iter_range;
	/** An NVTX mark (a frame mark of the annotation API): an iteration runs from
	 * one such mark to the next. */
	const char *frame_mark;
	uint32_t warmup;   /**< leading iterations excluded (kept as warm-up times) */
	double batch_size; /**< items per iteration; 0: 1 */
	/** NULL: "steps/s" for steps, "FPS" for frames, "NAME/s" for range NAME. */
	const char *rate_name;
	int64_t only_rank; /**< -1: every rank */
	/** More series at once (frames and diffusion steps, blocks...): ranges and marks, a
	 * series each, after iter_range and frame_mark. */
	const char *const *ranges;
	size_t nranges;
	const char *const *marks;
	size_t nmarks;
};

/**
 * Adds a series per trace (per rank) found in @p paths (traces, directories
 * of traces, `gpuprof run` directories, capture files) and per kind of
 * iteration that @p opts names (ProfilerStep#N when it names none): each
 * iteration with its wall time, its GPU time (the union of the GPU
 * activity launched inside it) and, when the trace has memory events of a
 * GPU, the peak and the at-end allocated bytes of the most loaded GPU.
 * Series are named after the iterations, with " [rank R]" when there are
 * several traces.
 * @return 0 or a negative status (GP_ENOENT: no such iterations in a trace).
 */
GP_API int gp_bench_add_paths(struct gp_bench *b, const char *const *paths, size_t n,
                              const struct gp_bench_iter_opts *opts);

/** Builds the "gpuprof.bench/1" tree. @return 0 or a negative status. */
GP_API int gp_bench_result(const struct gp_bench *b, struct gp_value **out);

/** The result as JSON text (gp_free()d by the caller), pretty when @p pretty. */
GP_API int gp_bench_json(const struct gp_bench *b, bool pretty, char **out, size_t *len);

/** Output formats of gp_bench_format(). */
enum gp_bench_format { GP_BENCH_TEXT = 0, GP_BENCH_MARKDOWN = 1 };

/**
 * The result (a "gpuprof.bench/1" tree, as built or as read back) as a
 * table for people: plain text or Markdown. gp_free() the text.
 */
GP_API int gp_bench_format(const struct gp_value *result, enum gp_bench_format fmt, char **out,
                           size_t *len);

/** gp_bench_result() then gp_bench_format(): the table of @p b (gp_free() the text). */
GP_API int gp_bench_text(const struct gp_bench *b, enum gp_bench_format fmt, char **out,
                         size_t *len);

#ifdef __cplusplus
}
#endif
#endif
