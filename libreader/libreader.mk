# SPDX-License-Identifier: MIT
# libreader/libreader.mk - the trace reader library: its core
# (libreadercore.la, linked into trace-read, tracectl and the tests, and
# installed as the public libshmtrace-reader with include/shmtrace/reader.h)
# and its unit test. Included from the top-level Makefile.am, which defines
# LIBREADER_CPPFLAGS, the include path of its internal headers (tsdl.h,
# lz4file.h) for the programs that test them.

noinst_LTLIBRARIES += libreadercore.la
libreadercore_la_SOURCES = \
	libreader/reader.c \
	libreader/tsdl.c libreader/tsdl.h \
	libreader/lz4file.c libreader/lz4file.h
libreadercore_la_CPPFLAGS = $(AM_CPPFLAGS) $(LIBREADER_CPPFLAGS) -DSHMTRACE_BUILDING_READER
libreadercore_la_CFLAGS = $(AM_CFLAGS) $(LZ4_CFLAGS)
libreadercore_la_LIBADD = $(LZ4_LIBS)

include_shmtrace_HEADERS += include/shmtrace/reader.h
lib_LTLIBRARIES += libshmtrace-reader.la
libshmtrace_reader_la_SOURCES =
libshmtrace_reader_la_LIBADD = libreadercore.la
libshmtrace_reader_la_LDFLAGS = $(AM_LDFLAGS) -version-info 1:0:1 -Wl,--no-undefined

if HAVE_CHECK
check_PROGRAMS += tests/unit/reader/test-reader
TESTS += tests/unit/reader/test-reader
tests_unit_reader_test_reader_SOURCES = tests/unit/reader/test-reader.c
tests_unit_reader_test_reader_CPPFLAGS = $(AM_CPPFLAGS) $(LIBREADER_CPPFLAGS)
tests_unit_reader_test_reader_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(LZ4_CFLAGS)
tests_unit_reader_test_reader_LDADD = libreadercore.la $(LZ4_LIBS) $(CHECK_LIBS)
endif
