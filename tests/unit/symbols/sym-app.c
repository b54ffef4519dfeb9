/* SPDX-License-Identifier: MIT */
/*
 * sym-app - a traced program for the symbol resolution test
 * (tests/integration/symbols.sh).
 *
 *	sym-app [-b] [-n] [LIB]
 *
 * It records a state dump of its loaded objects the way the tracer does
 * (shmtrace_statedump:start, one bin_info per object from
 * dl_iterate_phdr(), end), then addresses of its own functions as
 * shmtrace_func:entry events, and shmtrace_symtest:expect events: an
 * address and, as `what`, an extended regular expression that trace-read's
 * " <...>" after it must match whole ("" when it must print nothing).
 * With LIB it then loads LIB with dlopen (a shmtrace_proc:dlopen event,
 * then a new state dump), expects dl_emit in it, unloads it
 * (shmtrace_proc:dlclose) and expects nothing at the same address.
 * -b records a wrong build id for the program itself, whose addresses then
 * must not resolve. -n says that the session records no state dump: only
 * LIB, from its dlopen event, has names then.
 *
 * libshmtrace may record state dumps and dlopen/dlclose events of its own
 * (events of the same names): they agree with these, and these, recorded
 * later, win where they do not (-b).
 */
#include <dlfcn.h>
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(shmtrace_statedump, start, SHMTRACE_DEBUG)
SHMTRACE_EVENT(shmtrace_statedump, bin_info, SHMTRACE_DEBUG,
	SHMTRACE_PTR(base),
	SHMTRACE_PTR(low),
	SHMTRACE_PTR(high),
	SHMTRACE_STRING(path),
	SHMTRACE_SEQ(u8, build_id))
SHMTRACE_EVENT(shmtrace_statedump, end, SHMTRACE_DEBUG)
SHMTRACE_EVENT(shmtrace_proc, dlopen, SHMTRACE_DEBUG,
	SHMTRACE_STRING(path),
	SHMTRACE_S32(flags),
	SHMTRACE_PTR(base),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_proc, dlclose, SHMTRACE_DEBUG,
	SHMTRACE_PTR(base),
	SHMTRACE_S32(result),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_func, entry, SHMTRACE_DEBUG,
	SHMTRACE_PTR(addr),
	SHMTRACE_PTR(call_site))
SHMTRACE_EVENT(shmtrace_symtest, expect, SHMTRACE_INFO,
	SHMTRACE_STRING(what),
	SHMTRACE_PTR(addr))

static int bad_build_id, no_dump;
static char exe[PATH_MAX];
static int dummy_data = 1;

static void build_id_of(const struct dl_phdr_info *info, uint8_t *id,
			uint32_t *len)
{
	int i;

	*len = 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *p = (const unsigned char *)info->dlpi_addr +
					 ph->p_vaddr;
		size_t pos = 0, al = ph->p_align == 8 ? 8 : 4;

		if (ph->p_type != PT_NOTE)
			continue;
		while (ph->p_filesz - pos >= 12) {
			uint32_t nsz, dsz, type;

			memcpy(&nsz, p + pos, 4);
			memcpy(&dsz, p + pos + 4, 4);
			memcpy(&type, p + pos + 8, 4);
			pos += 12;
			if (type == NT_GNU_BUILD_ID && nsz == 4 && dsz <= 64 &&
			    !memcmp(p + pos, "GNU", 4)) {
				memcpy(id, p + pos + 4, dsz);
				*len = dsz;
				return;
			}
			pos += (nsz + al - 1) / al * al + (dsz + al - 1) / al * al;
			if (pos > ph->p_filesz)
				break;
		}
	}
}

static int dump_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *path = info->dlpi_name;
	uintptr_t low = UINTPTR_MAX, high = 0;
	uint8_t id[64];
	uint32_t id_len;
	int i;

	if (!path || !*path)
		path = exe;		/* the program itself */
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		if (a < low)
			low = a;
		if (a + ph->p_memsz > high)
			high = a + ph->p_memsz;
	}
	if (low >= high)
		return 0;
	build_id_of(info, id, &id_len);
	if (path == exe && bad_build_id && id_len)
		id[0] ^= 0xff;
	shmtrace(shmtrace_statedump, bin_info, (const void *)info->dlpi_addr,
		 (const void *)low, (const void *)high, path, id, id_len);
	return 0;
}

static void statedump(void)
{
	shmtrace(shmtrace_statedump, start);
	dl_iterate_phdr(dump_one, NULL);
	shmtrace(shmtrace_statedump, end);
}

/* The regular expression for a function of the program itself. */
static const char *own(const char *re)
{
	return bad_build_id || no_dump ? "" : re;
}

static void expect(const char *what, const void *addr)
{
	shmtrace(shmtrace_symtest, expect, what, addr);
}

__attribute__((noinline)) static unsigned sym_fib(unsigned n)
{
	shmtrace(shmtrace_func, entry, (const void *)sym_fib,
		 __builtin_return_address(0));
	return n < 2 ? n : sym_fib(n - 1) + sym_fib(n - 2);
}

__attribute__((noinline)) static void sym_leaf(void)
{
	shmtrace(shmtrace_func, entry, (const void *)sym_leaf,
		 __builtin_return_address(0));
}

__attribute__((noinline)) static void *load(const char *lib, int flags)
{
	struct link_map *lm = NULL;
	void *h = dlopen(lib, flags);

	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm) {
		fprintf(stderr, "sym-app: %s\n", dlerror());
		exit(1);
	}
	shmtrace(shmtrace_proc, dlopen, lib, flags, (const void *)lm->l_addr,
		 __builtin_return_address(0));
	return h;
}

__attribute__((noinline)) static void unload(void *h)
{
	struct link_map *lm = NULL;
	uintptr_t base;
	int rc;

	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm)
		exit(1);
	base = lm->l_addr;	/* dlclose() frees the link map */
	rc = dlclose(h);
	shmtrace(shmtrace_proc, dlclose, (const void *)base, rc,
		 __builtin_return_address(0));
}

int main(int argc, char **argv)
{
	int c;
	void *heap, *fn, *h;
	ssize_t n;

	while ((c = getopt(argc, argv, "bn")) != -1) {
		switch (c) {
		case 'b':
			bad_build_id = 1;
			break;
		case 'n':
			no_dump = 1;
			break;
		default:
			fprintf(stderr, "usage: sym-app [-b] [-n] [LIB]\n");
			return 1;
		}
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 1;
	exe[n] = 0;
	statedump();

	sym_fib(3);
	sym_leaf();
	expect(own("sym_fib"), (const void *)sym_fib);
	expect(own("sym_leaf[+]0x3"), (const char *)sym_leaf + 3);
	expect(own("main[+]0x[0-9a-f]+"), (const char *)main + 5);
	expect("", &dummy_data);		/* data, not code */
	heap = malloc(64);
	expect("", heap);			/* no object */
	expect("", NULL);
	fn = dlsym(RTLD_DEFAULT, "getpid");
	expect(no_dump ? "" : "_*getpid[+]0x1", (const char *)fn + 1);
	free(heap);

	if (optind < argc) {
		void (*emit)(unsigned int);

		h = load(argv[optind], RTLD_NOW | RTLD_LOCAL);
		statedump();
		*(void **)&emit = dlsym(h, "dl_emit");
		if (!emit) {
			fprintf(stderr, "sym-app: %s\n", dlerror());
			return 1;
		}
		expect("dl_emit", (const void *)emit);
		expect("dl_emit[+]0x1", (const char *)emit + 1);
		unload(h);
		expect("", (const void *)emit);	/* unloaded */
	}
	sym_leaf();
	return 0;
}
