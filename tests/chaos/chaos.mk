# SPDX-License-Identifier: MIT
# tests/chaos/chaos.mk - the chaos test: traced programs at full speed
# while the daemons are killed and stopped at random instants; every event
# is on disk once or counted (tests/chaos/chaos.sh, whose longer runs are
# bench/chaos.sh). Included from the top-level Makefile.am.

check_PROGRAMS += tests/apps/chaos-app tests/chaos/chaos-check
tests_apps_chaos_app_SOURCES = tests/apps/chaos-app.c tests/apps/test-events.h
tests_apps_chaos_app_LDADD = libshmtrace.la
tests_chaos_chaos_check_SOURCES = tests/chaos/chaos-check.c
tests_chaos_chaos_check_LDADD = libshmtrace-reader.la libsupport.la libcommon.la

TESTS += tests/chaos/chaos.sh
dist_check_SCRIPTS += tests/chaos/chaos.sh
