/* SPDX-License-Identifier: MIT */
/*
 * elfgen.h - build small synthetic ELF files for the symbol tests and the
 * ELF fuzz target.
 *
 * An image has a read-execute PT_LOAD segment holding .text, a read-write
 * PT_LOAD holding .data (no file bytes), optionally a PT_NOTE with a GNU
 * build id, a .gnu_debuglink, and one symbol table (.symtab with .strtab,
 * or .dynsym with .dynstr) holding the symbols given. Section indexes are
 * fixed: ELFGEN_TEXT for .text and ELFGEN_DATA for .data, so that symbols
 * can name them. Every offset in the image is exact (readelf accepts the
 * files); the generator itself checks nothing.
 */
#ifndef SHMTRACE_TESTS_ELFGEN_H
#define SHMTRACE_TESTS_ELFGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELFGEN_TEXT 1
#define ELFGEN_DATA 2

struct elfgen_sym {
	const char *name;
	uint64_t value, size;
	unsigned char type;	/* STT_FUNC, STT_GNU_IFUNC, STT_OBJECT... */
	unsigned char bind;	/* STB_GLOBAL, STB_WEAK, STB_LOCAL */
	uint16_t shndx;		/* ELFGEN_TEXT, ELFGEN_DATA, SHN_UNDEF... */
};

struct elfgen {
	bool is32;		/* ELFCLASS32 instead of ELFCLASS64 */
	bool msb;		/* big-endian */
	uint16_t type;		/* ET_DYN (default when 0) or ET_EXEC */
	uint64_t text_addr, text_size;
	uint64_t data_addr, data_size;
	bool text_nobits;	/* .text without file bytes (a debug file) */
	bool dynsym;		/* symbols in .dynsym instead of .symtab */
	const struct elfgen_sym *syms;
	size_t nsyms;
	const uint8_t *build_id;
	size_t build_id_len;	/* 0: no build id note */
	const char *debuglink;	/* NULL: no .gnu_debuglink */
	uint32_t debuglink_crc;
};

/* The image in a malloc'd buffer: 0, or -ENOMEM. */
int elfgen_build(const struct elfgen *g, unsigned char **out, size_t *len);
/* The image written to @path: 0, or -errno. */
int elfgen_write(const struct elfgen *g, const char *path);
/* CRC-32 as .gnu_debuglink uses it (bit by bit, independent of symbols.c). */
uint32_t elfgen_crc32(const unsigned char *p, size_t n);

#endif /* SHMTRACE_TESTS_ELFGEN_H */
