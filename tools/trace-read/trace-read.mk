# SPDX-License-Identifier: MIT
# tools/trace-read/trace-read.mk - the trace-read command. Included from
# the top-level Makefile.am.

bin_PROGRAMS += trace-read
trace_read_SOURCES = tools/trace-read/trace-read.c tools/exit-status.h \
	tools/suggest.c tools/suggest.h \
	tools/trace-read/output.c tools/trace-read/output.h \
	tools/trace-read/printers.c tools/trace-read/printers.h \
	tools/trace-read/flagnames.c tools/trace-read/flagnames.h \
	tools/trace-read/sinks.c tools/trace-read/sinks.h \
	tools/trace-read/aggprint.c tools/trace-read/aggprint.h \
	tools/trace-read/follow.c tools/trace-read/follow.h \
	tools/trace-read/stats.c tools/trace-read/stats.h \
	tools/trace-read/latency.c tools/trace-read/latency.h \
	tools/trace-read/profile.c tools/trace-read/profile.h \
	tools/trace-read/chrome.c tools/trace-read/chrome.h
trace_read_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -I$(top_srcdir)/tools/trace-read \
	$(LIBREADER_CPPFLAGS)
trace_read_LDADD = libreadercore.la libsupport.la libcommon.la
