# SPDX-License-Identifier: MIT
# ---- unit tests of the modules (libcheck) -----------------------------------
if HAVE_CHECK
unit_tests = \
	tests/unit/ringbuf/test-ringbuf \
	tests/unit/ctfmeta/test-ctfmeta \
	tests/unit/glob/test-glob \
	tests/unit/tsc/test-tsc \
	tests/unit/proto/test-proto \
	tests/unit/filter/test-filter \
	tests/unit/execcheck/test-execcheck \
	tests/unit/relay/test-relay \
	tests/unit/agg/test-agg \
	tests/unit/json/test-json \
	tests/unit/aggjson/test-aggjson \
	tests/unit/units/test-units \
	tests/unit/util/test-util \
	tests/unit/consumerd/test-consumerd \
	tests/unit/flagnames/test-flagnames \
	tests/unit/suggest/test-suggest \
	tests/unit/ownfd/test-ownfd \
	tests/unit/evfilter/test-evfilter \
	tests/unit/notice/test-notice \
	tests/unit/sessiond/test-loop
check_PROGRAMS += $(unit_tests)
TESTS += $(unit_tests)

tests_unit_ringbuf_test_ringbuf_SOURCES = tests/unit/ringbuf/test-ringbuf.c
tests_unit_ringbuf_test_ringbuf_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_ringbuf_test_ringbuf_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)

tests_unit_ctfmeta_test_ctfmeta_SOURCES = tests/unit/ctfmeta/test-ctfmeta.c
tests_unit_ctfmeta_test_ctfmeta_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_ctfmeta_test_ctfmeta_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)

tests_unit_units_test_units_SOURCES = tests/unit/units/test-units.c
tests_unit_units_test_units_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_units_test_units_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)

tests_unit_util_test_util_SOURCES = tests/unit/util/test-util.c
tests_unit_util_test_util_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_util_test_util_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)

tests_unit_flagnames_test_flagnames_SOURCES = tests/unit/flagnames/test-flagnames.c \
	tools/trace-read/flagnames.c tools/trace-read/flagnames.h
tests_unit_flagnames_test_flagnames_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/trace-read
tests_unit_flagnames_test_flagnames_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_flagnames_test_flagnames_LDADD = $(CHECK_LIBS)

tests_unit_suggest_test_suggest_SOURCES = tests/unit/suggest/test-suggest.c \
	tools/suggest.c tools/suggest.h
tests_unit_suggest_test_suggest_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_unit_suggest_test_suggest_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_suggest_test_suggest_LDADD = $(CHECK_LIBS)

# libtrace/ownfd.c alone (its one dependency, lib_dbg, is the test's)
tests_unit_ownfd_test_ownfd_SOURCES = tests/unit/ownfd/test-ownfd.c libtrace/ownfd.c libtrace/lib.h
tests_unit_ownfd_test_ownfd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libtrace
tests_unit_ownfd_test_ownfd_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_ownfd_test_ownfd_LDADD = $(CHECK_LIBS)

# libtrace/evfilter.c alone: the rest of the library is the test's stubs
tests_unit_evfilter_test_evfilter_SOURCES = tests/unit/evfilter/test-evfilter.c libtrace/evfilter.c \
	libtrace/lib.h
tests_unit_evfilter_test_evfilter_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libtrace
tests_unit_evfilter_test_evfilter_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_evfilter_test_evfilter_LDADD = libsupport.la libcommon.la $(CHECK_LIBS) -lpthread

# sessiond/notice.c alone: the session daemon's state, allow_uid() and the
# replies are the test's
tests_unit_notice_test_notice_SOURCES = tests/unit/notice/test-notice.c sessiond/notice.c \
	sessiond/notice.h
tests_unit_notice_test_notice_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sessiond
tests_unit_notice_test_notice_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_notice_test_notice_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)

# sessiond/loop.c and sessiond/htab.c alone: the descriptor registry, the table
tests_unit_sessiond_test_loop_SOURCES = tests/unit/sessiond/test-loop.c sessiond/loop.c \
	sessiond/loop.h sessiond/htab.c sessiond/htab.h
tests_unit_sessiond_test_loop_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/sessiond
tests_unit_sessiond_test_loop_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_sessiond_test_loop_LDADD = $(CHECK_LIBS)

tests_unit_glob_test_glob_SOURCES = tests/unit/glob/test-glob.c
tests_unit_glob_test_glob_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_glob_test_glob_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)
tests_unit_tsc_test_tsc_SOURCES = tests/unit/tsc/test-tsc.c
tests_unit_tsc_test_tsc_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_tsc_test_tsc_LDADD = libcommon.la $(CHECK_LIBS)

tests_unit_proto_test_proto_SOURCES = tests/unit/proto/test-proto.c
tests_unit_proto_test_proto_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_proto_test_proto_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)

tests_unit_filter_test_filter_SOURCES = tests/unit/filter/test-filter.c
tests_unit_filter_test_filter_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_filter_test_filter_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)

tests_unit_execcheck_test_execcheck_SOURCES = tests/unit/execcheck/test-execcheck.c
tests_unit_execcheck_test_execcheck_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_execcheck_test_execcheck_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)

tests_unit_relay_test_relay_SOURCES = tests/unit/relay/test-relay.c
tests_unit_relay_test_relay_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_relay_test_relay_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)

tests_unit_agg_test_agg_SOURCES = tests/unit/agg/test-agg.c
tests_unit_agg_test_agg_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_agg_test_agg_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)

tests_unit_json_test_json_SOURCES = tests/unit/json/test-json.c
tests_unit_json_test_json_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_json_test_json_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)

tests_unit_aggjson_test_aggjson_SOURCES = tests/unit/aggjson/test-aggjson.c
tests_unit_aggjson_test_aggjson_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_aggjson_test_aggjson_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)
endif

include $(srcdir)/tests/fuzz/fuzz.mk

# the session daemon's files call each other in no loop of more than 3
TESTS += tests/unit/calls/sessiond-calls.sh
dist_check_SCRIPTS += tests/unit/calls/sessiond-calls.sh
EXTRA_DIST += tests/unit/calls/calls.py

# what a disabled event costs its call site, read off the compiled code
TESTS += tests/unit/header/disabled-path.sh tests/unit/header/standards.sh \
	tests/unit/header/lib-symbols.sh
dist_check_SCRIPTS += tests/unit/header/disabled-path.sh tests/unit/header/standards.sh \
	tests/unit/header/lib-symbols.sh
# and what an enabled event's emit function calls: the slow paths only
TESTS += tests/unit/header/fast-path.sh
dist_check_SCRIPTS += tests/unit/header/fast-path.sh
EXTRA_DIST += tests/unit/header/sites.c

# doc/architecture.md's table of components names every file, and no file
# that is not there
TESTS += tests/unit/doc/doc-files.sh
dist_check_SCRIPTS += tests/unit/doc/doc-files.sh

# the consumer's checks of what a traced process writes in its own memory
tests_unit_consumerd_test_consumerd_SOURCES = tests/unit/consumerd/test-consumerd.c \
	consumerd/count.c consumerd/frame.c
tests_unit_consumerd_test_consumerd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/consumerd
tests_unit_consumerd_test_consumerd_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(URCU_CFLAGS)
tests_unit_consumerd_test_consumerd_LDADD = libsupport.la libcommon.la $(CHECK_LIBS)
