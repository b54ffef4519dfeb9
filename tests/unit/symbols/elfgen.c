/* SPDX-License-Identifier: MIT */
/*
 * elfgen.c - synthetic ELF images for tests (see elfgen.h).
 *
 * The image is laid out in one pass: ELF header and program headers
 * (reserved, filled last), .text bytes, the build id note, .gnu_debuglink,
 * the string table, the symbol table, the section name table, then the
 * section headers. Integers are written byte by byte in the image's byte
 * order and class, never through host structures.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfgen.h"

struct gbuf {
	unsigned char *p;
	size_t len, cap;
	bool msb, failed;
};

static void g_room(struct gbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 1024;
	unsigned char *np;

	if (b->failed || b->len + n <= b->cap)
		return;
	while (cap < b->len + n)
		cap *= 2;
	np = realloc(b->p, cap);
	if (!np) {
		b->failed = true;
		return;
	}
	memset(np + b->cap, 0, cap - b->cap);
	b->p = np;
	b->cap = cap;
}

static void g_mem(struct gbuf *b, const void *d, size_t n)
{
	g_room(b, n);
	if (b->failed)
		return;
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

/* Write integer @v of @n bytes at @off (which must exist). */
static void g_set(struct gbuf *b, size_t off, uint64_t v, unsigned n)
{
	unsigned i;

	if (b->failed)
		return;
	for (i = 0; i < n; i++) {
		unsigned sh = 8 * (b->msb ? n - 1 - i : i);

		b->p[off + i] = (unsigned char)(v >> sh);
	}
}

static void g_int(struct gbuf *b, uint64_t v, unsigned n)
{
	g_room(b, n);
	if (b->failed)
		return;
	b->len += n;
	g_set(b, b->len - n, v, n);
}

static void g_align(struct gbuf *b, size_t a)
{
	while (!b->failed && b->len % a) {
		g_room(b, 1);
		if (!b->failed)
			b->p[b->len++] = 0;
	}
}

uint32_t elfgen_crc32(const unsigned char *p, size_t n)
{
	uint32_t crc = 0xFFFFFFFFU;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		crc ^= p[i];
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320U & -(crc & 1));
	}
	return ~crc;
}

struct gsec {
	uint32_t name, type, link, info;
	uint64_t flags, addr, offset, size, align, entsize;
};

static const char shstr[] =
	"\0.text\0.data\0.note.gnu.build-id\0.gnu_debuglink\0.symtab\0"
	".strtab\0.dynsym\0.dynstr\0.shstrtab";

static uint32_t shname(const char *n)
{
	size_t i;

	for (i = 1; i < sizeof(shstr); i += strlen(shstr + i) + 1)
		if (!strcmp(shstr + i, n))
			return (uint32_t)i;
	return 0;
}

int elfgen_build(const struct elfgen *g, unsigned char **out, size_t *len)
{
	struct gbuf b = { .msb = g->msb };
	struct gsec sec[8];
	unsigned nsec = 0, nph = g->build_id_len ? 3 : 2, i;
	unsigned w = g->is32 ? 4 : 8;	/* address size */
	size_t ehsize = g->is32 ? 52 : 64, phsize = g->is32 ? 32 : 56;
	size_t shsize = g->is32 ? 40 : 64, symsize = g->is32 ? 16 : 24;
	size_t text_off, note_off = 0, note_size = 0, str_off, str_size;
	size_t sym_off, shoff, ph;
	unsigned symidx;

	memset(sec, 0, sizeof(sec));
	*out = NULL;
	*len = 0;
	g_room(&b, ehsize + nph * phsize);
	b.len = ehsize + nph * phsize;

	/* [0] null, [1] .text, [2] .data */
	nsec = 1;
	g_align(&b, 16);
	text_off = b.len;
	if (!g->text_nobits)
		for (i = 0; i < g->text_size; i++)
			g_int(&b, 0xCC, 1);
	sec[nsec++] = (struct gsec){ .name = shname(".text"),
		.type = g->text_nobits ? SHT_NOBITS : SHT_PROGBITS,
		.flags = SHF_ALLOC | SHF_EXECINSTR, .addr = g->text_addr,
		.offset = text_off, .size = g->text_size, .align = 16 };
	sec[nsec++] = (struct gsec){ .name = shname(".data"),
		.type = SHT_NOBITS, .flags = SHF_ALLOC | SHF_WRITE,
		.addr = g->data_addr, .offset = b.len, .size = g->data_size,
		.align = 8 };
	if (g->build_id_len) {
		g_align(&b, 4);
		note_off = b.len;
		g_int(&b, 4, 4);
		g_int(&b, g->build_id_len, 4);
		g_int(&b, NT_GNU_BUILD_ID, 4);
		g_mem(&b, "GNU", 4);
		g_mem(&b, g->build_id, g->build_id_len);
		g_align(&b, 4);
		note_size = b.len - note_off;
		sec[nsec++] = (struct gsec){
			.name = shname(".note.gnu.build-id"), .type = SHT_NOTE,
			.flags = SHF_ALLOC, .offset = note_off,
			.size = note_size, .align = 4 };
	}
	if (g->debuglink) {
		size_t off = b.len;

		g_mem(&b, g->debuglink, strlen(g->debuglink) + 1);
		g_align(&b, 4);
		g_int(&b, g->debuglink_crc, 4);
		sec[nsec++] = (struct gsec){ .name = shname(".gnu_debuglink"),
			.type = SHT_PROGBITS, .offset = off,
			.size = b.len - off, .align = 4 };
	}
	/* strings, then symbols */
	str_off = b.len;
	g_int(&b, 0, 1);
	for (i = 0; i < g->nsyms; i++)
		g_mem(&b, g->syms[i].name, strlen(g->syms[i].name) + 1);
	str_size = b.len - str_off;
	g_align(&b, 8);
	sym_off = b.len;
	for (i = 0; i <= g->nsyms; i++) {
		const struct elfgen_sym *s = i ? &g->syms[i - 1] : NULL;
		uint32_t name = 0;
		unsigned char info = 0;
		unsigned k;

		if (s) {
			name = 1;
			for (k = 0; k + 1 < i; k++)
				name += (uint32_t)strlen(g->syms[k].name) + 1;
			info = (unsigned char)(s->bind << 4 | (s->type & 15));
		}
		g_int(&b, name, 4);
		if (g->is32) {
			g_int(&b, s ? s->value : 0, 4);
			g_int(&b, s ? s->size : 0, 4);
			g_int(&b, info, 1);
			g_int(&b, 0, 1);
			g_int(&b, s ? s->shndx : 0, 2);
		} else {
			g_int(&b, info, 1);
			g_int(&b, 0, 1);
			g_int(&b, s ? s->shndx : 0, 2);
			g_int(&b, s ? s->value : 0, 8);
			g_int(&b, s ? s->size : 0, 8);
		}
	}
	symidx = nsec;
	sec[nsec++] = (struct gsec){
		.name = shname(g->dynsym ? ".dynsym" : ".symtab"),
		.type = g->dynsym ? SHT_DYNSYM : SHT_SYMTAB,
		.flags = g->dynsym ? SHF_ALLOC : 0, .offset = sym_off,
		.size = (g->nsyms + 1) * symsize, .link = symidx + 1,
		.info = 1, .align = 8, .entsize = symsize };
	sec[nsec++] = (struct gsec){
		.name = shname(g->dynsym ? ".dynstr" : ".strtab"),
		.type = SHT_STRTAB, .flags = g->dynsym ? SHF_ALLOC : 0,
		.offset = str_off, .size = str_size, .align = 1 };
	sec[nsec] = (struct gsec){ .name = shname(".shstrtab"),
		.type = SHT_STRTAB, .offset = b.len, .size = sizeof(shstr),
		.align = 1 };
	g_mem(&b, shstr, sizeof(shstr));
	nsec++;
	g_align(&b, 8);
	shoff = b.len;
	for (i = 0; i < nsec; i++) {
		const struct gsec *s = &sec[i];

		g_int(&b, s->name, 4);
		g_int(&b, s->type, 4);
		g_int(&b, s->flags, w);
		g_int(&b, s->addr, w);
		g_int(&b, s->offset, w);
		g_int(&b, s->size, w);
		g_int(&b, s->link, 4);
		g_int(&b, s->info, 4);
		g_int(&b, s->align, w);
		g_int(&b, s->entsize, w);
	}
	if (b.failed) {
		free(b.p);
		return -ENOMEM;
	}

	/* ELF header */
	memcpy(b.p, ELFMAG, SELFMAG);
	b.p[EI_CLASS] = g->is32 ? ELFCLASS32 : ELFCLASS64;
	b.p[EI_DATA] = g->msb ? ELFDATA2MSB : ELFDATA2LSB;
	b.p[EI_VERSION] = EV_CURRENT;
	g_set(&b, 16, g->type ? g->type : ET_DYN, 2);
	g_set(&b, 18, g->is32 ? EM_386 : EM_X86_64, 2);
	g_set(&b, 20, EV_CURRENT, 4);
	g_set(&b, 24, g->text_addr, w);			/* entry */
	g_set(&b, 24 + w, ehsize, w);			/* phoff */
	g_set(&b, 24 + 2 * w, shoff, w);		/* shoff */
	g_set(&b, 28 + 3 * w, ehsize, 2);
	g_set(&b, 30 + 3 * w, phsize, 2);
	g_set(&b, 32 + 3 * w, nph, 2);
	g_set(&b, 34 + 3 * w, shsize, 2);
	g_set(&b, 36 + 3 * w, nsec, 2);
	g_set(&b, 38 + 3 * w, nsec - 1, 2);

	/* program headers: text, data, note */
	for (i = 0, ph = ehsize; i < nph; i++, ph += phsize) {
		uint32_t type = i < 2 ? PT_LOAD : PT_NOTE;
		uint32_t flags = i == 0 ? PF_R | PF_X : i == 1 ? PF_R | PF_W :
				 PF_R;
		uint64_t off = i == 0 ? text_off : i == 1 ? sec[2].offset :
			       note_off;
		uint64_t vaddr = i == 0 ? g->text_addr : i == 1 ?
				 g->data_addr : 0;
		uint64_t filesz = i == 0 ? (g->text_nobits ? 0 : g->text_size) :
				  i == 1 ? 0 : note_size;
		uint64_t memsz = i == 0 ? g->text_size : i == 1 ?
				 g->data_size : note_size;

		g_set(&b, ph, type, 4);
		if (g->is32) {
			g_set(&b, ph + 4, off, 4);
			g_set(&b, ph + 8, vaddr, 4);
			g_set(&b, ph + 12, vaddr, 4);
			g_set(&b, ph + 16, filesz, 4);
			g_set(&b, ph + 20, memsz, 4);
			g_set(&b, ph + 24, flags, 4);
			g_set(&b, ph + 28, i == 2 ? 4 : 16, 4);
		} else {
			g_set(&b, ph + 4, flags, 4);
			g_set(&b, ph + 8, off, 8);
			g_set(&b, ph + 16, vaddr, 8);
			g_set(&b, ph + 24, vaddr, 8);
			g_set(&b, ph + 32, filesz, 8);
			g_set(&b, ph + 40, memsz, 8);
			g_set(&b, ph + 48, i == 2 ? 4 : 16, 8);
		}
	}
	*out = b.p;
	*len = b.len;
	return 0;
}

int elfgen_write(const struct elfgen *g, const char *path)
{
	unsigned char *p;
	size_t n, off = 0;
	int fd, rc = elfgen_build(g, &p, &n);

	if (rc)
		return rc;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		free(p);
		return rc;
	}
	while (off < n) {
		ssize_t k = write(fd, p + off, n - off);

		if (k < 0) {
			rc = -errno;
			break;
		}
		off += (size_t)k;
	}
	if (close(fd) < 0 && !rc)
		rc = -errno;
	free(p);
	return rc;
}
