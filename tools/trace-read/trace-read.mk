# SPDX-License-Identifier: MIT
# tools/trace-read/trace-read.mk - the trace-read command, its symbol tables
# (libsymbols.la: tools/trace-read/symbols.c, used by trace-read only), the symbol
# unit test, the symbol integration test with its program, and the ELF
# fuzz target. Included from the top-level Makefile.am.

noinst_LTLIBRARIES += libsymbols.la
libsymbols_la_SOURCES = tools/trace-read/symbols.c tools/trace-read/symbols.h

bin_PROGRAMS += trace-read
trace_read_SOURCES = tools/trace-read/trace-read.c tools/exit-status.h \
	tools/trace-read/output.c tools/trace-read/output.h \
	tools/trace-read/printers.c tools/trace-read/printers.h \
	tools/trace-read/flagnames.c tools/trace-read/flagnames.h \
	tools/trace-read/sinks.c tools/trace-read/sinks.h \
	tools/trace-read/procsyms.c tools/trace-read/procsyms.h \
	tools/trace-read/aggprint.c tools/trace-read/aggprint.h \
	tools/trace-read/follow.c tools/trace-read/follow.h \
	tools/trace-read/analysis.c tools/trace-read/analysis.h tools/trace-read/chrome.c \
	tools/trace-read/select.c tools/trace-read/select.h
trace_read_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -I$(top_srcdir)/tools/trace-read
trace_read_LDADD = libreadercore.la libsymbols.la libcommon.la

# ---- symbols ----------------------------------------------------------------
if HAVE_CHECK
check_PROGRAMS += tests/unit/symbols/test-symbols
TESTS += tests/unit/symbols/test-symbols
tests_unit_symbols_test_symbols_SOURCES = tests/unit/symbols/test-symbols.c \
	tests/unit/symbols/elfgen.c tests/unit/symbols/elfgen.h
tests_unit_symbols_test_symbols_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -I$(top_srcdir)/tools/trace-read
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
tests_fuzz_fuzz_elf_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools -I$(top_srcdir)/tools/trace-read
tests_fuzz_fuzz_elf_LDADD = libsymbols.la

fuzz_elf_libfuzzer_sources = \
	$(srcdir)/tests/fuzz/fuzz-elf.c \
	$(srcdir)/tests/unit/symbols/elfgen.c \
	$(srcdir)/tools/trace-read/symbols.c

.PHONY: fuzz-elf
fuzz: fuzz-elf
fuzz-elf: $(fuzz_elf_libfuzzer_sources) $(srcdir)/tests/fuzz/fuzz.h
	@$(MKDIR_P) tests/fuzz
	@if echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return !d + !n; }' | \
	    $(FUZZ_CC) -fsanitize=fuzzer -x c - -o tests/fuzz/.fuzz-elf-probe >/dev/null 2>&1; then \
		rm -f tests/fuzz/.fuzz-elf-probe; \
		echo "  FUZZCC   tests/fuzz/fuzz-elf-libfuzzer"; \
		$(FUZZ_CC) $(AM_CPPFLAGS) -I$(top_srcdir)/tools -I$(top_srcdir)/tools/trace-read $(CPPFLAGS) -std=gnu11 $(WARN_CFLAGS) $(FUZZ_CFLAGS) \
			-o tests/fuzz/fuzz-elf-libfuzzer $(fuzz_elf_libfuzzer_sources) || exit 1; \
		echo "run it with: mkdir -p fuzz-elf-corpus && tests/fuzz/fuzz-elf-libfuzzer" \
			"-max_total_time=60 fuzz-elf-corpus"; \
	else \
		rm -f tests/fuzz/.fuzz-elf-probe; \
		echo "fuzz: $(FUZZ_CC) -fsanitize=fuzzer is not available; nothing built"; \
	fi
CLEANFILES += tests/fuzz/fuzz-elf-libfuzzer tests/fuzz/.fuzz-elf-probe
