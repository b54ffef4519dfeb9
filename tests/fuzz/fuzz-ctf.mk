# SPDX-License-Identifier: MIT
# tests/fuzz/fuzz-ctf.mk - the reader on untrusted traces: fuzz targets for
# the metadata (TSDL) parser and for the stream decoder, and the integration
# test of trace-read on corrupt traces; the fuzz targets of the readers of
# aggregations (tables in shared memory, aggregations.json). Included from
# tests/fuzz/fuzz.mk.
#
# tests/fuzz/fuzz-metadata and tests/fuzz/fuzz-stream are linked with the
# reader core and driver.c (built with FUZZ_DRIVER_CORPUS: without a path,
# the driver runs their own seed corpus, tests/fuzz/corpus-metadata or
# tests/fuzz/corpus-stream, instead of the protocol one) as tests of
# `make check`. `make fuzz` also builds tests/fuzz/fuzz-metadata-libfuzzer
# and tests/fuzz/fuzz-stream-libfuzzer with libFuzzer and sanitizers.

fuzz_metadata_corpus = \
	tests/fuzz/corpus-metadata/babeltrace2-grammar.tsdl \
	tests/fuzz/corpus-metadata/bad-syntax.tsdl \
	tests/fuzz/corpus-metadata/clock-freq-max.tsdl \
	tests/fuzz/corpus-metadata/clock-map-unknown.tsdl \
	tests/fuzz/corpus-metadata/clock-overflow.tsdl \
	tests/fuzz/corpus-metadata/clock-underflow.tsdl \
	tests/fuzz/corpus-metadata/context-classes.tsdl \
	tests/fuzz/corpus-metadata/duplicate-attribute.tsdl \
	tests/fuzz/corpus-metadata/duplicate-field.tsdl \
	tests/fuzz/corpus-metadata/gen-events-monotonic.tsdl \
	tests/fuzz/corpus-metadata/gen-events-tsc.tsdl \
	tests/fuzz/corpus-metadata/grammar.tsdl \
	tests/fuzz/corpus-metadata/header-enum-partial.tsdl \
	tests/fuzz/corpus-metadata/header-enum-reversed.tsdl \
	tests/fuzz/corpus-metadata/header-timestamp-align16.tsdl \
	tests/fuzz/corpus-metadata/lttng-general.tsdl \
	tests/fuzz/corpus-metadata/lttng-ust-uid.tsdl \
	tests/fuzz/corpus-metadata/minimal.tsdl \
	tests/fuzz/corpus-metadata/sequence-signed-length.tsdl
fuzz_stream_corpus = \
	tests/fuzz/corpus-stream/compact-wrap-past-2-64.ctf \
	tests/fuzz/corpus-stream/consumer-frames.lz4 \
	tests/fuzz/corpus-stream/cut-in-event.ctf \
	tests/fuzz/corpus-stream/cut-in-packet-header.ctf \
	tests/fuzz/corpus-stream/discarded-events.ctf \
	tests/fuzz/corpus-stream/lz4-command.lz4 \
	tests/fuzz/corpus-stream/one-packet-all-types.ctf \
	tests/fuzz/corpus-stream/packet-repeated.ctf \
	tests/fuzz/corpus-stream/packet-size-not-bytes.ctf \
	tests/fuzz/corpus-stream/packets-swapped.ctf \
	tests/fuzz/corpus-stream/six-packets-two-threads.ctf \
	tests/fuzz/corpus-stream/timestamp-end-out-of-range.ctf
EXTRA_DIST += $(fuzz_metadata_corpus) $(fuzz_stream_corpus)

check_PROGRAMS += tests/fuzz/fuzz-metadata tests/fuzz/fuzz-stream
TESTS += tests/fuzz/fuzz-metadata tests/fuzz/fuzz-stream
tests_fuzz_fuzz_metadata_SOURCES = tests/fuzz/fuzz-metadata.c tests/fuzz/driver.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_metadata_CPPFLAGS = $(AM_CPPFLAGS) $(LIBREADER_CPPFLAGS) \
	-DFUZZ_DRIVER_CORPUS='"tests/fuzz/corpus-metadata"'
tests_fuzz_fuzz_metadata_LDADD = libreadercore.la
tests_fuzz_fuzz_stream_SOURCES = tests/fuzz/fuzz-stream.c tests/fuzz/driver.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_stream_CPPFLAGS = $(AM_CPPFLAGS) $(LIBREADER_CPPFLAGS) \
	-DFUZZ_DRIVER_CORPUS='"tests/fuzz/corpus-stream"'
tests_fuzz_fuzz_stream_CFLAGS = $(AM_CFLAGS) $(LZ4_CFLAGS)
tests_fuzz_fuzz_stream_LDADD = libreadercore.la $(LZ4_LIBS)

# readers of aggregation tables written by another process
fuzz_agg_corpus = \
	tests/fuzz/corpus-agg/count-quantize.bin \
	tests/fuzz/corpus-agg/short.bin \
	tests/fuzz/corpus-agg/string-key-all.bin
EXTRA_DIST += $(fuzz_agg_corpus)
check_PROGRAMS += tests/fuzz/fuzz-agg
TESTS += tests/fuzz/fuzz-agg
tests_fuzz_fuzz_agg_SOURCES = tests/fuzz/fuzz-agg.c tests/fuzz/driver.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_agg_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_DRIVER_CORPUS='"tests/fuzz/corpus-agg"'
tests_fuzz_fuzz_agg_LDADD = libsupport.la libcommon.la

# the JSON parser and the reader of aggregations.json, on damaged documents
fuzz_json_corpus = \
	tests/fuzz/corpus-json/agg-empty.json \
	tests/fuzz/corpus-json/agg-one.json \
	tests/fuzz/corpus-json/agg-pretty.json \
	tests/fuzz/corpus-json/agg-refused-bucket.json \
	tests/fuzz/corpus-json/agg-several.json \
	tests/fuzz/corpus-json/values.json
EXTRA_DIST += $(fuzz_json_corpus)
check_PROGRAMS += tests/fuzz/fuzz-json
TESTS += tests/fuzz/fuzz-json
tests_fuzz_fuzz_json_SOURCES = tests/fuzz/fuzz-json.c tests/fuzz/driver.c tests/fuzz/fuzz.h
tests_fuzz_fuzz_json_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_DRIVER_CORPUS='"tests/fuzz/corpus-json"'
tests_fuzz_fuzz_json_LDADD = libsupport.la libcommon.la

# trace-read on truncated, flipped and missing trace files
TESTS += tests/integration/read-corrupt.sh
dist_check_SCRIPTS += tests/integration/read-corrupt.sh

# make fuzz: $$t is the target's name, $$c its corpus directory
fuzz_ctf_reader_sources = \
	$(srcdir)/libreader/reader-discover.c \
	$(srcdir)/libreader/reader-decode.c \
	$(srcdir)/libreader/reader-ctf.c \
	$(srcdir)/libreader/reader-merge.c \
	$(srcdir)/libreader/reader-damage.c \
	$(srcdir)/libreader/reader-access.c \
	$(srcdir)/libreader/tsdl.c \
	$(srcdir)/libreader/tsdl-arena.c \
	$(srcdir)/libreader/tsdl-lex.c \
	$(srcdir)/libreader/tsdl-parse.c \
	$(srcdir)/libreader/tsdl-lower.c \
	$(srcdir)/libreader/lz4file.c
fuzz_ctf_build = \
	$(MKDIR_P) tests/fuzz; \
	if echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return !d + !n; }' | \
	    $(FUZZ_CC) -fsanitize=fuzzer -x c - -o tests/fuzz/.$$t-probe >/dev/null 2>&1; then \
		rm -f tests/fuzz/.$$t-probe; \
		echo "  FUZZCC   tests/fuzz/$$t-libfuzzer"; \
		$(FUZZ_CC) $(AM_CPPFLAGS) $(LIBREADER_CPPFLAGS) $(CPPFLAGS) $(LZ4_CFLAGS) -std=gnu11 $(WARN_CFLAGS) \
			$(FUZZ_CFLAGS) -o tests/fuzz/$$t-libfuzzer $(srcdir)/tests/fuzz/$$t.c \
			$(fuzz_ctf_reader_sources) $(LZ4_LIBS) || exit 1; \
		echo "run it with: mkdir -p $$t-corpus && tests/fuzz/$$t-libfuzzer" \
			"-max_total_time=60 $$t-corpus $(srcdir)/tests/fuzz/$$c"; \
	else \
		rm -f tests/fuzz/.$$t-probe; \
		echo "fuzz: $(FUZZ_CC) -fsanitize=fuzzer is not available; nothing built"; \
	fi

.PHONY: fuzz-metadata fuzz-stream
fuzz: fuzz-metadata fuzz-stream
fuzz-metadata: $(srcdir)/tests/fuzz/fuzz-metadata.c $(fuzz_ctf_reader_sources) \
		$(srcdir)/tests/fuzz/fuzz.h
	@t=fuzz-metadata c=corpus-metadata; $(fuzz_ctf_build)
fuzz-stream: $(srcdir)/tests/fuzz/fuzz-stream.c $(fuzz_ctf_reader_sources) \
		$(srcdir)/tests/fuzz/fuzz.h
	@t=fuzz-stream c=corpus-stream; $(fuzz_ctf_build)
CLEANFILES += tests/fuzz/fuzz-metadata-libfuzzer tests/fuzz/fuzz-stream-libfuzzer \
	tests/fuzz/.fuzz-metadata-probe tests/fuzz/.fuzz-stream-probe

# make fuzz: fuzz-json, with the sources it needs
fuzz_json_sources = \
	$(srcdir)/tests/fuzz/fuzz-json.c \
	$(srcdir)/support/json.c \
	$(srcdir)/support/aggjson.c \
	$(srcdir)/support/aggfmt.c \
	$(srcdir)/support/aggmerge.c \
	$(srcdir)/common/agg.c

.PHONY: fuzz-json
fuzz: fuzz-json
fuzz-json: $(fuzz_json_sources) $(srcdir)/tests/fuzz/fuzz.h
	@$(MKDIR_P) tests/fuzz
	@if echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return !d + !n; }' | \
	    $(FUZZ_CC) -fsanitize=fuzzer -x c - -o tests/fuzz/.fuzz-json-probe >/dev/null 2>&1; then \
		rm -f tests/fuzz/.fuzz-json-probe; \
		echo "  FUZZCC   tests/fuzz/fuzz-json-libfuzzer"; \
		$(FUZZ_CC) $(AM_CPPFLAGS) $(CPPFLAGS) -std=gnu11 $(WARN_CFLAGS) $(FUZZ_CFLAGS) \
			-o tests/fuzz/fuzz-json-libfuzzer $(fuzz_json_sources) || exit 1; \
		echo "run it with: mkdir -p fuzz-json-corpus && tests/fuzz/fuzz-json-libfuzzer" \
			"-max_total_time=60 fuzz-json-corpus $(srcdir)/tests/fuzz/corpus-json"; \
	else \
		rm -f tests/fuzz/.fuzz-json-probe; \
		echo "fuzz: $(FUZZ_CC) -fsanitize=fuzzer is not available; nothing built"; \
	fi
CLEANFILES += tests/fuzz/fuzz-json-libfuzzer tests/fuzz/.fuzz-json-probe
