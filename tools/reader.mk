# SPDX-License-Identifier: MIT
# tools/reader.mk - the trace reader: its core as a convenience library
# (libreader.la, a public library later), the trace-read command and the
# reader unit tests. Included from the top-level Makefile.am.

noinst_LTLIBRARIES += libreader.la
libreader_la_SOURCES = \
	tools/reader/reader.c tools/reader/reader.h \
	tools/reader/tsdl.c tools/reader/tsdl.h

bin_PROGRAMS += trace-read
trace_read_SOURCES = tools/trace-read.c
trace_read_LDADD = libreader.la

if HAVE_CHECK
check_PROGRAMS += tests/unit/reader/test-reader
TESTS += tests/unit/reader/test-reader
tests_unit_reader_test_reader_SOURCES = tests/unit/reader/test-reader.c
tests_unit_reader_test_reader_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_reader_test_reader_LDADD = libreader.la $(CHECK_LIBS)
endif
