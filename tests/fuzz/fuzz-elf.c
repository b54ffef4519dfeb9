/* SPDX-License-Identifier: MIT */
/*
 * fuzz-elf.c - fuzz target for the ELF reader of libreader/symbols.c.
 *
 * An input that starts with the ELF magic is parsed as it is. Any other
 * input edits a valid template image, so that the mutations of any corpus
 * (the protocol seeds of `make check` included) reach deep into the
 * parser: byte 0 picks one of the templates (64/32-bit, little/big-endian,
 * .symtab/.dynsym, ET_DYN/ET_EXEC, build id note, .gnu_debuglink), byte 1
 * with its two high bits set cuts the image to (its low 6 bits) 64ths, and
 * each of the next MAX_EDITS groups of 3 bytes (offset low, offset high,
 * value) XORs one byte of it with the value (zeros change nothing); the
 * rest is ignored, so that most images stay close enough to valid to get
 * far.
 *
 * One input in 16 (by size) is also written to a memfd and loaded through
 * the cache and a process table from /proc/self/fd/N, the way trace-read
 * reads files (pread, the debuglink search, a build id), then resolved.
 *
 * Every image parsed must either be refused or give an object whose
 * functions all lie where lookups find them consistently: each lookup that
 * succeeds returns a NUL-terminated name and an offset inside its function
 * (checked by looking up the function's start again). Sanitizers (make
 * fuzz) catch any out-of-bounds access; a broken invariant aborts.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "symbols.h"
#include "../unit/symbols/elfgen.h"

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "fuzz-elf: %s:%d: %s\n", __FILE__, __LINE__,	\
			#cond);							\
		abort();						\
	}									\
} while (0)

#define NTEMPLATES 4
#define MAX_EDITS 6

static unsigned char *tmpl[NTEMPLATES];
static size_t tmpl_len[NTEMPLATES];

static const struct elfgen_sym syms[] = {
	{ "alpha", 0x1010, 0x20, STT_FUNC, STB_GLOBAL, ELFGEN_TEXT },
	{ "_alpha", 0x1010, 0x20, STT_FUNC, STB_WEAK, ELFGEN_TEXT },
	{ "beta", 0x1040, 0, STT_FUNC, STB_LOCAL, ELFGEN_TEXT },
	{ "gamma", 0x1080, 0x10, STT_GNU_IFUNC, STB_GLOBAL, ELFGEN_TEXT },
	{ "delta", 0x1100, 0, STT_FUNC, STB_GLOBAL, ELFGEN_TEXT },
	{ "object", 0x3000, 8, STT_OBJECT, STB_GLOBAL, ELFGEN_DATA },
	{ "undefined", 0, 0, STT_FUNC, STB_GLOBAL, SHN_UNDEF },
};

static void init_templates(void)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4 };
	int i;

	if (tmpl[0])
		return;
	for (i = 0; i < NTEMPLATES; i++) {
		struct elfgen g = {
			.is32 = i & 1, .msb = i == 2, .dynsym = i == 3,
			.type = i == 1 ? ET_EXEC : ET_DYN,
			.text_addr = 0x1000, .text_size = 0x180,
			.data_addr = 0x3000, .data_size = 0x100,
			.syms = syms, .nsyms = sizeof(syms) / sizeof(syms[0]),
			.build_id = id, .build_id_len = i == 2 ? 0 : sizeof(id),
			.debuglink = i == 3 ? NULL : "fuzz.debug",
			.debuglink_crc = 0x12345678,
		};

		CHECK(elfgen_build(&g, &tmpl[i], &tmpl_len[i]) == 0);
	}
}

static void run(const uint8_t *data, size_t size)
{
	struct sym_elf *e;
	const char *name, *name2;
	uint64_t a, off, off2;
	const uint8_t *id;

	if (sym_elf_from_mem(&e, data, size))
		return;
	/* every function takes a symbol of 16 bytes at least */
	CHECK(sym_elf_func_count(e) <= size / 16);
	CHECK(sym_elf_build_id(e, &id) <= SYM_BUILD_ID_MAX);
	for (a = 0; a < 0x4000; a += 3) {
		if (!sym_elf_lookup(e, a, &name, &off))
			continue;
		CHECK(off <= a);
		CHECK(strlen(name) < 1U << 16);
		/* the function's start names the same function */
		if (sym_elf_lookup(e, a - off, &name2, &off2)) {
			CHECK(off2 == 0);
			CHECK(name2 == name);
		}
	}
	/* far addresses, including the ends of the address space */
	sym_elf_lookup(e, UINT64_MAX, &name, &off);
	sym_elf_lookup(e, 0x8048000, &name, &off);
	sym_elf_lookup(e, 0x400000, &name, &off);
	sym_elf_free(e);
}

/* The image as a file, through the cache and a table. */
static void run_file(const uint8_t *data, size_t size, const uint8_t *id,
		     size_t id_len)
{
	struct sym_cache_config cfg = { .debug_dir = "" };
	struct sym_cache *c;
	struct sym_table *t;
	struct sym_result r;
	char path[64];
	uint64_t a;
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size)
		goto out;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	CHECK(sym_cache_new(&c, &cfg) == 0);
	CHECK(sym_table_new(&t, c) == 0);
	sym_table_add(t, 0x10000000, 0, 0, path, NULL, 0);
	sym_table_add(t, 0x20000000, 0x20000000, 0x20010000, path, id, id_len);
	for (a = 0; a < 0x4000; a += 5) {
		if (sym_table_resolve(t, 0x10000000 + a, &r))
			CHECK(r.offset <= a && !strcmp(r.path, path));
		if (sym_table_resolve(t, 0x20000000 + a, &r))
			CHECK(r.offset <= a && !strcmp(r.path, path));
	}
	sym_table_free(t);
	sym_cache_free(c);
out:
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf;
	size_t n, i;
	int t;

	init_templates();
	if (size >= 4 && !memcmp(data, ELFMAG, SELFMAG)) {
		run(data, size);
		if (size % 16 == 0)
			run_file(data, size, data, size > 24 ? 20 : 0);
		return 0;
	}
	t = size ? data[0] % NTEMPLATES : 0;
	n = tmpl_len[t];
	buf = malloc(n);
	CHECK(buf);
	memcpy(buf, tmpl[t], n);
	if (size > 1 && (data[1] & 0xC0) == 0xC0)
		n = n * (data[1] & 63) / 64;
	for (i = 2; n && i + 3 <= size && i < 2 + 3 * MAX_EDITS; i += 3)
		buf[(data[i] | (size_t)data[i + 1] << 8) % n] ^= data[i + 2];
	/* an exact copy, so that sanitizers see the image's real end */
	{
		unsigned char *img = malloc(n ? n : 1);

		CHECK(img);
		memcpy(img, buf, n);
		run(img, n);
		if (size % 16 == 0)
			run_file(img, n, size > 40 ? data + 20 : NULL,
				 size > 40 ? 20 : 0);
		free(img);
	}
	free(buf);
	return 0;
}
