# SPDX-License-Identifier: MIT
# tools/trace-read.mk - the trace-read command, its symbol tables
# (libsymbols.la: tools/symbols.c, used by trace-read only), the symbol
# unit test, the symbol integration test with its program, and the ELF
# fuzz target. Included from the top-level Makefile.am.

noinst_LTLIBRARIES += libsymbols.la
libsymbols_la_SOURCES = tools/symbols.c tools/symbols.h

bin_PROGRAMS += trace-read
trace_read_SOURCES = tools/trace-read.c tools/exit-status.h \
	tools/output.c tools/output.h \
	tools/printers.c tools/printers.h \
	tools/flagnames.c tools/flagnames.h \
	tools/sinks.c tools/sinks.h \
	tools/procsyms.c tools/procsyms.h \
	tools/aggprint.c tools/aggprint.h \
	tools/follow.c tools/follow.h \
	tools/analysis.c tools/analysis.h tools/chrome.c \
	tools/select.c tools/select.h
trace_read_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
trace_read_LDADD = libreadercore.la libsymbols.la libcommon.la

# ---- symbols ----------------------------------------------------------------
if HAVE_CHECK
check_PROGRAMS += tests/unit/symbols/test-symbols
TESTS += tests/unit/symbols/test-symbols
tests_unit_symbols_test_symbols_SOURCES = tests/unit/symbols/test-symbols.c \
	tests/unit/symbols/elfgen.c tests/unit/symbols/elfgen.h
tests_unit_symbols_test_symbols_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_unit_symbols_test_symbols_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_symbols_test_symbols_LDADD = libsymbols.la $(CHECK_LIBS)
endif

# sym-app: records a state dump of itself and addresses of its functions;
# sym-app-nopie is the same program as a position-dependent executable.
check_PROGRAMS += tests/unit/symbols/sym-app tests/unit/symbols/sym-app-nopie
tests_unit_symbols_sym_app_SOURCES = tests/unit/symbols/sym-app.c
tests_unit_symbols_sym_app_LDADD = libshmtrace.la
tests_unit_symbols_sym_app_nopie_SOURCES = tests/unit/symbols/sym-app.c
tests_unit_symbols_sym_app_nopie_CFLAGS = $(AM_CFLAGS) -fno-pie
tests_unit_symbols_sym_app_nopie_LDFLAGS = $(AM_LDFLAGS) -XCClinker -no-pie
tests_unit_symbols_sym_app_nopie_LDADD = libshmtrace.la

TESTS += tests/integration/symbols.sh
dist_check_SCRIPTS += tests/integration/symbols.sh

# fuzz-elf: the ELF parser on mutated images (a test), see tests/fuzz/fuzz.mk
check_PROGRAMS += tests/fuzz/fuzz-elf
TESTS += tests/fuzz/fuzz-elf
tests_fuzz_fuzz_elf_SOURCES = tests/fuzz/fuzz-elf.c tests/fuzz/driver.c \
	tests/fuzz/fuzz.h tests/unit/symbols/elfgen.c tests/unit/symbols/elfgen.h
tests_fuzz_fuzz_elf_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_fuzz_fuzz_elf_LDADD = libsymbols.la

fuzz_elf_libfuzzer_sources = \
	$(srcdir)/tests/fuzz/fuzz-elf.c \
	$(srcdir)/tests/unit/symbols/elfgen.c \
	$(srcdir)/tools/symbols.c

.PHONY: fuzz-elf
fuzz: fuzz-elf
fuzz-elf: $(fuzz_elf_libfuzzer_sources) $(srcdir)/tests/fuzz/fuzz.h
	@$(MKDIR_P) tests/fuzz
	@if echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return !d + !n; }' | \
	    $(FUZZ_CC) -fsanitize=fuzzer -x c - -o tests/fuzz/.fuzz-elf-probe >/dev/null 2>&1; then \
		rm -f tests/fuzz/.fuzz-elf-probe; \
		echo "  FUZZCC   tests/fuzz/fuzz-elf-libfuzzer"; \
		$(FUZZ_CC) $(AM_CPPFLAGS) -I$(top_srcdir)/tools $(CPPFLAGS) -std=gnu11 $(WARN_CFLAGS) $(FUZZ_CFLAGS) \
			-o tests/fuzz/fuzz-elf-libfuzzer $(fuzz_elf_libfuzzer_sources) || exit 1; \
		echo "run it with: mkdir -p fuzz-elf-corpus && tests/fuzz/fuzz-elf-libfuzzer" \
			"-max_total_time=60 fuzz-elf-corpus"; \
	else \
		rm -f tests/fuzz/.fuzz-elf-probe; \
		echo "fuzz: $(FUZZ_CC) -fsanitize=fuzzer is not available; nothing built"; \
	fi
CLEANFILES += tests/fuzz/fuzz-elf-libfuzzer tests/fuzz/.fuzz-elf-probe
