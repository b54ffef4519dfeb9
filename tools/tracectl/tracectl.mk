# SPDX-License-Identifier: MIT
# tools/tracectl/tracectl.mk - the tracectl command. Included from the
# top-level Makefile.am.

bin_PROGRAMS += tracectl
tracectl_SOURCES = tools/tracectl/tracectl.c tools/tracectl/tracectl.h \
	tools/tracectl/record.c tools/tracectl/aggctl.c \
	tools/tracectl/ctl-client.c tools/tracectl/ctl-client.h tools/exit-status.h
tracectl_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tracectl_LDADD = libcommon.la libreadercore.la
