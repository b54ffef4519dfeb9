/* SPDX-License-Identifier: MIT */
/*
 * test-symbols.c - unit tests of the symbol module (libreader/symbols.c).
 *
 * Synthetic ELF images (elfgen.c) check the rules exactly: which symbols
 * count, aliases, sizes and size-0 symbols, segments, ELF classes, byte
 * orders and ET_EXEC/ET_DYN. Real files check the same on what the
 * toolchain makes: the test program itself and the C library, found with
 * dl_iterate_phdr() and resolved at their run-time addresses. Debug files
 * are looked up in a temporary debug directory (by build id, and by
 * .gnu_debuglink in the three places), build ids are checked, and bad
 * files (truncated, corrupted, not ELF, not regular) give no names and
 * never a crash. The per-process tables and the caches are checked last.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* dl_iterate_phdr, RTLD_DEFAULT, asprintf */
#endif

#include <check.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols.h"
#include "elfgen.h"

static char tmpdir[PATH_MAX];

static void setup(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/test-symbols.XXXXXX",
		 t && *t ? t : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(p);
}

static void teardown(void)
{
	nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* @rel below the test's directory, malloc'd */
static char *tpath(const char *rel)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/%s", tmpdir, rel), 0);
	return p;
}

static void mkdirs(const char *path)
{
	char *p = strdup(path), *s;

	ck_assert_ptr_nonnull(p);
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
	free(p);
}

static void write_file(const char *path, const void *d, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, d, n), (ssize_t)n);
	close(fd);
}

static unsigned char *read_whole(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *p;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	p = malloc(st.st_size + 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(read(fd, p, st.st_size), st.st_size);
	close(fd);
	*len = st.st_size;
	return p;
}

/* ---- the synthetic object ---------------------------------------------- */

#define T(off) (g->text_addr + (off))

static struct elfgen_sym std_syms[16];

/* The symbols of every synthetic object, relative to its .text. */
static void std_gen(struct elfgen *g, uint64_t text, uint64_t data)
{
	struct elfgen_sym s[] = {
		{ "foo", text + 0x10, 0x20, STT_FUNC, STB_GLOBAL, ELFGEN_TEXT },
		{ "__foo_alias", text + 0x10, 0x20, STT_FUNC, STB_GLOBAL, ELFGEN_TEXT },
		{ "foo_weak", text + 0x10, 0, STT_FUNC, STB_WEAK, ELFGEN_TEXT },
		{ "bar", text + 0x40, 0, STT_FUNC, STB_GLOBAL, ELFGEN_TEXT },
		{ "", text + 0x60, 4, STT_FUNC, STB_GLOBAL, ELFGEN_TEXT },
		{ "baz", text + 0x80, 0x10, STT_GNU_IFUNC, STB_GLOBAL, ELFGEN_TEXT },
		{ "local_fn", text + 0xA0, 8, STT_FUNC, STB_LOCAL, ELFGEN_TEXT },
		{ "last", text + 0x100, 0, STT_FUNC, STB_LOCAL, ELFGEN_TEXT },
		{ "var", data, 8, STT_OBJECT, STB_GLOBAL, ELFGEN_DATA },
		{ "undef", 0, 0, STT_FUNC, STB_GLOBAL, SHN_UNDEF },
		{ "datafn", data + 0x10, 0x10, STT_FUNC, STB_GLOBAL, ELFGEN_DATA },
	};

	memcpy(std_syms, s, sizeof(s));
	memset(g, 0, sizeof(*g));
	g->text_addr = text;
	g->text_size = 0x200;
	g->data_addr = data;
	g->data_size = 0x100;
	g->syms = std_syms;
	g->nsyms = sizeof(s) / sizeof(s[0]);
}

static void expect_at(const struct sym_elf *e, uint64_t vaddr,
		      const char *name, uint64_t off)
{
	const char *n = NULL;
	uint64_t o = 0;
	int r = sym_elf_lookup(e, vaddr, &n, &o);

	if (!name) {
		ck_assert_msg(!r, "0x%llx: resolved to %s+%llu, expected none",
			      (unsigned long long)vaddr, n, (unsigned long long)o);
		return;
	}
	ck_assert_msg(r == 1, "0x%llx: not resolved, expected %s",
		      (unsigned long long)vaddr, name);
	ck_assert_str_eq(n, name);
	ck_assert_uint_eq(o, off);
}

/* What every synthetic object with std_gen() symbols resolves to. */
static void check_std(const struct sym_elf *e, const struct elfgen *g)
{
	ck_assert_uint_eq(sym_elf_func_count(e), 5);
	expect_at(e, T(0), NULL, 0);
	expect_at(e, T(0x10), "foo", 0);
	expect_at(e, T(0x2f), "foo", 0x1f);
	expect_at(e, T(0x30), NULL, 0);		/* past foo's size */
	expect_at(e, T(0x40), "bar", 0);
	expect_at(e, T(0x60), "bar", 0x20);	/* unnamed symbol ignored */
	expect_at(e, T(0x7f), "bar", 0x3f);	/* size 0: up to the next */
	expect_at(e, T(0x80), "baz", 0);	/* GNU ifunc */
	expect_at(e, T(0x8f), "baz", 0xf);
	expect_at(e, T(0x90), NULL, 0);
	expect_at(e, T(0xA4), "local_fn", 4);
	expect_at(e, T(0x100), "last", 0);
	expect_at(e, T(0x1ff), "last", 0xff);	/* to the end of .text */
	expect_at(e, T(0x200), NULL, 0);	/* outside the segment */
	expect_at(e, g->data_addr, NULL, 0);
	expect_at(e, g->data_addr + 0x10, NULL, 0);	/* not executable */
	expect_at(e, 0, NULL, 0);
	expect_at(e, UINT64_MAX, NULL, 0);
}

static const struct {
	const char *what;
	bool is32, msb, dynsym;
	uint16_t type;
	uint64_t text, data;
} variants[] = {
	{ "64-bit shared object", false, false, false, ET_DYN, 0x1000, 0x3000 },
	{ "64-bit executable", false, false, false, ET_EXEC, 0x401000, 0x403000 },
	{ "32-bit", true, false, false, ET_DYN, 0x1000, 0x3000 },
	{ "32-bit executable", true, false, false, ET_EXEC, 0x8049000, 0x804b000 },
	{ "64-bit big-endian", false, true, false, ET_DYN, 0x1000, 0x3000 },
	{ "32-bit big-endian", true, true, false, ET_EXEC, 0x10001000, 0x10003000 },
	{ ".dynsym only", false, false, true, ET_DYN, 0x1000, 0x3000 },
};

START_TEST(test_synthetic)
{
	struct elfgen gen, *g = &gen;
	struct sym_elf *e;
	unsigned char *img;
	size_t len;
	static const uint8_t id[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const uint8_t *got;

	std_gen(g, variants[_i].text, variants[_i].data);
	g->is32 = variants[_i].is32;
	g->msb = variants[_i].msb;
	g->dynsym = variants[_i].dynsym;
	g->type = variants[_i].type;
	g->build_id = id;
	g->build_id_len = sizeof(id);
	ck_assert_int_eq(elfgen_build(g, &img, &len), 0);
	ck_assert_int_eq(sym_elf_from_mem(&e, img, len), 0);
	ck_assert_msg(sym_elf_status(e) == 0, "%s", variants[_i].what);
	check_std(e, g);
	ck_assert_uint_eq(sym_elf_build_id(e, &got), sizeof(id));
	ck_assert_mem_eq(got, id, sizeof(id));
	ck_assert_ptr_null(sym_elf_names_path(e));
	sym_elf_free(e);
	free(img);
}
END_TEST

/* ---- real files: this program and the C library --------------------------- */

struct loaded {
	const char *want;	/* NULL: the main program, else a substring */
	bool found;
	uint64_t base, low, high;
	char path[PATH_MAX];
	uint8_t id[SYM_BUILD_ID_MAX];
	size_t id_len;
};

static void note_build_id(struct loaded *l, const char *p, size_t n)
{
	size_t pos = 0;

	while (n - pos >= 12) {
		uint32_t nsz, dsz, type;

		memcpy(&nsz, p + pos, 4);
		memcpy(&dsz, p + pos + 4, 4);
		memcpy(&type, p + pos + 8, 4);
		pos += 12;
		if (nsz > n - pos || dsz > n - pos - ((nsz + 3) & ~3U))
			return;
		if (type == NT_GNU_BUILD_ID && nsz == 4 &&
		    !memcmp(p + pos, "GNU", 4) && dsz <= SYM_BUILD_ID_MAX) {
			memcpy(l->id, p + pos + 4, dsz);
			l->id_len = dsz;
			return;
		}
		pos += ((nsz + 3) & ~3U) + ((dsz + 3) & ~3U);
		if (pos > n)
			return;
	}
}

static int find_loaded(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct loaded *l = arg;
	bool main_prog = !info->dlpi_name || !info->dlpi_name[0];
	int i;

	if (l->want ? main_prog || !strstr(info->dlpi_name, l->want) :
		      !main_prog)
		return 0;
	if (main_prog) {
		ssize_t n = readlink("/proc/self/exe", l->path,
				     sizeof(l->path) - 1);

		if (n <= 0)
			return 0;
		l->path[n] = 0;
	} else {
		snprintf(l->path, sizeof(l->path), "%s", info->dlpi_name);
	}
	l->base = info->dlpi_addr;
	l->low = UINT64_MAX;
	l->high = 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD) {
			if (a < l->low)
				l->low = a;
			if (a + ph->p_memsz > l->high)
				l->high = a + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE && !l->id_len) {
			note_build_id(l, (const char *)(uintptr_t)a,
				      ph->p_filesz);
		}
	}
	l->found = true;
	return 1;
}

__attribute__((noinline, used)) int known_function(int x);
__attribute__((noinline, used)) int known_function(int x)
{
	return x * 3 + (int)getpid() % 7;
}

static int known_static(int x)
	__attribute__((noinline, used));
static int known_static(int x)
{
	return known_function(x) + 1;
}

static int some_data = 42;

static struct sym_table *table_with(struct sym_cache **c, struct loaded *l)
{
	struct sym_table *t;

	ck_assert_int_eq(dl_iterate_phdr(find_loaded, l), 1);
	ck_assert(l->found);
	ck_assert_int_eq(sym_cache_new(c, NULL), 0);
	ck_assert_int_eq(sym_table_new(&t, *c), 0);
	ck_assert_int_eq(sym_table_add(t, l->base, l->low, l->high, l->path,
				       l->id, l->id_len), 0);
	return t;
}

START_TEST(test_self)
{
	struct loaded l = { .want = NULL };
	struct sym_result r;
	struct sym_cache *c;
	struct sym_table *t = table_with(&c, &l);

	ck_assert_int_eq(sym_table_resolve(t, (uintptr_t)known_function, &r), 1);
	ck_assert_str_eq(r.name, "known_function");
	ck_assert_uint_eq(r.offset, 0);
	ck_assert_str_eq(r.path, l.path);
	ck_assert_int_eq(sym_table_resolve(t, (uintptr_t)known_static + 3, &r), 1);
	ck_assert_str_eq(r.name, "known_static");
	ck_assert_uint_eq(r.offset, 3);
	ck_assert_int_eq(sym_table_resolve(t, (uintptr_t)setup + 1, &r), 1);
	ck_assert_str_eq(r.name, "setup");
	ck_assert_int_eq(sym_table_resolve(t, (uintptr_t)&some_data, &r), 0);
	sym_table_free(t);
	sym_cache_free(c);
}
END_TEST

START_TEST(test_libc)
{
	struct loaded l = { .want = "/libc.so" };
	struct sym_result r;
	struct sym_cache *c;
	struct sym_table *t = table_with(&c, &l);
	void *fn = dlsym(RTLD_DEFAULT, "getpid");
	Dl_info info;

	ck_assert_ptr_nonnull(fn);
	ck_assert_int_eq(sym_table_resolve(t, (uintptr_t)fn + 1, &r), 1);
	ck_assert_uint_eq(r.offset, 1);
	/* whichever alias was chosen names the same function */
	ck_assert_msg(strstr(r.name, "getpid"), "getpid named %s", r.name);
	ck_assert_ptr_eq(dlsym(RTLD_DEFAULT, r.name), fn);
	/* of the aliases, the one without underscores */
	ck_assert_str_eq(r.name, "getpid");
	/* malloc and __libc_malloc (unless a sanitizer took malloc over) */
	fn = dlsym(RTLD_DEFAULT, "malloc");
	if (dladdr(fn, &info) && strstr(info.dli_fname, "/libc.so")) {
		ck_assert_int_eq(sym_table_resolve(t, (uintptr_t)fn, &r), 1);
		ck_assert_str_eq(r.name, "malloc");
		ck_assert_uint_eq(r.offset, 0);
	}
	/* the main program is not in this table */
	ck_assert_int_eq(sym_table_resolve(t, (uintptr_t)known_function, &r), 0);
	sym_table_free(t);
	sym_cache_free(c);
}
END_TEST

/* ---- debug files ----------------------------------------------------------------- */

static const uint8_t id1[20] = {
	0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0x10, 0x11,
	0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b,
};
static const uint8_t id2[20] = {
	0x99, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0x89, 0x10, 0x11,
	0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b,
};

/* Only "foo" is exported: its .dynsym names no other function. */
static const struct elfgen_sym exported[] = {
	{ "foo", 0x1010, 0x20, STT_FUNC, STB_GLOBAL, ELFGEN_TEXT },
};

static unsigned nwarn;
static char last_warn[512];

static void count_warn(void *arg, const char *msg)
{
	nwarn++;
	snprintf(last_warn, sizeof(last_warn), "%s", msg);
}

static struct sym_cache *debug_cache(void)
{
	struct sym_cache_config cfg = { .warn = count_warn };
	struct sym_cache *c;
	char *dir = tpath("debug");

	cfg.debug_dir = dir;
	nwarn = 0;
	ck_assert_int_eq(sym_cache_new(&c, &cfg), 0);
	free(dir);
	return c;
}

/*
 * lib/libx.so, stripped: exports foo only, has a build id (@with_id) and a
 * .gnu_debuglink to libx.so.debug with @crc. Returns its path.
 */
static char *write_stripped(bool with_id, uint32_t crc)
{
	struct elfgen g;
	char *dir = tpath("lib"), *p = tpath("lib/libx.so");

	mkdirs(dir);
	std_gen(&g, 0x1000, 0x3000);
	g.syms = exported;
	g.nsyms = 1;
	g.dynsym = true;
	g.build_id = with_id ? id1 : NULL;
	g.build_id_len = with_id ? sizeof(id1) : 0;
	g.debuglink = "libx.so.debug";
	g.debuglink_crc = crc;
	ck_assert_int_eq(elfgen_write(&g, p), 0);
	free(dir);
	return p;
}

/* The debug file of libx.so, in memory: all symbols, .text NOBITS. */
static unsigned char *debug_image(const uint8_t *id, size_t *len,
				  uint64_t shift)
{
	struct elfgen g;
	struct elfgen_sym s[16];
	unsigned char *img;

	std_gen(&g, 0x1000 + shift, 0x3000 + shift);
	memcpy(s, std_syms, sizeof(s));
	g.syms = s;
	g.text_nobits = true;
	g.build_id = id;
	g.build_id_len = id ? sizeof(id1) : 0;
	ck_assert_int_eq(elfgen_build(&g, &img, len), 0);
	return img;
}

/* Resolve in libx.so through a table: the name at link address @vaddr. */
static const char *name_in(struct sym_cache *c, const char *path,
			   const uint8_t *id, size_t id_len, uint64_t vaddr)
{
	const uint64_t base = 0x7f0000000000ULL;
	struct sym_table *t;
	struct sym_result r;
	const char *name = NULL;

	ck_assert_int_eq(sym_table_new(&t, c), 0);
	ck_assert_int_eq(sym_table_add(t, base, base + 0x1000, base + 0x3100,
				       path, id, id_len), 0);
	if (sym_table_resolve(t, base + vaddr, &r))
		name = r.name;
	sym_table_free(t);
	return name;
}

START_TEST(test_debug_build_id)
{
	unsigned char *img;
	size_t len;
	char *obj = write_stripped(true, 0), *bid, *bdir;
	struct sym_cache *c;
	const struct sym_elf *e;

	/* no debug file: .dynsym only */
	c = debug_cache();
	ck_assert_str_eq(name_in(c, obj, id1, sizeof(id1), 0x1015), "foo");
	ck_assert_ptr_null(name_in(c, obj, id1, sizeof(id1), 0x10A0));
	sym_cache_free(c);

	/* <debug>/.build-id/ab/cdef....debug */
	bdir = tpath("debug/.build-id/ab");
	mkdirs(bdir);
	bid = tpath("debug/.build-id/ab/cdef0123456789101112131415161718191a1b.debug");
	img = debug_image(id1, &len, 0);
	write_file(bid, img, len);
	free(img);
	c = debug_cache();
	ck_assert_str_eq(name_in(c, obj, id1, sizeof(id1), 0x10A2), "local_fn");
	ck_assert_str_eq(name_in(c, obj, NULL, 0, 0x10A2), "local_fn");
	e = sym_cache_get(c, obj, id1, sizeof(id1));
	ck_assert_str_eq(sym_elf_names_path(e), bid);
	ck_assert_uint_eq(sym_elf_func_count(e), 5);
	ck_assert_uint_eq(nwarn, 0);
	sym_cache_free(c);

	/* a debug file there with another build id is not used */
	img = debug_image(id2, &len, 0);
	write_file(bid, img, len);
	free(img);
	c = debug_cache();
	ck_assert_ptr_null(name_in(c, obj, id1, sizeof(id1), 0x10A2));
	ck_assert_str_eq(name_in(c, obj, id1, sizeof(id1), 0x1010), "foo");
	sym_cache_free(c);
	free(bid);
	free(bdir);
	free(obj);
}
END_TEST

START_TEST(test_debuglink)
{
	unsigned char *img;
	size_t len;
	char *obj = write_stripped(true, 0), *where[3];
	unsigned i;

	where[0] = tpath("lib/libx.so.debug");
	where[1] = tpath("lib/.debug/libx.so.debug");
	/* <debug>/<the object's directory>/ */
	ck_assert_int_ge(asprintf(&where[2], "%s/debug%s/lib/libx.so.debug",
				  tmpdir, tmpdir), 0);
	img = debug_image(id1, &len, 0);
	for (i = 0; i < 3; i++) {
		char *p = where[i], *slash = strrchr(p, '/');
		struct sym_cache *c;
		const struct sym_elf *e;
		const char *n;

		*slash = 0;
		mkdirs(p);
		*slash = '/';
		write_file(p, img, len);
		c = debug_cache();
		n = name_in(c, obj, id1, sizeof(id1), 0x1100);
		ck_assert_msg(n && !strcmp(n, "last"), "debug file %s not used", p);
		e = sym_cache_get(c, obj, id1, sizeof(id1));
		ck_assert_str_eq(sym_elf_names_path(e), p);
		sym_cache_free(c);
		unlink(p);
		free(p);
	}
	free(img);
	free(obj);

	/* build ids differ: not used, though the CRC is right */
	img = debug_image(id2, &len, 0);
	obj = write_stripped(true, elfgen_crc32(img, len));
	{
		char *p = tpath("lib/libx.so.debug");
		struct sym_cache *c;

		write_file(p, img, len);
		c = debug_cache();
		ck_assert_ptr_null(name_in(c, obj, NULL, 0, 0x1100));
		sym_cache_free(c);
		free(p);
	}
	free(img);
	free(obj);
}
END_TEST

START_TEST(test_debuglink_crc)
{
	unsigned char *img;
	size_t len;
	char *obj, *p = tpath("lib/libx.so.debug");
	struct sym_cache *c;

	/* no build ids at all: the CRC decides */
	img = debug_image(NULL, &len, 0);
	obj = write_stripped(false, elfgen_crc32(img, len));
	write_file(p, img, len);
	c = debug_cache();
	ck_assert_str_eq(name_in(c, obj, NULL, 0, 0x1100), "last");
	sym_cache_free(c);
	free(obj);

	obj = write_stripped(false, elfgen_crc32(img, len) ^ 1);
	c = debug_cache();
	ck_assert_ptr_null(name_in(c, obj, NULL, 0, 0x1100));
	ck_assert_str_eq(name_in(c, obj, NULL, 0, 0x1010), "foo");
	sym_cache_free(c);
	free(obj);
	free(img);

	/* a debug file linked at other addresses (prelink): shifted back */
	img = debug_image(id1, &len, 0x10000);
	write_file(p, img, len);
	obj = write_stripped(true, 0);
	c = debug_cache();
	ck_assert_str_eq(name_in(c, obj, id1, sizeof(id1), 0x10A1), "local_fn");
	ck_assert_str_eq(name_in(c, obj, id1, sizeof(id1), 0x1010), "foo");
	sym_cache_free(c);
	free(obj);
	free(img);
	free(p);
}
END_TEST

START_TEST(test_build_id_mismatch)
{
	char *obj = write_stripped(true, 0), *bdir, *bid;
	struct sym_cache *c;
	const struct sym_elf *e;
	unsigned char *img;
	size_t len;

	/* traced with id2, id1 on disk: the file's names are not used */
	c = debug_cache();
	ck_assert_ptr_null(name_in(c, obj, id2, sizeof(id2), 0x1010));
	ck_assert_uint_eq(nwarn, 1);
	ck_assert_msg(strstr(last_warn, "build id"), "warning: %s", last_warn);
	ck_assert_ptr_null(name_in(c, obj, id2, sizeof(id2), 0x1010));
	ck_assert_uint_eq(nwarn, 1);		/* once per file */
	e = sym_cache_get(c, obj, id2, sizeof(id2));
	ck_assert_int_eq(sym_elf_status(e), -ESTALE);
	/* the same file traced with its own id is fine */
	ck_assert_str_eq(name_in(c, obj, id1, sizeof(id1), 0x1010), "foo");
	sym_cache_free(c);

	/* the debug file of the traced build gives the names */
	bdir = tpath("debug/.build-id/99");
	mkdirs(bdir);
	bid = tpath("debug/.build-id/99/cdef0123456789101112131415161718191a1b.debug");
	img = debug_image(id2, &len, 0);
	write_file(bid, img, len);
	c = debug_cache();
	ck_assert_str_eq(name_in(c, obj, id2, sizeof(id2), 0x10A0), "local_fn");
	ck_assert_uint_eq(nwarn, 0);
	/* even when the object is gone */
	unlink(obj);
	ck_assert_str_eq(name_in(c, "/nonexistent/libx.so", id2, sizeof(id2),
				 0x1010), "foo");
	sym_cache_free(c);
	free(img);
	free(bid);
	free(bdir);
	free(obj);
}
END_TEST

/* ---- bad files ------------------------------------------------------------------- */

static uint64_t rng = 12345;

static uint64_t rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return rng >> 33;
}

/* Parse @img (any bytes): no crash; lookups of a few addresses. */
static void parse_any(const unsigned char *img, size_t len)
{
	struct sym_elf *e;
	const char *name;
	uint64_t off, a;

	if (sym_elf_from_mem(&e, img, len))
		return;
	for (a = 0; a < 0x5000; a += 0x13)
		if (sym_elf_lookup(e, a, &name, &off))
			ck_assert(strlen(name) < 65536);
	sym_elf_free(e);
}

START_TEST(test_truncated)
{
	struct elfgen g;
	unsigned char *img, *copy;
	size_t len, n, step;
	struct sym_elf *e;

	std_gen(&g, 0x1000, 0x3000);
	g.build_id = id1;
	g.build_id_len = sizeof(id1);
	g.debuglink = "x.debug";
	ck_assert_int_eq(elfgen_build(&g, &img, &len), 0);
	for (n = 0; n < len; n++) {
		copy = malloc(n + 1);
		memcpy(copy, img, n);
		parse_any(copy, n);
		if (sym_elf_from_mem(&e, copy, n) == 0) {
			/* what remains may still name functions, rightly */
			ck_assert_uint_le(sym_elf_func_count(e), 5);
			sym_elf_free(e);
		}
		free(copy);
	}
	ck_assert_int_eq(sym_elf_from_mem(&e, NULL, 0), -ENOEXEC);
	ck_assert_int_eq(sym_elf_from_mem(&e, "\177ELF", 4), -ENOEXEC);
	free(img);

	/* a real file, cut everywhere */
	img = read_whole("/proc/self/exe", &len);
	step = len / 600 + 1;
	for (n = 0; n < len; n += step + rnd() % 64)
		parse_any(img, n);
	free(img);
}
END_TEST

START_TEST(test_corrupt)
{
	struct elfgen g;
	unsigned char *img, *copy;
	size_t len, k;
	int i, v;

	for (v = 0; v < (int)(sizeof(variants) / sizeof(variants[0])); v++) {
		std_gen(&g, variants[v].text, variants[v].data);
		g.is32 = variants[v].is32;
		g.msb = variants[v].msb;
		g.type = variants[v].type;
		g.build_id = id1;
		g.build_id_len = sizeof(id1);
		g.debuglink = "x.debug";
		ck_assert_int_eq(elfgen_build(&g, &img, &len), 0);
		copy = malloc(len);
		for (i = 0; i < 3000; i++) {
			memcpy(copy, img, len);
			for (k = 1 + rnd() % 4; k; k--) {
				size_t at = rnd() % len;

				switch (rnd() % 4) {
				case 0:
					copy[at] ^= 1 << (rnd() % 8);
					break;
				case 1:
					copy[at] = (unsigned char)rnd();
					break;
				case 2:
					copy[at] = 0xff;
					break;
				default:
					copy[at] = 0;
					break;
				}
			}
			parse_any(copy, len);
		}
		free(copy);
		free(img);
	}
}
END_TEST

/* Section header @i of a 64-bit little-endian image. */
static Elf64_Shdr *shdr(unsigned char *img, unsigned i, Elf64_Shdr *tmp)
{
	Elf64_Ehdr eh;

	memcpy(&eh, img, sizeof(eh));
	memcpy(tmp, img + eh.e_shoff + i * sizeof(*tmp), sizeof(*tmp));
	return tmp;
}

static void put_shdr(unsigned char *img, unsigned i, const Elf64_Shdr *s)
{
	Elf64_Ehdr eh;

	memcpy(&eh, img, sizeof(eh));
	memcpy(img + eh.e_shoff + i * sizeof(*s), s, sizeof(*s));
}

START_TEST(test_hostile)
{
	struct elfgen g;
	unsigned char *img;
	size_t len;
	struct sym_elf *e;
	Elf64_Shdr s, orig;
	Elf64_Ehdr eh;
	unsigned symsec = 4;	/* null, text, data, note, symtab (no link) */
	int i;

	std_gen(&g, 0x1000, 0x3000);
	g.build_id = id1;
	g.build_id_len = sizeof(id1);
	ck_assert_int_eq(elfgen_build(&g, &img, &len), 0);
	ck_assert_uint_eq(shdr(img, symsec, &s)->sh_type, SHT_SYMTAB);
	orig = s;
	for (i = 0; i < 12; i++) {
		s = orig;
		switch (i) {
		case 0: s.sh_size = UINT64_MAX - 7; break;
		case 1: s.sh_offset = UINT64_MAX - 8; break;
		case 2: s.sh_offset = len; break;
		case 3: s.sh_link = 1000; break;
		case 4: s.sh_link = symsec; break;	/* not a string table */
		case 5: s.sh_entsize = 7; break;
		case 6: s.sh_size = (uint64_t)1 << 40; break;
		case 7: s.sh_link = 0; break;
		default: s.sh_size = s.sh_size * (i - 6); break;
		}
		put_shdr(img, symsec, &s);
		if (i >= 8) {	/* symbols read from what follows: anything */
			parse_any(img, len);
			continue;
		}
		ck_assert_int_eq(sym_elf_from_mem(&e, img, len), 0);
		ck_assert_uint_eq(sym_elf_func_count(e), 0);
		sym_elf_free(e);
	}
	put_shdr(img, symsec, &orig);

	/* the string table: too short for the names, beyond the file */
	shdr(img, symsec + 1, &s);
	orig = s;
	s.sh_size = 3;
	put_shdr(img, symsec + 1, &s);
	ck_assert_int_eq(sym_elf_from_mem(&e, img, len), 0);
	ck_assert_uint_le(sym_elf_func_count(e), 1);
	sym_elf_free(e);
	s.sh_size = UINT64_MAX;
	put_shdr(img, symsec + 1, &s);
	ck_assert_int_eq(sym_elf_from_mem(&e, img, len), 0);
	ck_assert_uint_eq(sym_elf_func_count(e), 0);
	sym_elf_free(e);
	put_shdr(img, symsec + 1, &orig);

	/* the build id note: sizes larger than the note */
	shdr(img, 3, &s);
	ck_assert_uint_eq(s.sh_type, SHT_NOTE);
	memset(img + s.sh_offset + 4, 0xff, 4);
	ck_assert_int_eq(sym_elf_from_mem(&e, img, len), 0);
	ck_assert_uint_eq(sym_elf_build_id(e, &(const uint8_t *){ NULL }), 0);
	sym_elf_free(e);

	/* header counts */
	memcpy(&eh, img, sizeof(eh));
	eh.e_shnum = 0xffff;
	memcpy(img, &eh, sizeof(eh));
	ck_assert_int_eq(sym_elf_from_mem(&e, img, len), -ENOEXEC);
	eh.e_shnum = 0;		/* extended: section 0's size, here 0 */
	memcpy(img, &eh, sizeof(eh));
	ck_assert_int_eq(sym_elf_from_mem(&e, img, len), 0);
	ck_assert_uint_eq(sym_elf_func_count(e), 0);
	sym_elf_free(e);
	eh.e_phnum = 0xffff;
	memcpy(img, &eh, sizeof(eh));
	ck_assert_int_eq(sym_elf_from_mem(&e, img, len), -ENOEXEC);
	eh.e_phnum = 3;
	eh.e_phoff = UINT64_MAX - 10;
	memcpy(img, &eh, sizeof(eh));
	ck_assert_int_eq(sym_elf_from_mem(&e, img, len), -ENOEXEC);
	eh.e_phoff = sizeof(eh);
	eh.e_type = ET_REL;
	memcpy(img, &eh, sizeof(eh));
	ck_assert_int_eq(sym_elf_from_mem(&e, img, len), -ENOEXEC);
	free(img);
}
END_TEST

START_TEST(test_bad_paths)
{
	static const char text[] = "not an ELF file\n";
	struct sym_cache *c = debug_cache();
	char *txt = tpath("text"), *empty = tpath("empty");
	char *fifo = tpath("fifo");
	const char *paths[] = { txt, empty, fifo, tmpdir, "/dev/null",
				"/nonexistent/lib.so", "relative/lib.so",
				"linux-vdso.so.1", "" };
	struct sym_table *t;
	struct sym_result r;
	unsigned i;

	write_file(txt, text, sizeof(text) - 1);
	write_file(empty, "", 0);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(sym_table_new(&t, c), 0);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const struct sym_elf *e = sym_cache_get(c, paths[i], NULL, 0);
		uint64_t base = 0x100000ULL * (i + 1);

		ck_assert_ptr_nonnull(e);
		ck_assert_int_lt(sym_elf_status(e), 0);
		ck_assert_uint_eq(sym_elf_func_count(e), 0);
		ck_assert_int_eq(sym_table_add(t, base, base, base + 0x1000,
					       paths[i], NULL, 0), 0);
		ck_assert_int_eq(sym_table_resolve(t, base + 0x10, &r), 0);
		ck_assert_int_eq(sym_table_add(t, base + 0x80000, 0, 0,
					       paths[i], NULL, 0), -ENOENT);
	}
	/* absolute paths warn, once each; relative ones and "" do not */
	ck_assert_uint_eq(nwarn, 6);
	ck_assert_uint_eq(sym_table_count(t), 9);
	sym_table_free(t);
	sym_cache_free(c);
	free(txt);
	free(empty);
	free(fifo);
}
END_TEST

/* ---- tables and caches ------------------------------------------------------------- */

static char *write_lib(const char *name, const char *fn)
{
	struct elfgen g;
	struct elfgen_sym s = { fn, 0x1010, 0x20, STT_FUNC, STB_GLOBAL,
				ELFGEN_TEXT };
	char *dir = tpath("lib"), *p, *rel;

	ck_assert_int_ge(asprintf(&rel, "lib/%s", name), 0);
	p = tpath(rel);
	free(rel);

	mkdirs(dir);
	std_gen(&g, 0x1000, 0x3000);
	g.syms = &s;
	g.nsyms = 1;
	ck_assert_int_eq(elfgen_write(&g, p), 0);
	free(dir);
	return p;
}

static const char *resolve_name(struct sym_table *t, uint64_t addr,
				uint64_t *off)
{
	struct sym_result r;

	if (!sym_table_resolve(t, addr, &r))
		return NULL;
	if (off)
		*off = r.offset;
	return r.name;
}

START_TEST(test_table)
{
	char *a = write_lib("liba.so", "in_a"), *b = write_lib("libb.so", "in_b");
	struct sym_cache_stats st;
	struct sym_table *t, *t2;
	struct sym_cache *c = debug_cache();
	struct sym_result r;
	uint64_t off;
	uint8_t long_id[SYM_BUILD_ID_MAX + 1] = { 0 };

	ck_assert_int_eq(sym_table_new(&t, c), 0);
	ck_assert_int_eq(sym_table_add(t, 0x10000, 0x11000, 0x13100, a, NULL, 0), 0);
	ck_assert_int_eq(sym_table_add(t, 0x20000, 0x21000, 0x23100, b, NULL, 0), 0);
	ck_assert_uint_eq(sym_table_count(t), 2);
	ck_assert_int_eq(sym_table_resolve(t, 0x11015, &r), 1);
	ck_assert_str_eq(r.name, "in_a");
	ck_assert_str_eq(r.path, a);
	ck_assert_uint_eq(r.offset, 5);
	ck_assert_str_eq(resolve_name(t, 0x21010, &off), "in_b");
	ck_assert_uint_eq(off, 0);
	ck_assert_ptr_null(resolve_name(t, 0x13000, NULL));	/* data */
	ck_assert_ptr_null(resolve_name(t, 0x1010, NULL));	/* below all */
	ck_assert_ptr_null(resolve_name(t, 0x30000, NULL));	/* above all */

	/* dlclose */
	ck_assert_int_eq(sym_table_remove(t, 0x10000), 0);
	ck_assert_int_eq(sym_table_remove(t, 0x10000), -ENOENT);
	ck_assert_ptr_null(resolve_name(t, 0x11015, NULL));
	ck_assert_str_eq(resolve_name(t, 0x21010, NULL), "in_b");

	/* an object mapped over another replaces it */
	ck_assert_int_eq(sym_table_add(t, 0x20800, 0x21800, 0x23900, a, NULL, 0), 0);
	ck_assert_uint_eq(sym_table_count(t), 1);
	ck_assert_ptr_null(resolve_name(t, 0x21010, NULL));
	ck_assert_str_eq(resolve_name(t, 0x21810, NULL), "in_a");

	/* range from the file (dlopen); an object known at that base stays */
	ck_assert_int_eq(sym_table_add(t, 0x40000, 0, 0, b, NULL, 0), 0);
	ck_assert_str_eq(resolve_name(t, 0x41010, NULL), "in_b");
	ck_assert_ptr_null(resolve_name(t, 0x41210, NULL));	/* past .text */
	ck_assert_int_eq(sym_table_add(t, 0x40000, 0, 0, a, NULL, 0), 0);
	ck_assert_str_eq(resolve_name(t, 0x41010, NULL), "in_b");
	ck_assert_uint_eq(sym_table_count(t), 2);

	/* bad arguments */
	ck_assert_int_eq(sym_table_add(t, 0, 0x2000, 0x1000, a, NULL, 0), -EINVAL);
	ck_assert_int_eq(sym_table_add(t, 0, 0x1000, 0x2000, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(sym_table_add(t, 0, 0x1000, 0x2000, a, long_id,
				       sizeof(long_id)), -EINVAL);
	ck_assert_int_eq(sym_table_add(t, UINT64_MAX - 0x100, 0, 0, a, NULL, 0),
			 -ENOENT);
	ck_assert_uint_eq(sym_table_count(t), 2);

	/* files are loaded once for all tables */
	sym_cache_stats(c, &st);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_eq(st.funcs, 2);
	ck_assert_int_eq(sym_table_new(&t2, c), 0);
	ck_assert_int_eq(sym_table_add(t2, 0x10000, 0x11000, 0x13100, b, NULL, 0), 0);
	ck_assert_str_eq(resolve_name(t2, 0x11010, NULL), "in_b");
	ck_assert_str_eq(resolve_name(t, 0x41010, NULL), "in_b");
	sym_cache_stats(c, &st);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_uint_gt(st.bytes, 0);
	sym_table_free(t2);
	sym_table_free(t);
	sym_cache_free(c);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_lookup_cache)
{
	char *a = write_lib("liba.so", "in_a"), *b = write_lib("libb.so", "in_b");
	struct sym_cache_stats s0, s1;
	struct sym_table *t, *t2;
	struct sym_cache *c = debug_cache();
	int i;

	ck_assert_int_eq(sym_table_new(&t, c), 0);
	ck_assert_int_eq(sym_table_new(&t2, c), 0);
	ck_assert_int_eq(sym_table_add(t, 0x10000, 0x11000, 0x13100, a, NULL, 0), 0);
	ck_assert_int_eq(sym_table_add(t2, 0x10000, 0x11000, 0x13100, b, NULL, 0), 0);
	sym_cache_stats(c, &s0);
	for (i = 0; i < 100; i++) {
		ck_assert_str_eq(resolve_name(t, 0x11015, NULL), "in_a");
		ck_assert_str_eq(resolve_name(t2, 0x11015, NULL), "in_b");
		ck_assert_ptr_null(resolve_name(t, 0x13000, NULL));
	}
	sym_cache_stats(c, &s1);
	ck_assert_uint_eq(s1.lookups - s0.lookups, 300);
	ck_assert_uint_ge(s1.hits - s0.hits, 297);

	/* the same object described again: answers stay cached */
	ck_assert_int_eq(sym_table_add(t, 0x10000, 0x11000, 0x13100, a, NULL, 0), 0);
	sym_cache_stats(c, &s0);
	ck_assert_str_eq(resolve_name(t, 0x11015, NULL), "in_a");
	sym_cache_stats(c, &s1);
	ck_assert_uint_eq(s1.hits - s0.hits, 1);

	/* a change is seen at once, never an old answer */
	ck_assert_int_eq(sym_table_add(t, 0x10000, 0x11000, 0x13100, b, NULL, 0), 0);
	ck_assert_str_eq(resolve_name(t, 0x11015, NULL), "in_b");
	ck_assert_int_eq(sym_table_remove(t, 0x10000), 0);
	ck_assert_ptr_null(resolve_name(t, 0x11015, NULL));
	ck_assert_str_eq(resolve_name(t2, 0x11015, NULL), "in_b");
	sym_table_free(t2);
	sym_table_free(t);
	sym_cache_free(c);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_cache_share)
{
	char *obj = write_stripped(true, 0);
	struct sym_cache_stats st;
	struct sym_table *t;
	struct sym_cache *c = debug_cache();
	const uint64_t base = 0x7f0000000000ULL;

	ck_assert_int_eq(sym_table_new(&t, c), 0);
	/* a dlopen event, then the state dump: the file is read once */
	ck_assert_int_eq(sym_table_add(t, base, 0, 0, obj, NULL, 0), 0);
	ck_assert_int_eq(sym_table_add(t, base, base + 0x1000, base + 0x3100,
				       obj, id1, sizeof(id1)), 0);
	sym_cache_stats(c, &st);
	ck_assert_uint_eq(st.files, 1);
	ck_assert_str_eq(resolve_name(t, base + 0x1011, NULL), "foo");
	/* another build of that path is another load, and gives no names */
	ck_assert_int_eq(sym_table_add(t, base, base + 0x1000, base + 0x3100,
				       obj, id2, sizeof(id2)), 0);
	sym_cache_stats(c, &st);
	ck_assert_uint_eq(st.files, 2);
	ck_assert_ptr_null(resolve_name(t, base + 0x1011, NULL));
	/* and the other way round: the build id first */
	ck_assert_int_eq(sym_table_remove(t, base), 0);
	ck_assert_ptr_eq(sym_cache_get(c, "/x", NULL, 0),
			 sym_cache_get(c, "/x", NULL, 0));
	sym_table_free(t);
	sym_cache_free(c);
	c = debug_cache();
	ck_assert_ptr_eq(sym_cache_get(c, obj, id1, sizeof(id1)),
			 sym_cache_get(c, obj, NULL, 0));
	ck_assert_ptr_ne(sym_cache_get(c, obj, id1, sizeof(id1)),
			 sym_cache_get(c, obj, id2, sizeof(id2)));
	sym_cache_stats(c, &st);
	ck_assert_uint_eq(st.files, 2);
	sym_cache_free(c);
	free(obj);
}
END_TEST

static Suite *symbols_suite(void)
{
	Suite *s = suite_create("symbols");
	TCase *tc = tcase_create("resolve");
	TCase *tb = tcase_create("bad");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_synthetic, 0,
			    sizeof(variants) / sizeof(variants[0]));
	tcase_add_test(tc, test_self);
	tcase_add_test(tc, test_libc);
	tcase_add_test(tc, test_debug_build_id);
	tcase_add_test(tc, test_debuglink);
	tcase_add_test(tc, test_debuglink_crc);
	tcase_add_test(tc, test_build_id_mismatch);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_lookup_cache);
	tcase_add_test(tc, test_cache_share);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tb, setup, teardown);
	tcase_set_timeout(tb, 120);
	tcase_add_test(tb, test_truncated);
	tcase_add_test(tb, test_corrupt);
	tcase_add_test(tb, test_hostile);
	tcase_add_test(tb, test_bad_paths);
	suite_add_tcase(s, tb);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(symbols_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
