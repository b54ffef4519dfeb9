# SPDX-License-Identifier: MIT
# preload/preload.mk - the LD_PRELOAD helper libraries and their tests.
#
# Each helper is a module (libshmtrace-libc.so, -pthread.so, -func.so,
# -io.so) with its own provider, linked with libshmtrace, preloaded after
# it:  LD_PRELOAD=libshmtrace.so:libshmtrace-io.so program
# Everything is hidden but the wrapped functions (HELPER_API).

PRELOAD_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -Wl,--no-undefined
PRELOAD_LIBADD = libshmtrace.la -ldl

lib_LTLIBRARIES += libshmtrace-libc.la libshmtrace-pthread.la libshmtrace-func.la \
	libshmtrace-io.la

libshmtrace_libc_la_SOURCES = preload/libc.c preload/helper.h
libshmtrace_libc_la_LDFLAGS = $(PRELOAD_LDFLAGS)
libshmtrace_libc_la_LIBADD = $(PRELOAD_LIBADD)

libshmtrace_pthread_la_SOURCES = preload/pthread.c preload/helper.h
libshmtrace_pthread_la_LDFLAGS = $(PRELOAD_LDFLAGS)
libshmtrace_pthread_la_LIBADD = $(PRELOAD_LIBADD)

# the hooks must never be instrumented themselves, whatever CFLAGS say
libshmtrace_func_la_SOURCES = preload/func.c preload/helper.h
libshmtrace_func_la_CFLAGS = $(AM_CFLAGS) -fno-instrument-functions
libshmtrace_func_la_LDFLAGS = $(PRELOAD_LDFLAGS)
libshmtrace_func_la_LIBADD = $(PRELOAD_LIBADD)

libshmtrace_io_la_SOURCES = preload/io.c preload/helper.h
libshmtrace_io_la_LDFLAGS = $(PRELOAD_LDFLAGS)
libshmtrace_io_la_LIBADD = $(PRELOAD_LIBADD)

# ---- test programs: none is linked with libshmtrace -------------------------
check_PROGRAMS += tests/apps/preload-alloc tests/apps/preload-mutex \
	tests/apps/preload-func tests/apps/preload-io
tests_apps_preload_alloc_SOURCES = tests/apps/preload-alloc.c
tests_apps_preload_mutex_SOURCES = tests/apps/preload-mutex.c
tests_apps_preload_func_SOURCES = tests/apps/preload-func.c
tests_apps_preload_func_CFLAGS = $(AM_CFLAGS) -finstrument-functions
tests_apps_preload_io_SOURCES = tests/apps/preload-io.c

# ---- tests ------------------------------------------------------------------
PRELOAD_TESTS = \
	tests/integration/preload-malloc.sh \
	tests/integration/preload-mutex.sh \
	tests/integration/preload-func.sh \
	tests/integration/preload-io.sh \
	tests/integration/preload-noself.sh
TESTS += $(PRELOAD_TESTS)
dist_check_SCRIPTS += $(PRELOAD_TESTS)
EXTRA_DIST += preload/README.md
