# SPDX-License-Identifier: MIT
# tools/tracectl/tracectl.mk - the tracectl command, and the test program
# that prints its table of verbs. Included from the top-level Makefile.am.

# the verbs: every file of tracectl but tracectl.c (what comes before the verb)
tracectl_verb_sources = \
	tools/tracectl/verbs.c tools/tracectl/verbs.h \
	tools/tracectl/request.c tools/tracectl/request.h \
	tools/tracectl/view.c tools/tracectl/view.h \
	tools/tracectl/aggctl.c tools/tracectl/aggctl.h \
	tools/tracectl/trigctl.c tools/tracectl/trigctl.h \
	tools/tracectl/profile.c tools/tracectl/profile.h \
	tools/tracectl/record.c tools/tracectl/record.h \
	tools/tracectl/ctl-client.c tools/tracectl/ctl-client.h tools/exit-status.h \
	tools/tracectl/render.c tools/tracectl/render.h \
	tools/tracectl/why.c tools/tracectl/why.h \
	tools/tracectl/jwrite.c tools/tracectl/jwrite.h \
	tools/suggest.c tools/suggest.h

bin_PROGRAMS += tracectl
tracectl_SOURCES = tools/tracectl/tracectl.c $(tracectl_verb_sources)
tracectl_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tracectl_LDADD = libsupport.la libcommon.la libreadercore.la

# the table of verbs, for the tests that check the usage lines, the
# manual page and the bash completion against it
check_PROGRAMS += tests/apps/verb-table
tests_apps_verb_table_SOURCES = tests/apps/verb-table.c $(tracectl_verb_sources)
tests_apps_verb_table_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -I$(top_srcdir)/tools/tracectl
tests_apps_verb_table_LDADD = libsupport.la libcommon.la libreadercore.la
