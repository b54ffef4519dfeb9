/* SPDX-License-Identifier: MIT */
/*
 * symbols.c - function names of traced processes' code addresses, read
 * from ELF files (see symbols.h for the three layers). The reader
 * library's symbol tables (symbolize.c, shmtrace_rd_sym_*()) are built on
 * it. It keeps no global state: the objects of one cache are used by one
 * thread at a time, and separate caches never share anything.
 *
 * Reading an ELF file: every byte comes through src_read(), which checks
 * offset + length against the file size (or the image size) before any
 * access, so an offset, size or count read from the file is never used
 * unchecked; a file that shrinks while read fails the read. Files are read
 * with pread() into small heap buffers, never mapped (a file truncated
 * under a mapping would raise SIGBUS). Counts are bounded (sections,
 * program headers, symbols, string table size) before anything is
 * allocated from them, so memory follows the file's size at most.
 *
 * A loaded object (struct sym_elf) holds:
 *  - exec[]: its executable PT_LOAD segments, link-time [start, end);
 *  - funcs[]: one entry per function address, sorted by address, strictly
 *    increasing, each covering [addr, addr + len) with len > 0 and, when
 *    the symbol has no size, len reaching the next function, the end of
 *    its section or of its segment, whichever comes first; every entry
 *    starts inside exec[];
 *  - names: a pool of NUL-terminated names, funcs[i].name an offset in it.
 * Of several symbols at one address the entry keeps the best name: sized
 * first, then the fewest leading underscores, then global before weak
 * before local, then the shortest.
 *
 * The cache maps (path, recorded build id) to a loaded object, loaded once;
 * entries are never freed before the cache. An entry whose load would read
 * the same files as another entry of the same path shares its object
 * (same_load()), which only the entry that loaded it frees. Tables hold objects sorted by
 * `low`, never overlapping. Each table has a stamp, unique across the cache
 * and renewed at every change of the table, which keys the direct-mapped
 * lookup cache: an answer stored under an old stamp is never returned.
 */
#include <byteswap.h>
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols.h"

#define SYM_MAX_PHDRS		4096U
#define SYM_MAX_SECTIONS	(1U << 20)
#define SYM_MAX_EXEC		16U
#define SYM_MAX_NOTE		(64U << 10)
#define SYM_MAX_SHSTR		(1U << 20)
#define SYM_MAX_STRTAB		(1ULL << 30)
#define SYM_MAX_SYMS		(1U << 26)
#define SYM_MAX_NAME		4095U	/* longer names are cut */
#define SYM_DEBUGLINK_MAX	4096U
#define SYM_CHUNK		512U	/* symbols read at once */
#define SYM_BUCKETS		1024U
#define SYM_MAX_FILES		16384U	/* files a cache loads at most */
#define SYM_MAX_OBJECTS		65536U	/* objects a table holds at most */
#define SYM_LOOKUP_BITS		12
#define SYM_LOOKUP_SLOTS	(1U << SYM_LOOKUP_BITS)

/* ---- input: a file or an image in memory --------------------------------- */

struct elf_src {
	int fd;				/* -1: the image mem[0..size) */
	const unsigned char *mem;
	uint64_t size;
};

static int src_read(const struct elf_src *s, uint64_t off, void *buf,
		    size_t len)
{
	unsigned char *p = buf;

	if (off > s->size || len > s->size - off)
		return -ENOEXEC;
	if (s->fd < 0) {
		if (len)
			memcpy(p, s->mem + off, len);
		return 0;
	}
	while (len) {
		ssize_t n = pread(s->fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ENOEXEC;	/* the file shrank */
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/* ---- parsed headers of one file ------------------------------------------ */

struct elf_seg {
	uint64_t start, end;
};

struct elf_sec {
	uint32_t name, type, link;
	uint64_t flags, addr, offset, size, entsize, align;
};

struct elf_img {
	struct elf_src src;
	bool is64, swap;
	uint16_t type, machine;
	dev_t dev;
	ino_t ino;
	/* PT_LOAD segments */
	bool have_load;
	uint64_t load_lo, load_hi;
	struct elf_seg exec[SYM_MAX_EXEC];
	unsigned nexec;
	/* PT_NOTE segments, for a build id when there are no sections */
	struct elf_seg notes[8];	/* file offset, size */
	uint64_t note_align[8];
	unsigned nnotes;
	/* sections (sec NULL when the file has none) */
	struct elf_sec *sec;
	uint32_t shnum;
	char *shstr;			/* NUL-terminated at shstr[shstr_size] */
	uint64_t shstr_size;
	int symtab, dynsym;		/* section index, -1 if none */
	uint8_t build_id[SYM_BUILD_ID_MAX];
	unsigned build_id_len;
	char *debuglink;		/* basename, NULL if none */
	uint32_t debuglink_crc;
};

static inline uint16_t cv16(const struct elf_img *im, uint16_t v)
{
	return im->swap ? bswap_16(v) : v;
}

static inline uint32_t cv32(const struct elf_img *im, uint32_t v)
{
	return im->swap ? bswap_32(v) : v;
}

static inline uint64_t cv64(const struct elf_img *im, uint64_t v)
{
	return im->swap ? bswap_64(v) : v;
}

static void img_close(struct elf_img *im)
{
	if (im->src.fd >= 0)
		close(im->src.fd);
	im->src.fd = -1;
	free(im->sec);
	free(im->shstr);
	free(im->debuglink);
	im->sec = NULL;
	im->shstr = NULL;
	im->debuglink = NULL;
}

static const char *sec_name(const struct elf_img *im, const struct elf_sec *s)
{
	if (!im->shstr || s->name >= im->shstr_size)
		return "";
	return im->shstr + s->name;
}

/* Read section header @i into @s. */
static int read_shdr(const struct elf_img *im, uint64_t shoff, uint32_t i,
		     struct elf_sec *s)
{
	int rc;

	if (im->is64) {
		Elf64_Shdr h;

		rc = src_read(&im->src, shoff + (uint64_t)i * sizeof(h), &h,
			      sizeof(h));
		if (rc)
			return rc;
		s->name = cv32(im, h.sh_name);
		s->type = cv32(im, h.sh_type);
		s->flags = cv64(im, h.sh_flags);
		s->addr = cv64(im, h.sh_addr);
		s->offset = cv64(im, h.sh_offset);
		s->size = cv64(im, h.sh_size);
		s->link = cv32(im, h.sh_link);
		s->align = cv64(im, h.sh_addralign);
		s->entsize = cv64(im, h.sh_entsize);
	} else {
		Elf32_Shdr h;

		rc = src_read(&im->src, shoff + (uint64_t)i * sizeof(h), &h,
			      sizeof(h));
		if (rc)
			return rc;
		s->name = cv32(im, h.sh_name);
		s->type = cv32(im, h.sh_type);
		s->flags = cv32(im, h.sh_flags);
		s->addr = cv32(im, h.sh_addr);
		s->offset = cv32(im, h.sh_offset);
		s->size = cv32(im, h.sh_size);
		s->link = cv32(im, h.sh_link);
		s->align = cv32(im, h.sh_addralign);
		s->entsize = cv32(im, h.sh_entsize);
	}
	return 0;
}

static int read_phdr(const struct elf_img *im, uint64_t phoff, uint32_t i,
		     uint32_t *type, uint32_t *flags, uint64_t *offset,
		     uint64_t *vaddr, uint64_t *filesz, uint64_t *memsz,
		     uint64_t *align)
{
	int rc;

	if (im->is64) {
		Elf64_Phdr h;

		rc = src_read(&im->src, phoff + (uint64_t)i * sizeof(h), &h,
			      sizeof(h));
		if (rc)
			return rc;
		*type = cv32(im, h.p_type);
		*flags = cv32(im, h.p_flags);
		*offset = cv64(im, h.p_offset);
		*vaddr = cv64(im, h.p_vaddr);
		*filesz = cv64(im, h.p_filesz);
		*memsz = cv64(im, h.p_memsz);
		*align = cv64(im, h.p_align);
	} else {
		Elf32_Phdr h;

		rc = src_read(&im->src, phoff + (uint64_t)i * sizeof(h), &h,
			      sizeof(h));
		if (rc)
			return rc;
		*type = cv32(im, h.p_type);
		*flags = cv32(im, h.p_flags);
		*offset = cv32(im, h.p_offset);
		*vaddr = cv32(im, h.p_vaddr);
		*filesz = cv32(im, h.p_filesz);
		*memsz = cv32(im, h.p_memsz);
		*align = cv32(im, h.p_align);
	}
	return 0;
}

static int img_phdrs(struct elf_img *im, uint64_t phoff, uint32_t phnum)
{
	uint32_t i;

	if (phnum > SYM_MAX_PHDRS)
		return -ENOEXEC;
	for (i = 0; i < phnum; i++) {
		uint32_t type, flags;
		uint64_t off, vaddr, filesz, memsz, align, end;
		int rc = read_phdr(im, phoff, i, &type, &flags, &off, &vaddr,
				   &filesz, &memsz, &align);

		if (rc)
			return rc;
		if (type == PT_NOTE && im->nnotes < 8) {
			im->notes[im->nnotes].start = off;
			im->notes[im->nnotes].end = filesz;
			im->note_align[im->nnotes++] = align;
		}
		if (type != PT_LOAD || !memsz)
			continue;
		if (vaddr > UINT64_MAX - memsz)
			continue;		/* wraps: not a real segment */
		end = vaddr + memsz;
		if (!im->have_load || vaddr < im->load_lo)
			im->load_lo = vaddr;
		if (!im->have_load || end > im->load_hi)
			im->load_hi = end;
		im->have_load = true;
		if ((flags & PF_X) && im->nexec < SYM_MAX_EXEC) {
			im->exec[im->nexec].start = vaddr;
			im->exec[im->nexec++].end = end;
		}
	}
	return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* Look for a GNU build id note in file bytes [off, off + size). */
static void img_note(struct elf_img *im, uint64_t off, uint64_t size,
		     uint64_t align)
{
	unsigned char *buf;
	uint64_t pos = 0, al = align == 8 ? 8 : 4;

	if (im->build_id_len || size < 12 || size > SYM_MAX_NOTE)
		return;
	buf = malloc(size);
	if (!buf)
		return;
	if (src_read(&im->src, off, buf, size))
		goto out;
	while (size - pos >= 12) {
		uint32_t namesz, descsz, type;
		const unsigned char *name;

		memcpy(&namesz, buf + pos, 4);
		memcpy(&descsz, buf + pos + 4, 4);
		memcpy(&type, buf + pos + 8, 4);
		namesz = cv32(im, namesz);
		descsz = cv32(im, descsz);
		type = cv32(im, type);
		pos += 12;
		/* sizes are below SYM_MAX_NOTE here, so nothing wraps */
		if (namesz > size - pos || align_up(namesz, al) > size - pos)
			break;
		name = buf + pos;
		pos += align_up(namesz, al);
		if (descsz > size - pos)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(name, "GNU", 4) && descsz &&
		    descsz <= SYM_BUILD_ID_MAX) {
			memcpy(im->build_id, buf + pos, descsz);
			im->build_id_len = descsz;
			break;
		}
		if (align_up(descsz, al) > size - pos)
			break;
		pos += align_up(descsz, al);
	}
out:
	free(buf);
}

/* .gnu_debuglink: a basename, NUL, padding to 4, a CRC-32. */
static void img_debuglink(struct elf_img *im, const struct elf_sec *s)
{
	unsigned char *buf;
	size_t n;
	uint64_t crc_off;
	uint32_t crc;

	if (im->debuglink || s->type == SHT_NOBITS || s->size < 6 ||
	    s->size > SYM_DEBUGLINK_MAX)
		return;
	buf = malloc(s->size);
	if (!buf)
		return;
	if (src_read(&im->src, s->offset, buf, s->size))
		goto out;
	n = strnlen((const char *)buf, s->size);
	crc_off = align_up(n + 1, 4);
	if (!n || n == s->size || crc_off > s->size - 4)
		goto out;
	if (memchr(buf, '/', n) || !strcmp((char *)buf, ".") ||
	    !strcmp((char *)buf, ".."))
		goto out;
	memcpy(&crc, buf + crc_off, 4);
	im->debuglink_crc = cv32(im, crc);
	im->debuglink = strdup((const char *)buf);
out:
	free(buf);
}

static int img_sections(struct elf_img *im, uint64_t shoff, uint32_t shnum,
			uint32_t shstrndx)
{
	struct elf_sec *s;
	uint32_t i;
	int rc;

	if (!shoff || !shnum)
		return 0;
	if (shnum > SYM_MAX_SECTIONS)
		return -ENOEXEC;
	/* all headers inside the file before allocating for them */
	if (shoff > im->src.size ||
	    (uint64_t)shnum * (im->is64 ? sizeof(Elf64_Shdr) :
			       sizeof(Elf32_Shdr)) > im->src.size - shoff)
		return -ENOEXEC;
	im->sec = calloc(shnum, sizeof(*im->sec));
	if (!im->sec)
		return -ENOMEM;
	im->shnum = shnum;
	for (i = 0; i < shnum; i++) {
		rc = read_shdr(im, shoff, i, &im->sec[i]);
		if (rc)
			return rc;
	}
	if (shstrndx < shnum) {
		s = &im->sec[shstrndx];
		if (s->type == SHT_STRTAB && s->size <= SYM_MAX_SHSTR) {
			im->shstr = malloc(s->size + 1);
			if (!im->shstr)
				return -ENOMEM;
			if (src_read(&im->src, s->offset, im->shstr, s->size)) {
				free(im->shstr);
				im->shstr = NULL;
			} else {
				im->shstr[s->size] = 0;
				im->shstr_size = s->size;
			}
		}
	}
	for (i = 0; i < shnum; i++) {
		s = &im->sec[i];
		if (s->type == SHT_SYMTAB && im->symtab < 0)
			im->symtab = (int)i;
		else if (s->type == SHT_DYNSYM && im->dynsym < 0)
			im->dynsym = (int)i;
		else if (s->type == SHT_NOTE)
			img_note(im, s->offset, s->size, s->align);
		else if (s->type == SHT_PROGBITS &&
			 !strcmp(sec_name(im, s), ".gnu_debuglink"))
			img_debuglink(im, s);
	}
	return 0;
}

/* Parse the headers of im->src: 0, or -ENOEXEC, -ENOMEM, -EIO... */
static int img_parse(struct elf_img *im)
{
	unsigned char ident[EI_NIDENT];
	uint64_t phoff, shoff;
	uint32_t phnum, shnum, shstrndx;
	uint16_t phentsize, shentsize;
	bool host_le = __BYTE_ORDER == __LITTLE_ENDIAN;
	struct elf_sec s0;
	int rc, i;

	im->symtab = im->dynsym = -1;
	rc = src_read(&im->src, 0, ident, sizeof(ident));
	if (rc)
		return rc;
	if (memcmp(ident, ELFMAG, SELFMAG) || ident[EI_VERSION] != EV_CURRENT)
		return -ENOEXEC;
	if (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	if (ident[EI_DATA] != ELFDATA2LSB && ident[EI_DATA] != ELFDATA2MSB)
		return -ENOEXEC;
	im->is64 = ident[EI_CLASS] == ELFCLASS64;
	im->swap = (ident[EI_DATA] == ELFDATA2LSB) != host_le;
	if (im->is64) {
		Elf64_Ehdr h;

		rc = src_read(&im->src, 0, &h, sizeof(h));
		if (rc)
			return rc;
		im->type = cv16(im, h.e_type);
		im->machine = cv16(im, h.e_machine);
		phoff = cv64(im, h.e_phoff);
		shoff = cv64(im, h.e_shoff);
		phnum = cv16(im, h.e_phnum);
		shnum = cv16(im, h.e_shnum);
		shstrndx = cv16(im, h.e_shstrndx);
		phentsize = cv16(im, h.e_phentsize);
		shentsize = cv16(im, h.e_shentsize);
		if ((phnum && phentsize != sizeof(Elf64_Phdr)) ||
		    (shoff && shentsize != sizeof(Elf64_Shdr)))
			return -ENOEXEC;
	} else {
		Elf32_Ehdr h;

		rc = src_read(&im->src, 0, &h, sizeof(h));
		if (rc)
			return rc;
		im->type = cv16(im, h.e_type);
		im->machine = cv16(im, h.e_machine);
		phoff = cv32(im, h.e_phoff);
		shoff = cv32(im, h.e_shoff);
		phnum = cv16(im, h.e_phnum);
		shnum = cv16(im, h.e_shnum);
		shstrndx = cv16(im, h.e_shstrndx);
		phentsize = cv16(im, h.e_phentsize);
		shentsize = cv16(im, h.e_shentsize);
		if ((phnum && phentsize != sizeof(Elf32_Phdr)) ||
		    (shoff && shentsize != sizeof(Elf32_Shdr)))
			return -ENOEXEC;
	}
	if (im->type != ET_EXEC && im->type != ET_DYN)
		return -ENOEXEC;
	/* extended numbering: the real values in section header 0 */
	if (shoff && (!shnum || shstrndx == SHN_XINDEX)) {
		rc = read_shdr(im, shoff, 0, &s0);
		if (rc)
			return rc;
		if (!shnum)
			shnum = s0.size > SYM_MAX_SECTIONS ?
				SYM_MAX_SECTIONS + 1 : (uint32_t)s0.size;
		if (shstrndx == SHN_XINDEX)
			shstrndx = s0.link;
	}
	/* PN_XNUM (65535 headers and more) is above SYM_MAX_PHDRS: refused */
	rc = img_phdrs(im, phoff, phnum);
	if (rc)
		return rc;
	rc = img_sections(im, shoff, shnum, shstrndx);
	if (rc)
		return rc;
	for (i = 0; i < (int)im->nnotes && !im->build_id_len; i++)
		img_note(im, im->notes[i].start, im->notes[i].end,
			 im->note_align[i]);
	return 0;
}

static int img_open(struct elf_img *im, const char *path)
{
	struct stat st;
	int fd, rc;

	memset(im, 0, sizeof(*im));
	im->src.fd = -1;
	im->symtab = im->dynsym = -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOEXEC;
	}
	im->src.fd = fd;
	im->src.size = (uint64_t)st.st_size;
	im->dev = st.st_dev;
	im->ino = st.st_ino;
	rc = img_parse(im);
	if (rc)
		img_close(im);
	return rc;
}

/* ---- CRC-32 of a whole file (.gnu_debuglink's) ------------------------ */

/* The table of the reflected polynomial 0xEDB88320 (on the stack: no global state). */
static void crc_init(uint32_t crc_table[256])
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = c & 1 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static int img_crc32(const struct elf_img *im, uint32_t *out)
{
	size_t chunk = 1U << 16;
	unsigned char *buf = malloc(chunk);
	uint32_t crc = 0xFFFFFFFFU, crc_table[256];
	uint64_t off = 0;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	crc_init(crc_table);
	while (off < im->src.size) {
		size_t n = im->src.size - off < chunk ?
			(size_t)(im->src.size - off) : chunk;
		size_t i;

		rc = src_read(&im->src, off, buf, n);
		if (rc)
			break;
		for (i = 0; i < n; i++)
			crc = crc_table[(crc ^ buf[i]) & 0xFF] ^ (crc >> 8);
		off += n;
	}
	free(buf);
	*out = ~crc;
	return rc;
}

/* ---- a loaded object ------------------------------------------------------- */

struct sym_func {
	uint64_t addr;
	uint32_t len;
	uint32_t name;		/* offset in names */
};

struct sym_elf {
	struct elf_seg exec[SYM_MAX_EXEC];
	unsigned nexec;
	bool have_load;
	uint64_t load_lo, load_hi;
	struct sym_func *funcs;
	size_t nfuncs;
	char *names;
	size_t names_size;
	uint8_t build_id[SYM_BUILD_ID_MAX];
	unsigned build_id_len;
	char *names_path;
	int status;
	bool file_ok;		/* the object's file was read and trusted */
};

/* A function symbol before deduplication. */
struct cand {
	uint64_t addr, size;
	uint32_t name;		/* offset in the string table */
	uint32_t shndx;
	uint16_t len;		/* name length, at most SYM_MAX_NAME */
	uint8_t under;		/* leading underscores, at most 255 */
	uint8_t bind;		/* 0 global, 1 weak, 2 other */
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	if (x->under != y->under)
		return x->under < y->under ? -1 : 1;
	if (x->bind != y->bind)
		return x->bind < y->bind ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

static const struct elf_seg *find_seg(const struct elf_seg *seg, unsigned n,
				      uint64_t v)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (v >= seg[i].start && v < seg[i].end)
			return &seg[i];
	return NULL;
}

/* Read the function symbols of section @idx of @im into *out (*nout). */
static int read_cands(const struct elf_img *im, int idx, char **strtab,
		      uint64_t *strsize, struct cand **out, size_t *nout)
{
	const struct elf_sec *s = &im->sec[idx], *st;
	size_t esz = im->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	unsigned char *buf = NULL;
	struct cand *c = NULL;
	size_t n = 0, cap = 0;
	uint64_t count, i;
	char *str = NULL;
	int rc = -ENOEXEC;

	if (s->entsize && s->entsize != esz)
		return -ENOEXEC;
	count = s->size / esz;
	if (count > SYM_MAX_SYMS || s->link >= im->shnum)
		return -ENOEXEC;
	if (s->offset > im->src.size || s->size > im->src.size - s->offset)
		return -ENOEXEC;
	st = &im->sec[s->link];
	if (st->type != SHT_STRTAB || st->size > SYM_MAX_STRTAB ||
	    st->offset > im->src.size || st->size > im->src.size - st->offset)
		return -ENOEXEC;
	str = malloc(st->size + 1);
	buf = malloc(SYM_CHUNK * esz);
	if (!str || !buf) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = src_read(&im->src, st->offset, str, st->size);
	if (rc)
		goto fail;
	str[st->size] = 0;	/* every name ends inside the buffer */
	for (i = 0; i < count; i += SYM_CHUNK) {
		size_t k, m = count - i < SYM_CHUNK ? count - i : SYM_CHUNK;

		rc = src_read(&im->src, s->offset + i * esz, buf, m * esz);
		if (rc)
			goto fail;
		for (k = 0; k < m; k++) {
			uint32_t name, shndx;
			uint64_t value, size;
			unsigned char info;
			const char *nm;
			size_t len, u;

			if (im->is64) {
				Elf64_Sym y;

				memcpy(&y, buf + k * esz, sizeof(y));
				name = cv32(im, y.st_name);
				info = y.st_info;
				shndx = cv16(im, y.st_shndx);
				value = cv64(im, y.st_value);
				size = cv64(im, y.st_size);
			} else {
				Elf32_Sym y;

				memcpy(&y, buf + k * esz, sizeof(y));
				name = cv32(im, y.st_name);
				info = y.st_info;
				shndx = cv16(im, y.st_shndx);
				value = cv32(im, y.st_value);
				size = cv32(im, y.st_size);
			}
			if (ELF64_ST_TYPE(info) != STT_FUNC &&
			    ELF64_ST_TYPE(info) != STT_GNU_IFUNC)
				continue;
			if (shndx == SHN_UNDEF || name >= st->size ||
			    !str[name])
				continue;
			if (im->machine == EM_ARM)
				value &= ~(uint64_t)1;	/* Thumb bit */
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 256;
				struct cand *nc;

				if (ncap > count)
					ncap = count;
				nc = realloc(c, ncap * sizeof(*c));
				if (!nc) {
					rc = -ENOMEM;
					goto fail;
				}
				c = nc;
				cap = ncap;
			}
			nm = str + name;
			len = strnlen(nm, SYM_MAX_NAME + 1);
			for (u = 0; u < 255 && nm[u] == '_'; u++)
				;
			c[n].addr = value;
			c[n].size = size;
			c[n].name = name;
			c[n].shndx = shndx;
			c[n].len = len > SYM_MAX_NAME ? SYM_MAX_NAME : len;
			c[n].under = (uint8_t)u;
			c[n].bind = ELF64_ST_BIND(info) == STB_GLOBAL ? 0 :
				    ELF64_ST_BIND(info) == STB_WEAK ? 1 : 2;
			n++;
		}
	}
	free(buf);
	*strtab = str;
	*strsize = st->size;
	*out = c;
	*nout = n;
	return 0;
fail:
	free(buf);
	free(str);
	free(c);
	return rc;
}

/*
 * Fill e->funcs and e->names from symbol section @idx of @nm. Segments were
 * already copied into @e (link-time addresses of the object); @adj is added
 * to symbol values of @nm to bring them there.
 */
static int build_funcs(struct sym_elf *e, const struct elf_img *nm, int idx,
		       uint64_t adj)
{
	struct cand *c = NULL;
	size_t n = 0, i, j, k, total = 0;
	uint64_t strsize = 0;
	char *str = NULL;
	int rc;

	rc = read_cands(nm, idx, &str, &strsize, &c, &n);
	if (rc)
		return rc;
	for (i = 0; i < n; i++)
		c[i].addr += adj;
	if (n)
		qsort(c, n, sizeof(*c), cmp_cand);
	/* one entry per address: the best name, the largest size */
	for (i = 0, k = 0; i < n; i = j) {
		uint64_t size = c[i].size;

		for (j = i + 1; j < n && c[j].addr == c[i].addr; j++)
			if (c[j].size > size)
				size = c[j].size;
		if (!find_seg(e->exec, e->nexec, c[i].addr))
			continue;
		c[k] = c[i];
		c[k++].size = size;
	}
	n = k;
	e->funcs = calloc(n ? n : 1, sizeof(*e->funcs));
	if (!e->funcs) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0, k = 0; i < n; i++) {
		const struct elf_seg *seg = find_seg(e->exec, e->nexec,
						     c[i].addr);
		uint64_t a = c[i].addr, end;

		if (c[i].size) {
			end = a + c[i].size < a ? UINT64_MAX : a + c[i].size;
		} else {
			const struct elf_sec *s = c[i].shndx < nm->shnum ?
				&nm->sec[c[i].shndx] : NULL;
			uint64_t sa = s ? s->addr + adj : 0;

			end = seg->end;
			if (i + 1 < n && c[i + 1].addr < end)
				end = c[i + 1].addr;
			/* nor beyond the end of its own section */
			if (s && (s->flags & SHF_EXECINSTR) && a >= sa &&
			    a - sa < s->size && s->size - (a - sa) < end - a)
				end = a + (s->size - (a - sa));
		}
		if (end - a > UINT32_MAX)
			end = a + UINT32_MAX;
		e->funcs[k].addr = a;
		e->funcs[k].len = (uint32_t)(end - a);
		e->funcs[k].name = c[i].name;
		total += c[i].len + 1U;
		c[k++] = c[i];
	}
	e->nfuncs = k;
	/*
	 * Names: copied into a pool of their own, unless that would take more
	 * than the whole string table (names shared between symbols), which
	 * is then kept instead. Names are cut at SYM_MAX_NAME either way (a
	 * cut in the table only shortens names longer than that).
	 */
	if (total <= strsize && total < UINT32_MAX) {
		char *pool = malloc(total ? total : 1);
		size_t off = 0;

		if (!pool) {
			rc = -ENOMEM;
			goto out;
		}
		for (i = 0; i < k; i++) {
			memcpy(pool + off, str + c[i].name, c[i].len);
			pool[off + c[i].len] = 0;
			e->funcs[i].name = (uint32_t)off;
			off += c[i].len + 1U;
		}
		e->names = pool;
		e->names_size = total;
	} else {
		for (i = 0; i < k; i++)
			str[c[i].name + c[i].len] = 0;
		e->names = str;
		e->names_size = strsize + 1;
		str = NULL;
	}
	rc = 0;
out:
	free(str);
	free(c);
	return rc;
}

static void elf_set_segments(struct sym_elf *e, const struct elf_img *im)
{
	memcpy(e->exec, im->exec, sizeof(e->exec));
	e->nexec = im->nexec;
	e->have_load = im->have_load;
	e->load_lo = im->load_lo;
	e->load_hi = im->load_hi;
}

int sym_elf_from_mem(struct sym_elf **out, const void *data, size_t len)
{
	struct elf_img im;
	struct sym_elf *e;
	int rc, idx;

	*out = NULL;
	memset(&im, 0, sizeof(im));
	im.src.fd = -1;
	im.src.mem = data;
	im.src.size = data ? len : 0;
	rc = img_parse(&im);
	if (rc)
		goto out;
	e = calloc(1, sizeof(*e));
	if (!e) {
		rc = -ENOMEM;
		goto out;
	}
	elf_set_segments(e, &im);
	memcpy(e->build_id, im.build_id, im.build_id_len);
	e->build_id_len = im.build_id_len;
	idx = im.symtab >= 0 ? im.symtab : im.dynsym;
	rc = idx >= 0 ? build_funcs(e, &im, idx, 0) : -ENOEXEC;
	if (rc == -ENOMEM) {
		sym_elf_free(e);
		goto out;
	}
	e->status = rc;
	rc = 0;
	*out = e;
out:
	img_close(&im);
	return rc;
}

void sym_elf_free(struct sym_elf *e)
{
	if (!e)
		return;
	free(e->funcs);
	free(e->names);
	free(e->names_path);
	free(e);
}

size_t sym_elf_func_count(const struct sym_elf *e)
{
	return e->nfuncs;
}

int sym_elf_lookup(const struct sym_elf *e, uint64_t vaddr,
		   const char **name, uint64_t *offset)
{
	size_t lo = 0, hi = e->nfuncs;
	const struct sym_func *f;

	if (!find_seg(e->exec, e->nexec, vaddr))
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->funcs[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	f = &e->funcs[lo - 1];
	if (vaddr - f->addr >= f->len)
		return 0;
	*name = e->names + f->name;
	*offset = vaddr - f->addr;
	return 1;
}

size_t sym_elf_build_id(const struct sym_elf *e, const uint8_t **id)
{
	*id = e->build_id;
	return e->build_id_len;
}

const char *sym_elf_names_path(const struct sym_elf *e)
{
	return e->names_path;
}

int sym_elf_status(const struct sym_elf *e)
{
	return e->status;
}

/* ---- the cache of files ------------------------------------------------------ */

struct cache_ent {
	struct cache_ent *next;
	uint32_t hash;		/* of the path alone */
	unsigned id_len;
	uint8_t id[SYM_BUILD_ID_MAX];
	struct sym_elf *elf;
	bool shared;		/* elf belongs to another entry */
	char path[];
};

struct lookup_slot {
	uint64_t stamp;		/* 0: empty */
	uint64_t addr, offset;
	const char *path, *name;	/* name NULL: did not resolve */
};

struct sym_cache {
	struct cache_ent *bucket[SYM_BUCKETS];
	char *debug_dir;	/* NULL: no debug files */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
	uint64_t next_stamp;
	size_t entries, files, funcs, bytes;
	uint64_t lookups, hits;
	struct lookup_slot *slots;
};

__attribute__((format(printf, 2, 3)))
static void cache_warn(const struct sym_cache *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!c->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	c->warn(c->warn_arg, msg);
}

static bool same_id(const uint8_t *a, size_t alen, const uint8_t *b,
		    size_t blen)
{
	return alen == blen && (!alen || !memcmp(a, b, alen));
}

/*
 * Is @d a debug file for the object @m (NULL: the object itself is not
 * usable) whose build id should be @want (@wlen 0: unknown)?
 */
static bool debug_ok(const struct elf_img *m, const struct elf_img *d,
		     const uint8_t *want, size_t wlen, bool by_crc)
{
	uint32_t crc;

	if (d->symtab < 0 || !d->have_load)
		return false;
	if (m && (m->is64 != d->is64 || m->machine != d->machine ||
		  (m->dev == d->dev && m->ino == d->ino)))
		return false;
	if (wlen && d->build_id_len)
		return same_id(want, wlen, d->build_id, d->build_id_len);
	if (!by_crc || !m || !m->debuglink)
		return false;
	return !img_crc32(d, &crc) && crc == m->debuglink_crc;
}

/* Open @path as a debug file; true when it fits (then *d stays open). */
static bool try_debug(struct elf_img *d, const char *path,
		      const struct elf_img *m, const uint8_t *want,
		      size_t wlen, bool by_crc)
{
	if (img_open(d, path))
		return false;
	if (debug_ok(m, d, want, wlen, by_crc))
		return true;
	img_close(d);
	return false;
}

static char *path_join(const char *a, const char *b, const char *c)
{
	char *p;

	if (asprintf(&p, "%s%s%s", a, b, c) < 0)
		return NULL;
	return p;
}

/* <debug_dir>/.build-id/xx/yyyy.debug */
static char *build_id_path(const char *dir, const uint8_t *id, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char tail[2 * SYM_BUILD_ID_MAX + 16];
	size_t i, k = 0;

	for (i = 0; i < len; i++) {
		tail[k++] = hex[id[i] >> 4];
		tail[k++] = hex[id[i] & 15];
		if (i == 0)
			tail[k++] = '/';
	}
	memcpy(tail + k, ".debug", 7);
	return path_join(dir, "/.build-id/", tail);
}

/* The debuglink candidates of @m in directory @dir. */
static bool find_debuglink_in(struct sym_cache *c, struct elf_img *d,
			      const char *dir, const struct elf_img *m,
			      const uint8_t *want, size_t wlen,
			      char **found)
{
	int i;

	for (i = 0; i < 3; i++) {
		char *p = NULL;

		if (i == 2 && !c->debug_dir)
			continue;
		if (i == 0)
			p = path_join(dir, "/", m->debuglink);
		else if (i == 1)
			p = path_join(dir, "/.debug/", m->debuglink);
		else if (asprintf(&p, "%s%s/%s", c->debug_dir, dir,
				  m->debuglink) < 0)
			p = NULL;
		if (!p)
			return false;
		if (try_debug(d, p, m, want, wlen, true)) {
			*found = p;
			return true;
		}
		free(p);
	}
	return false;
}

static bool find_debuglink(struct sym_cache *c, struct elf_img *d,
			   const char *path, const struct elf_img *m,
			   const uint8_t *want, size_t wlen, char **found)
{
	char *dir = strdup(path), *real = realpath(path, NULL), *slash;
	bool ok = false;

	if (!dir)
		goto out;
	slash = strrchr(dir, '/');
	if (!slash)
		goto out;
	*slash = 0;		/* "/lib/x.so" -> "/lib"; "/x" -> "" */
	ok = find_debuglink_in(c, d, dir, m, want, wlen, found);
	if (!ok && real && (slash = strrchr(real, '/'))) {
		*slash = 0;
		if (strcmp(real, dir))
			ok = find_debuglink_in(c, d, real, m, want, wlen,
					       found);
	}
out:
	free(dir);
	free(real);
	return ok;
}

/* Load the object @path traced with build id @id; NULL without memory. */
static struct sym_elf *elf_load(struct sym_cache *c, const char *path,
				const uint8_t *id, size_t idlen)
{
	struct elf_img m, d;
	bool m_ok = false, d_ok = false, stale = false;
	const struct elf_img *names_img = NULL, *seg_img;
	const uint8_t *want = id;
	size_t wlen = idlen;
	char *dpath = NULL;
	struct sym_elf *e = calloc(1, sizeof(*e));
	uint64_t adj = 0;
	int rc = -ENOENT, idx = -1;

	memset(&m, 0, sizeof(m));
	memset(&d, 0, sizeof(d));
	m.src.fd = d.src.fd = -1;
	if (!e)
		return NULL;
	if (path[0] == '/') {
		rc = img_open(&m, path);
		m_ok = !rc;
	}
	if (m_ok && idlen &&
	    !same_id(id, idlen, m.build_id, m.build_id_len)) {
		m_ok = false;		/* not the file that was traced */
		stale = true;
		rc = -ESTALE;
	}
	if (m_ok && !wlen) {
		want = m.build_id;
		wlen = m.build_id_len;
	}
	if (c->debug_dir && wlen >= 2) {
		dpath = build_id_path(c->debug_dir, want, wlen);
		if (dpath && try_debug(&d, dpath, m_ok ? &m : NULL, want,
				       wlen, false)) {
			d_ok = true;
		} else {
			free(dpath);
			dpath = NULL;
		}
	}
	if (!d_ok && m_ok && m.debuglink)
		d_ok = find_debuglink(c, &d, path, &m, want, wlen, &dpath);

	seg_img = m_ok ? &m : d_ok ? &d : NULL;
	if (d_ok) {
		names_img = &d;
		idx = d.symtab;
		e->names_path = dpath;
		dpath = NULL;
	} else if (m_ok) {
		names_img = &m;
		idx = m.symtab >= 0 ? m.symtab : m.dynsym;
		e->names_path = strdup(path);
	}
	e->file_ok = m_ok;
	if (seg_img) {
		elf_set_segments(e, seg_img);
		memcpy(e->build_id, seg_img->build_id, seg_img->build_id_len);
		e->build_id_len = seg_img->build_id_len;
	}
	if (names_img && names_img != seg_img && seg_img->have_load &&
	    names_img->have_load)
		adj = seg_img->load_lo - names_img->load_lo;
	if (idx >= 0) {
		rc = build_funcs(e, names_img, idx, adj);
		if (rc == -ENOMEM) {
			sym_elf_free(e);
			e = NULL;
			goto out;
		}
	} else if (seg_img) {
		rc = -ENOEXEC;		/* no symbol table at all */
	}
	if (rc) {
		free(e->names_path);
		e->names_path = NULL;
	}
	e->status = rc;
	if (stale && !d_ok)
		cache_warn(c, "%s: not the file that was traced (build id "
			   "differs): its function names are not used", path);
	else if (rc && path[0] == '/' && !stale && rc != -ENOEXEC)
		cache_warn(c, "%s: no function names: %s", path, strerror(-rc));
	else if (rc == -ENOEXEC && path[0] == '/' && !m_ok)
		cache_warn(c, "%s: no function names: not a usable ELF file",
			   path);
out:
	free(dpath);
	img_close(&m);
	img_close(&d);
	return e;
}

int sym_cache_new(struct sym_cache **out, const struct sym_cache_config *cfg)
{
	struct sym_cache *c = calloc(1, sizeof(*c));
	const char *dir = cfg && cfg->debug_dir ? cfg->debug_dir :
			  SYM_DEBUG_DIR;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->slots = calloc(SYM_LOOKUP_SLOTS, sizeof(*c->slots));
	if (*dir)
		c->debug_dir = strdup(dir);
	if (!c->slots || (*dir && !c->debug_dir)) {
		sym_cache_free(c);
		return -ENOMEM;
	}
	if (cfg) {
		c->warn = cfg->warn;
		c->warn_arg = cfg->warn_arg;
	}
	c->next_stamp = 1;
	*out = c;
	return 0;
}

void sym_cache_free(struct sym_cache *c)
{
	unsigned i;

	if (!c)
		return;
	for (i = 0; i < SYM_BUCKETS; i++) {
		struct cache_ent *ce = c->bucket[i], *next;

		for (; ce; ce = next) {
			next = ce->next;
			if (!ce->shared)
				sym_elf_free(ce->elf);
			free(ce);
		}
	}
	free(c->slots);
	free(c->debug_dir);
	free(c);
}

static uint32_t fnv1a(uint32_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 16777619U;
	return h;
}

/*
 * Would loading (@path, @id) give what @o holds? Yes when @o was loaded
 * from the same build (@id given), or, @id not given, when @o trusted the
 * file itself: the file and the debug files found are then the same. So a
 * dlopen event (no build id) and the state dump after it (the build id)
 * read the file once.
 */
static bool same_load(const struct cache_ent *o, const uint8_t *id,
		      size_t idlen)
{
	const struct sym_elf *e = o->elf;

	if (idlen)
		return same_id(e->build_id, e->build_id_len, id, idlen);
	return e->file_ok;
}

/* The entry of (@path, @id), loaded if new: 0, -ENOSPC or -ENOMEM. */
static int cache_ent_get(struct sym_cache *c, const char *path,
			 const uint8_t *id, size_t idlen,
			 struct cache_ent **out)
{
	size_t plen = strlen(path);
	uint32_t h = fnv1a(2166136261U, path, plen);
	struct cache_ent **b = &c->bucket[h % SYM_BUCKETS], *ce, *like = NULL;

	for (ce = *b; ce; ce = ce->next) {
		if (ce->hash != h || strcmp(ce->path, path))
			continue;
		if (same_id(ce->id, ce->id_len, id, idlen)) {
			*out = ce;
			return 0;
		}
		if (!like && same_load(ce, id, idlen))
			like = ce;
	}
	if (c->entries >= SYM_MAX_FILES)
		return -ENOSPC;
	ce = calloc(1, sizeof(*ce) + plen + 1);
	if (!ce)
		return -ENOMEM;
	if (like) {
		ce->elf = like->elf;
		ce->shared = true;
	} else {
		ce->elf = elf_load(c, path, id, idlen);
		if (!ce->elf) {
			free(ce);
			return -ENOMEM;
		}
		c->files++;
		c->funcs += ce->elf->nfuncs;
		c->bytes += sizeof(*ce->elf) +
			    ce->elf->nfuncs * sizeof(struct sym_func) +
			    ce->elf->names_size;
	}
	memcpy(ce->path, path, plen + 1);
	if (idlen)
		memcpy(ce->id, id, idlen);
	ce->id_len = (unsigned)idlen;
	ce->hash = h;
	ce->next = *b;
	*b = ce;
	c->entries++;
	c->bytes += sizeof(*ce) + plen + 1;
	*out = ce;
	return 0;
}

const struct sym_elf *sym_cache_get(struct sym_cache *c, const char *path,
				    const uint8_t *build_id, size_t id_len)
{
	struct cache_ent *ce;

	if (!path || id_len > SYM_BUILD_ID_MAX || (id_len && !build_id))
		return NULL;
	if (cache_ent_get(c, path, build_id, id_len, &ce))
		return NULL;
	return ce->elf;
}

void sym_cache_stats(const struct sym_cache *c, struct sym_cache_stats *st)
{
	st->files = c->files;
	st->funcs = c->funcs;
	st->bytes = c->bytes;
	st->lookups = c->lookups;
	st->hits = c->hits;
}

/* ---- the objects of one process ------------------------------------------------ */

struct sym_obj {
	uint64_t base, low, high;
	const struct cache_ent *file;
};

struct sym_table {
	struct sym_cache *cache;
	struct sym_obj *obj;	/* sorted by low, disjoint */
	size_t n, cap;
	uint64_t stamp;
};

int sym_table_new(struct sym_table **out, struct sym_cache *c)
{
	struct sym_table *t = calloc(1, sizeof(*t));

	*out = t;
	if (!t)
		return -ENOMEM;
	t->cache = c;
	t->stamp = c->next_stamp++;
	return 0;
}

void sym_table_free(struct sym_table *t)
{
	if (!t)
		return;
	free(t->obj);
	free(t);
}

size_t sym_table_count(const struct sym_table *t)
{
	return t->n;
}

int sym_table_add(struct sym_table *t, uint64_t base, uint64_t low,
		  uint64_t high, const char *path, const uint8_t *build_id,
		  size_t id_len)
{
	bool guess = !low && !high;
	struct cache_ent *ce;
	size_t i, k;
	int rc;

	if (!path || id_len > SYM_BUILD_ID_MAX || (id_len && !build_id) ||
	    (!guess && low >= high))
		return -EINVAL;
	if (guess)
		for (i = 0; i < t->n; i++)
			if (t->obj[i].base == base)
				return 0;	/* described already */
	rc = cache_ent_get(t->cache, path, build_id, id_len, &ce);
	if (rc)
		return rc;
	if (guess) {
		const struct sym_elf *e = ce->elf;

		if (!e->have_load || base > UINT64_MAX - e->load_hi)
			return -ENOENT;
		low = base + e->load_lo;
		high = base + e->load_hi;
		if (low >= high)
			return -ENOENT;
	}
	for (i = 0; i < t->n; i++) {
		const struct sym_obj *o = &t->obj[i];

		if (o->base == base && o->low == low && o->high == high &&
		    o->file == ce)
			return 0;	/* nothing changes */
	}
	/* drop what the new object replaces */
	for (i = 0, k = 0; i < t->n; i++) {
		const struct sym_obj *o = &t->obj[i];

		if (o->base == base || (o->low < high && low < o->high))
			continue;
		t->obj[k++] = *o;
	}
	t->n = k;
	if (t->n == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 16;
		struct sym_obj *no;

		if (t->n >= SYM_MAX_OBJECTS)
			return -ENOSPC;
		no = realloc(t->obj, ncap * sizeof(*no));
		if (!no)
			return -ENOMEM;
		t->obj = no;
		t->cap = ncap;
	}
	for (i = t->n; i > 0 && t->obj[i - 1].low > low; i--)
		t->obj[i] = t->obj[i - 1];
	t->obj[i].base = base;
	t->obj[i].low = low;
	t->obj[i].high = high;
	t->obj[i].file = ce;
	t->n++;
	t->stamp = t->cache->next_stamp++;
	return 0;
}

int sym_table_remove(struct sym_table *t, uint64_t base)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (t->obj[i].base != base)
			continue;
		memmove(&t->obj[i], &t->obj[i + 1],
			(t->n - i - 1) * sizeof(*t->obj));
		t->n--;
		t->stamp = t->cache->next_stamp++;
		return 0;
	}
	return -ENOENT;
}

static int table_lookup(const struct sym_table *t, uint64_t addr,
			struct sym_result *res)
{
	size_t lo = 0, hi = t->n;
	const struct sym_obj *o;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->obj[mid].low <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	o = &t->obj[lo - 1];
	if (addr >= o->high)
		return 0;
	if (!sym_elf_lookup(o->file->elf, addr - o->base, &res->name,
			    &res->offset))
		return 0;
	res->path = o->file->path;
	return 1;
}

int sym_table_resolve(struct sym_table *t, uint64_t addr,
		      struct sym_result *res)
{
	struct sym_cache *c = t->cache;
	uint64_t h = (addr * 0x9E3779B97F4A7C15ULL) ^
		     (t->stamp * 0xC2B2AE3D27D4EB4FULL);
	struct lookup_slot *s = &c->slots[(h ^ (h >> 29)) >> (64 - SYM_LOOKUP_BITS)];
	int found;

	c->lookups++;
	if (s->stamp == t->stamp && s->addr == addr) {
		c->hits++;
		if (!s->name)
			return 0;
		res->path = s->path;
		res->name = s->name;
		res->offset = s->offset;
		return 1;
	}
	found = table_lookup(t, addr, res);
	s->stamp = t->stamp;
	s->addr = addr;
	s->name = found ? res->name : NULL;
	s->path = found ? res->path : NULL;
	s->offset = found ? res->offset : 0;
	return found;
}
