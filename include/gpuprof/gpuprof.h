/* SPDX-License-Identifier: MIT */
/*
 * gpuprof.h - the core of the public API: status codes, the last-error string,
 * logging, memory release and version information.
 *
 * Every function of libgpuprof returns an int status: 0 (GP_OK) on success, a
 * negative enum gp_status otherwise. The numbers are stable: the CLI and the
 * Python binding depend on them. Details (a file offset, an errno text) are kept
 * in a thread-local string read with gp_last_error().
 */
#ifndef GPUPROF_GPUPROF_H
#define GPUPROF_GPUPROF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GP_BUILDING_LIB) && defined(__GNUC__)
#define GP_API __attribute__((visibility("default")))
#else
#define GP_API
#endif

/** Status codes. Negative, stable; never renumber. */
enum gp_status {
	GP_OK = 0,
	GP_ENOMEM = -1,   /**< out of memory */
	GP_EINVAL = -2,   /**< invalid argument */
	GP_EIO = -3,      /**< read or write failed */
	GP_ENODEV = -4,   /**< no such device */
	GP_ENOTSUP = -5,  /**< not supported by this build or machine */
	GP_EFORMAT = -6,  /**< malformed input */
	GP_ETRUNC = -7,   /**< input ends early */
	GP_EVERSION = -8, /**< unsupported format version */
	GP_ELIMIT = -9,   /**< a size or count limit was exceeded */
	GP_ENOENT = -10,  /**< no such file, or nothing to read in it */
};

/** @return a static description of @p status; never NULL. */
GP_API const char *gp_strerror(int status);

/**
 * @return the detail of the last error raised on this thread ("" if none).
 * The string belongs to the library and stays valid until the next call that
 * fails on the same thread.
 */
GP_API const char *gp_last_error(void);

/** Clears this thread's last-error string. */
GP_API void gp_clear_error(void);

/** Log levels for gp_set_log(). */
enum gp_log_level { GP_LOG_ERROR = 0, GP_LOG_WARN = 1, GP_LOG_INFO = 2, GP_LOG_DEBUG = 3 };

/** A log callback. @p msg has no trailing newline. Called from any thread. */
typedef void (*gp_log_fn)(enum gp_log_level level, const char *msg, void *user);

/**
 * Sets the process-wide log callback; NULL silences the library (the default).
 * The library itself never prints.
 */
GP_API void gp_set_log(gp_log_fn fn, void *user);

/** Frees memory handed out by the library (never use a bare free()). NULL is a no-op. */
GP_API void gp_free(void *p);

/** @return the library version, e.g. "0.1.0". */
GP_API const char *gp_version(void);

/**
 * Replaces the file at @p path with @p len bytes of @p data, atomically: the
 * bytes go to a temporary file `.NAME.tmp.XXXXXX` beside the target, are
 * synced, and are renamed over it, so a reader sees the old file or the new
 * one, never half of one (git's lockfile). The one writer the library and
 * the gpuprof CLI use for every file they replace.
 *
 * - a symbolic link is followed: its target is replaced and the link stays;
 * - an existing file keeps its permission bits; a new one gets 0666 less the
 *   umask (the umask is never changed);
 * - an existing file without write permission is refused ("cannot write
 *   'PATH': Permission denied"), and so is a directory;
 * - a device, FIFO or socket (`/dev/null`, `/dev/stdout`) is written in place;
 * - a @p path ending in ".gz" is written gzip-compressed (GP_ENOTSUP in a
 *   build without a gzip library);
 * - on any error the target is left as it was and no temporary file remains
 *   (nor after a signal whose handler calls gp_tempfile_cleanup_signal()).
 *
 * Thread-safe: different threads may write different files at once.
 * @param path the file to replace (borrowed)
 * @param data @p len bytes (borrowed; may be NULL when @p len is 0)
 * @param len  the number of bytes
 * @return 0; GP_EINVAL (no file name, a directory), GP_EIO (a read-only
 *         target, cannot create, write, sync or rename), GP_ENOMEM.
 *         gp_last_error() names @p path as given and errno is left at the
 *         cause (EACCES, ENOSPC, ...).
 */
GP_API int gp_file_write_atomic(const char *path, const void *data, size_t len);

/**
 * Where a document's bytes go (an export, gp_value_write_json()): called with
 * each chunk of it, in order, and @p user as given. @return 0, or -1 with
 * errno set (EIO when there is nothing better) to end the writing with GP_EIO.
 */
typedef int (*gp_write_fn)(const void *p, size_t n, void *user);

struct gp_value;

/**
 * gp_file_write_atomic() of gp_value_to_json()'s text of @p v (value.h), written as it is
 * made (gp_value_write_json()) rather than held whole: a large report costs no more memory
 * than its tree. The same guarantees and errors, and those of the writer (GP_ELIMIT).
 */
GP_API int gp_file_write_atomic_json(const char *path, const struct gp_value *v, unsigned flags);

/**
 * Makes a document: writes all of it to @p write (with @p wuser), in order.
 * @return 0, or a gp_status with gp_last_error() set (a failed @p write: GP_EIO).
 */
typedef int (*gp_produce_fn)(void *user, gp_write_fn write, void *wuser);

/**
 * gp_file_write_atomic() of the text @p produce makes (with @p user), written as it comes:
 * the same guarantees; when @p produce fails, the target is left as it was and its error
 * is returned.
 */
GP_API int gp_file_write_atomic_with(const char *path, gp_produce_fn produce, void *user);

/**
 * Removes every temporary file that this process is writing and has not yet
 * renamed over its target: the library replaces each file it writes (e.g.
 * gp_export_paths_to_file()) through `.NAME.tmp.XXXXXX` beside NAME, listed in
 * a process-wide registry while it exists. The library never installs signal
 * handlers: a program that wants these files gone when SIGINT, SIGTERM or
 * SIGHUP kill it calls this from its own handler (the gpuprof CLI does).
 *
 * Async-signal-safe: no lock, no allocation, no stdio; only unlink(2) and a
 * bounded wait for a file being created on another thread. Files of a parent
 * this process was forked from are left alone. Meant for a handler of a
 * signal that then kills the process: a write whose file was removed fails.
 * errno is kept.
 */
GP_API void gp_tempfile_cleanup_signal(void);

/**
 * Flags of gp_format_duration() and gp_format_bytes(). GP_FORMAT_SIGN: "+"
 * before a positive value; GP_FORMAT_COMPACT (bytes): at most three
 * significant digits and a one-letter unit ("1.5G", "512M"), for narrow
 * columns such as `gpuprof top`'s.
 */
#define GP_FORMAT_SIGN    0x1u
#define GP_FORMAT_COMPACT 0x4u

/**
 * A duration for people, as every gpuprof command prints one: @p ns
 * nanoseconds with four significant digits in the unit they round to ("850
 * ns", "56.70 µs", "1.234 ms", "12.35 s"; never "1000.0 µs"), "-" when @p ns
 * is not finite. Writes at most @p size bytes (32 always suffice) into @p buf.
 * @return @p buf. Thread-safe.
 */
GP_API const char *gp_format_duration(double ns, unsigned flags, char *buf, size_t size);

/**
 * A size for people, as every gpuprof command prints one: binary units with
 * one decimal, the unit chosen after rounding ("512 B", "1.5 KiB", "2.0 GiB";
 * with GP_FORMAT_COMPACT "512B", "1.5K", "80G"), "-" when @p bytes is not
 * finite. Writes at most @p size bytes (32 always suffice) into @p buf.
 * @return @p buf. Thread-safe.
 */
GP_API const char *gp_format_bytes(double bytes, unsigned flags, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
