# SPDX-License-Identifier: MIT
# ---- fuzz targets ------------------------------------------------------------
#
# tests/fuzz/fuzz-proto: the fuzz target linked with a small driver that runs
# the seed corpus then a fixed number of deterministic mutations; a test of
# `make check`. The corpus is found through $srcdir (exported by the test
# harness), so that VPATH builds and `make distcheck` find it.
#
# `make fuzz` builds tests/fuzz/fuzz-proto-libfuzzer with clang's libFuzzer
# and sanitizers when they are available; it is not part of `all` or `check`.

fuzz_corpus = \
	tests/fuzz/corpus/cmd-body-noargs.bin \
	tests/fuzz/corpus/cmd-body.bin \
	tests/fuzz/corpus/events-body.bin \
	tests/fuzz/corpus/events-dup-field.bin \
	tests/fuzz/corpus/msg-app-events.bin \
	tests/fuzz/corpus/msg-app-notice.bin \
	tests/fuzz/corpus/msg-app-register.bin \
	tests/fuzz/corpus/msg-app-segment.bin \
	tests/fuzz/corpus/msg-app-sync.bin \
	tests/fuzz/corpus/msg-c-app-add.bin \
	tests/fuzz/corpus/msg-c-channel-add.bin \
	tests/fuzz/corpus/msg-c-events.bin \
	tests/fuzz/corpus/msg-c-stats.bin \
	tests/fuzz/corpus/msg-cmd.bin \
	tests/fuzz/corpus/msg-reply-text.bin \
	tests/fuzz/corpus/msg-reply.bin
EXTRA_DIST += $(fuzz_corpus)

check_PROGRAMS += tests/fuzz/fuzz-proto
TESTS += tests/fuzz/fuzz-proto
tests_fuzz_fuzz_proto_SOURCES = tests/fuzz/fuzz-proto.c tests/fuzz/driver.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_proto_LDADD = libsupport.la libcommon.la
CLEANFILES += fuzz-crash-input

FUZZ_CC = clang
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
fuzz_proto_libfuzzer_sources = \
	$(srcdir)/tests/fuzz/fuzz-proto.c \
	$(srcdir)/common/proto.c \
	$(srcdir)/support/protomsg.c \
	$(srcdir)/support/ctfmeta.c

.PHONY: fuzz
fuzz: $(fuzz_proto_libfuzzer_sources) $(srcdir)/tests/fuzz/fuzz.h
	@$(MKDIR_P) tests/fuzz
	@if echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return !d + !n; }' | \
	    $(FUZZ_CC) -fsanitize=fuzzer -x c - -o tests/fuzz/.fuzz-probe >/dev/null 2>&1; then \
		rm -f tests/fuzz/.fuzz-probe; \
		echo "  FUZZCC   tests/fuzz/fuzz-proto-libfuzzer"; \
		$(FUZZ_CC) $(AM_CPPFLAGS) $(CPPFLAGS) -std=gnu11 $(WARN_CFLAGS) $(FUZZ_CFLAGS) \
			-o tests/fuzz/fuzz-proto-libfuzzer $(fuzz_proto_libfuzzer_sources) || exit 1; \
		echo "run it with: mkdir -p fuzz-corpus && tests/fuzz/fuzz-proto-libfuzzer" \
			"-max_total_time=60 fuzz-corpus $(srcdir)/tests/fuzz/corpus"; \
	else \
		rm -f tests/fuzz/.fuzz-probe; \
		echo "fuzz: $(FUZZ_CC) -fsanitize=fuzzer is not available; nothing built"; \
	fi
CLEANFILES += tests/fuzz/fuzz-proto-libfuzzer tests/fuzz/.fuzz-probe
include $(srcdir)/tests/fuzz/fuzz-ctf.mk
