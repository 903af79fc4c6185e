/* SPDX-License-Identifier: MIT */
/*
 * demangle.h - C++ names as people read them ("_ZN2at6native..." ->
 * "void at::native::...(...)"), as nsys shows the kernel names of a capture.
 *
 * The demangler is found at run time behind a table of backends, like the
 * GPU libraries (STYLE.md section 7): libstdc++'s __cxa_demangle (its C ABI,
 * dlopen'd, so nothing is linked and no third-party source is carried), else
 * the null backend, which leaves every name as it is. A process without
 * libstdc++ shows mangled names and nothing else changes.
 */
#ifndef GP_UTIL_DEMANGLE_H
#define GP_UTIL_DEMANGLE_H

#include "util/buf.h"

/**
 * Appends @p name demangled to @p out when it is an Itanium C++ ABI name
 * ("_Z...") and a demangler is present; otherwise appends nothing.
 * Thread-safe (the backend is chosen once, on the first call; the
 * environment variable GP_DEMANGLE_LIBRARY names another library, and an
 * empty or unloadable one selects the null backend).
 * @return 1 when @p out got the demangled name, 0 when the name stays as it
 * is, GP_ENOMEM or GP_ELIMIT from the buffer.
 */
int gp__demangle(struct gp_buf *out, const char *name);

/** The backend in use: "libstdc++ (PATH)" or "none". */
const char *gp__demangle_backend(void);

#endif
