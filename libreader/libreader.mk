# SPDX-License-Identifier: MIT
# libreader/libreader.mk - the trace reader library: its core
# (libreadercore.la, linked into trace-read, tracectl and the tests, and
# installed as the public libshmtrace-reader with include/shmtrace/reader.h;
# it compiles its own copies of the filter, glob, units and "did you mean"
# code that its event selection, reader-select.c, uses, so that the shared
# library needs no other convenience library),
# its unit tests (the reader; the ELF symbol reader), the function names
# integration test with its program, and the ELF fuzz target. Included
# from the top-level Makefile.am, which defines LIBREADER_CPPFLAGS, the
# include path of its internal headers (tsdl.h, lz4file.h, symbols.h) for
# the programs that test them.

noinst_LTLIBRARIES += libreadercore.la
libreadercore_la_SOURCES = \
	libreader/reader-objects.h \
	libreader/reader-discover.c \
	libreader/reader-decode.c libreader/reader-decode.h \
	libreader/reader-ctf.c libreader/reader-ctf.h \
	libreader/reader-merge.c \
	libreader/reader-damage.c libreader/reader-damage.h \
	libreader/reader-access.c \
	libreader/tsdl.c libreader/tsdl.h \
	libreader/tsdl-arena.c libreader/tsdl-arena.h \
	libreader/tsdl-lex.c libreader/tsdl-lex.h \
	libreader/tsdl-parse.c libreader/tsdl-parse.h \
	libreader/tsdl-lower.c libreader/tsdl-lower.h \
	libreader/lz4file.c libreader/lz4file.h \
	libreader/symbols.c libreader/symbols.h \
	libreader/symbolize.c \
	libreader/reader-select.c libreader/reader-select.h \
	libreader/reader-columns.c \
	common/filter.c common/glob.c support/filtercc.c support/units.c tools/suggest.c
libreadercore_la_CPPFLAGS = $(AM_CPPFLAGS) $(LIBREADER_CPPFLAGS) -DSHMTRACE_BUILDING_READER
libreadercore_la_CFLAGS = $(AM_CFLAGS) $(LZ4_CFLAGS)
libreadercore_la_LIBADD = $(LZ4_LIBS)

include_shmtrace_HEADERS += include/shmtrace/reader.h
lib_LTLIBRARIES += libshmtrace-reader.la
libshmtrace_reader_la_SOURCES =
libshmtrace_reader_la_LIBADD = libreadercore.la
libshmtrace_reader_la_LDFLAGS = $(AM_LDFLAGS) -version-info 3:0:3 -Wl,--no-undefined

if HAVE_CHECK
check_PROGRAMS += tests/unit/reader/test-reader tests/unit/reader/test-columns
TESTS += tests/unit/reader/test-reader tests/unit/reader/test-columns
# the columns on the sample traces test-reader writes (it runs it)
tests_unit_reader_test_columns_SOURCES = tests/unit/reader/test-columns.c
tests_unit_reader_test_columns_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_reader_test_columns_LDADD = libreadercore.la $(LZ4_LIBS) $(CHECK_LIBS)
tests_unit_reader_test_reader_SOURCES = tests/unit/reader/test-reader.c
tests_unit_reader_test_reader_CPPFLAGS = $(AM_CPPFLAGS) $(LIBREADER_CPPFLAGS)
tests_unit_reader_test_reader_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(LZ4_CFLAGS)
tests_unit_reader_test_reader_LDADD = libreadercore.la $(LZ4_LIBS) $(CHECK_LIBS)
endif

# ---- function names (symbols.c, symbolize.c) ---------------------------------
if HAVE_CHECK
check_PROGRAMS += tests/unit/symbols/test-symbols
TESTS += tests/unit/symbols/test-symbols
tests_unit_symbols_test_symbols_SOURCES = tests/unit/symbols/test-symbols.c \
	tests/unit/symbols/elfgen.c tests/unit/symbols/elfgen.h
tests_unit_symbols_test_symbols_CPPFLAGS = $(AM_CPPFLAGS) $(LIBREADER_CPPFLAGS)
tests_unit_symbols_test_symbols_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_symbols_test_symbols_LDADD = libreadercore.la $(CHECK_LIBS)
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
tests_fuzz_fuzz_elf_CPPFLAGS = $(AM_CPPFLAGS) $(LIBREADER_CPPFLAGS)
tests_fuzz_fuzz_elf_LDADD = libreadercore.la

fuzz_elf_libfuzzer_sources = \
	$(srcdir)/tests/fuzz/fuzz-elf.c \
	$(srcdir)/tests/unit/symbols/elfgen.c \
	$(srcdir)/libreader/symbols.c

.PHONY: fuzz-elf
fuzz: fuzz-elf
fuzz-elf: $(fuzz_elf_libfuzzer_sources) $(srcdir)/tests/fuzz/fuzz.h
	@$(MKDIR_P) tests/fuzz
	@if echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return !d + !n; }' | \
	    $(FUZZ_CC) -fsanitize=fuzzer -x c - -o tests/fuzz/.fuzz-elf-probe >/dev/null 2>&1; then \
		rm -f tests/fuzz/.fuzz-elf-probe; \
		echo "  FUZZCC   tests/fuzz/fuzz-elf-libfuzzer"; \
		$(FUZZ_CC) $(AM_CPPFLAGS) $(LIBREADER_CPPFLAGS) $(CPPFLAGS) -std=gnu11 $(WARN_CFLAGS) $(FUZZ_CFLAGS) \
			-o tests/fuzz/fuzz-elf-libfuzzer $(fuzz_elf_libfuzzer_sources) || exit 1; \
		echo "run it with: mkdir -p fuzz-elf-corpus && tests/fuzz/fuzz-elf-libfuzzer" \
			"-max_total_time=60 fuzz-elf-corpus"; \
	else \
		rm -f tests/fuzz/.fuzz-elf-probe; \
		echo "fuzz: $(FUZZ_CC) -fsanitize=fuzzer is not available; nothing built"; \
	fi
CLEANFILES += tests/fuzz/fuzz-elf-libfuzzer tests/fuzz/.fuzz-elf-probe
