/* SPDX-License-Identifier: MIT */
/*
 * procev.c - the process's own events: its start (exec), fork, exit,
 * dlopen and dlclose, and the state dump of its loaded objects.
 *
 * State dump: shmtrace_statedump:start, one bin_info per loaded object
 * (load bias, address range of its PT_LOAD segments, path, GNU build id)
 * and end, so that readers can turn the addresses of a trace into
 * function names. It runs whenever bin_info becomes enabled in a channel
 * where it was not (a session starts), at start-up, in a forked child,
 * and for the objects that a dlopen brings in. It is written by whichever
 * thread notices first:
 *  - at start-up, in a forked child and in dlopen(), directly;
 *  - for a session that starts while the process runs, by the next thread
 *    that emits an enabled event and applies the new control page
 *    (shmtrace__resync(), see writer.c): it writes the dump before its
 *    own event, which then reads the clock again;
 *  - when the session daemon asks for it again (tracectl regenerate
 *    statedump: the control page's dump_req changed), the same way: the
 *    thread that first sees the new value (a compare-and-swap on sd_req)
 *    sets sd_force, and the next dump is whole whatever sd_seen says,
 *    written for every channel recording bin_info (the dump that takes
 *    sd_force is complete, be it this thread's or a dlopen's). No signal
 *    is involved: a process that blocks the doorbell writes it at its
 *    next enabled event too.
 * sd_seen holds the channels of bin_info already served: reg_apply()
 * clears the bits of channels where it is disabled (procev_applied(), any
 * context, lock-free), so a session stopped and started again gets a new
 * dump. sd_busy keeps one dump at a time; a thread that finds it taken
 * from a resynchronisation leaves the work to its holder, which looks
 * again before it lets go. sd_bases remembers the objects dumped, so a
 * dlopen dumps only what it loaded. Nothing here allocates memory.
 *
 * dlopen() and dlclose() are interposed (the library is loaded before
 * libc). The real dlopen() searches a bare file name along the DT_RUNPATH
 * or DT_RPATH of its caller, which is now this library: procev_dl_path()
 * does that search for the real caller first and passes a full path when
 * it finds the file there, unless an object of that name is already
 * loaded. fork() is interposed to say the child's pid in the parent's
 * trace; the child re-registers from the pthread_atfork handler
 * (control.c) before the wrapper returns in it.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib.h"

SHMTRACE_EVENT(shmtrace_proc, exec, SHMTRACE_INFO,
	SHMTRACE_STRING(path),
	SHMTRACE_S32(pid),
	SHMTRACE_S32(ppid))
SHMTRACE_EVENT(shmtrace_proc, fork, SHMTRACE_INFO,
	SHMTRACE_S32(parent_pid),
	SHMTRACE_S32(child_pid))
SHMTRACE_EVENT(shmtrace_proc, exit, SHMTRACE_INFO,
	SHMTRACE_S32(status))
SHMTRACE_EVENT(shmtrace_proc, dlopen, SHMTRACE_INFO,
	SHMTRACE_STRING(path),
	SHMTRACE_S32(flags),
	SHMTRACE_PTR(base),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_proc, dlclose, SHMTRACE_INFO,
	SHMTRACE_PTR(base),
	SHMTRACE_S32(result),
	SHMTRACE_PTR(caller))
SHMTRACE_EVENT(shmtrace_statedump, start, SHMTRACE_DEBUG)
SHMTRACE_EVENT(shmtrace_statedump, bin_info, SHMTRACE_DEBUG,
	SHMTRACE_PTR(base),
	SHMTRACE_PTR(low),
	SHMTRACE_PTR(high),
	SHMTRACE_STRING(path),
	SHMTRACE_SEQ(u8, build_id))
SHMTRACE_EVENT(shmtrace_statedump, end, SHMTRACE_DEBUG)

#define SD_MAX_BASES	1024
#define SD_BUILD_ID_MAX	64

static uint8_t sd_seen;			/* channels whose dump is written */
static uint32_t sd_req;			/* the control page's dump_req last seen */
static int sd_force;			/* ... changed: the next dump is whole */
static int sd_busy;
static int sd_again;			/* a dump was asked for while busy */
static uintptr_t sd_bases[SD_MAX_BASES];
static unsigned int sd_nbases;
static char sd_exe[1024];		/* the main program's path */

static void *(*real_dlopen)(const char *, int);
static int (*real_dlclose)(void *);
static pid_t (*real_fork)(void);

/* ---- state dump ------------------------------------------------------- */

static int sd_known(uintptr_t base)
{
	for (unsigned int i = 0; i < sd_nbases; i++)
		if (sd_bases[i] == base)
			return 1;
	return 0;
}

static void sd_forget(uintptr_t base)
{
	for (unsigned int i = 0; i < sd_nbases; i++) {
		if (sd_bases[i] == base) {
			sd_bases[i] = sd_bases[--sd_nbases];
			return;
		}
	}
}

/* The GNU build id in an object's notes, as mapped. */
static uint32_t sd_build_id(const struct dl_phdr_info *info, const uint8_t **id)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_filesz;
		while ((size_t)(end - p) >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *n = (const void *)p;
			size_t nsz = (n->n_namesz + 3u) & ~3u, dsz = (n->n_descsz + 3u) & ~3u;
			const char *name = p + sizeof(*n);

			if (nsz + dsz > (size_t)(end - name))
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && n->n_descsz <= SD_BUILD_ID_MAX) {
				*id = (const uint8_t *)name + nsz;
				return n->n_descsz;
			}
			p = name + nsz + dsz;
		}
	}
	*id = NULL;
	return 0;
}

static int sd_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	const int only_new = *(const int *)arg;
	uintptr_t low = UINTPTR_MAX, high = 0;
	const char *path = info->dlpi_name;
	const uint8_t *id;
	uint32_t idlen;

	(void)size;
	if (only_new && sd_known(info->dlpi_addr))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < low)
			low = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > high)
			high = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (high <= low)
		return 0;
	if (!path || !*path)
		path = sd_exe;
	idlen = sd_build_id(info, &id);
	shmtrace(shmtrace_statedump, bin_info, (const void *)info->dlpi_addr, (const void *)low,
		 (const void *)high, path, id, idlen);
	if (!sd_known(info->dlpi_addr) && sd_nbases < SD_MAX_BASES)
		sd_bases[sd_nbases++] = info->dlpi_addr;
	return 0;
}

/*
 * Dump the loaded objects: all of them, between start and end, when a
 * channel has not had its dump yet or unless @only_new; else those not
 * dumped yet (after a dlopen). Returns without waiting when another thread is
 * dumping and @may_skip: that thread looks again before it finishes.
 */
static void sd_run(int only_new, int may_skip)
{
	int expect = 0;

	for (;;) {
		if (__atomic_compare_exchange_n(&sd_busy, &expect, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			break;
		if (may_skip) {
			__atomic_store_n(&sd_again, 1, __ATOMIC_RELEASE);
			return;
		}
		expect = 0;
		sched_yield();
	}
	do {
		uint8_t want = (uint8_t)lib_ev_mask(&SHMTRACE__EV(shmtrace_statedump, bin_info));
		int force = __atomic_exchange_n(&sd_force, 0, __ATOMIC_ACQ_REL);
		int full = force || !only_new ||
			   (want & ~__atomic_load_n(&sd_seen, __ATOMIC_RELAXED));

		__atomic_store_n(&sd_again, 0, __ATOMIC_RELAXED);
		__atomic_or_fetch(&sd_seen, want, __ATOMIC_RELAXED);
		if (full)
			sd_nbases = 0;
		if (want) {
			int arg = !full;

			if (full)
				shmtrace(shmtrace_statedump, start);
			dl_iterate_phdr(sd_object, &arg);
			if (full)
				shmtrace(shmtrace_statedump, end);
		}
		only_new = 1;
	} while (__atomic_exchange_n(&sd_again, 0, __ATOMIC_ACQ_REL));
	__atomic_store_n(&sd_busy, 0, __ATOMIC_RELEASE);
}

/* After every reg_apply(): channels where bin_info went off need a new dump. */
void procev_applied(void)
{
	__atomic_and_fetch(&sd_seen,
			   (uint8_t)lib_ev_mask(&SHMTRACE__EV(shmtrace_statedump, bin_info)),
			   __ATOMIC_RELAXED);
}

/*
 * From shmtrace__resync(), inside the caller's event (nesting 1): write the
 * state dump a newly started session needs, as events of their own.
 * Returns 1 when it wrote something (the caller reads its clock again).
 */
int procev_resync(void)
{
	const struct shm_ctl_page *ctl = __atomic_load_n(&lib.ctl, __ATOMIC_ACQUIRE);
	uint8_t want = (uint8_t)lib_ev_mask(&SHMTRACE__EV(shmtrace_statedump, bin_info));
	uint32_t req = ctl ? __atomic_load_n(&ctl->dump_req, __ATOMIC_RELAXED) : 0;
	uint32_t seen = __atomic_load_n(&sd_req, __ATOMIC_RELAXED);

	/* asked again: one thread (the compare-and-swap) has it done */
	if (req != seen && __atomic_compare_exchange_n(&sd_req, &seen, req, 0, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		__atomic_store_n(&sd_force, 1, __ATOMIC_RELEASE);
	if (!(want & ~__atomic_load_n(&sd_seen, __ATOMIC_RELAXED)) &&
	    !(want && __atomic_load_n(&sd_force, __ATOMIC_ACQUIRE)))
		return 0;
	shmtrace__tls.nesting--;
	sd_run(0, 1);
	shmtrace__tls.nesting++;
	return 1;
}

/* ---- dlopen, dlclose, fork, exit ------------------------------------------ */

static const ElfW(Dyn) *dyn_find(const struct link_map *lm, ElfW(Sxword) tag)
{
	for (const ElfW(Dyn) *d = lm->l_ld; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == tag)
			return d;
	return NULL;
}

/* Does @dir (@len bytes, $ORIGIN expanded with @origin) hold @file? */
static int dl_try_dir(const char *dir, size_t len, const char *origin, const char *file,
		      char *out, size_t size)
{
	size_t n = 0, olen = strlen(origin);

	if (len >= 7 && !memcmp(dir, "$ORIGIN", 7) && (len == 7 || dir[7] == '/')) {
		if (olen >= size)
			return 0;
		memcpy(out, origin, olen);
		n = olen;
		dir += 7;
		len -= 7;
	} else if (len >= 9 && !memcmp(dir, "${ORIGIN}", 9) && (len == 9 || dir[9] == '/')) {
		if (olen >= size)
			return 0;
		memcpy(out, origin, olen);
		n = olen;
		dir += 9;
		len -= 9;
	}
	if (memchr(dir, '$', len) || n + len + strlen(file) + 2 > size)
		return 0;	/* $LIB, $PLATFORM: left to the loader */
	memcpy(out + n, dir, len);
	n += len;
	out[n++] = '/';
	strcpy(out + n, file);
	return n > 1 && access(out, F_OK) == 0;
}

/* Search the ':'-separated @list for @file. */
static int dl_search(const char *list, const char *origin, const char *file, char *out,
		     size_t size)
{
	while (list && *list) {
		const char *end = strchr(list, ':');
		size_t len = end ? (size_t)(end - list) : strlen(list);

		if (len && dl_try_dir(list, len, origin, file, out, size))
			return 1;
		list = end ? end + 1 : NULL;
	}
	return 0;
}

/*
 * The path the real dlopen() would find @file at for @caller, when it
 * depends on the caller's DT_RUNPATH or DT_RPATH; else @file itself.
 */
static const char *procev_dl_path(const char *file, const void *caller, char *out, size_t size)
{
	const ElfW(Dyn) *strtab, *runpath, *rpath;
	const char *origin = sd_exe, *base, *ldpath, *slash;
	char dir[1024];
	struct link_map *lm = NULL;
	Dl_info info;
	void *h;

	if (!file || strchr(file, '/') || !dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) ||
	    !lm)
		return file;
	strtab = dyn_find(lm, DT_STRTAB);
	runpath = dyn_find(lm, DT_RUNPATH);
	rpath = runpath ? NULL : dyn_find(lm, DT_RPATH);
	if (!strtab || (!runpath && !rpath))
		return file;
	/* an object of that name already loaded is what the loader returns */
	h = real_dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
	if (h) {
		real_dlclose(h);
		return file;
	}
	base = (const char *)strtab->d_un.d_ptr;
	if ((uintptr_t)base < lm->l_addr)
		base += lm->l_addr;	/* a dynamic section the loader did not relocate */
	if (lm->l_name && lm->l_name[0] && (slash = strrchr(lm->l_name, '/')) != NULL &&
	    (size_t)(slash - lm->l_name) < sizeof(dir)) {
		memcpy(dir, lm->l_name, (size_t)(slash - lm->l_name));
		dir[slash - lm->l_name] = 0;
		origin = dir;
	} else if (!lm->l_name || !lm->l_name[0]) {
		strcpy(dir, sd_exe);
		if ((slash = strrchr(dir, '/')) != NULL)
			*(char *)slash = 0;
		origin = dir;
	}
	ldpath = getenv("LD_LIBRARY_PATH");
	if (runpath ? dl_search(ldpath, origin, file, out, size) ||
		      dl_search(base + runpath->d_un.d_val, origin, file, out, size) :
		      dl_search(base + rpath->d_un.d_val, origin, file, out, size))
		return out;
	return file;
}

static void procev_resolve(void)
{
	if (!real_dlopen)
		real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	if (!real_dlclose)
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	if (!real_fork)
		real_fork = (pid_t (*)(void))dlsym(RTLD_NEXT, "fork");
}

SHMTRACE_API void *dlopen(const char *file, int mode)
{
	const void *caller = __builtin_return_address(0);
	struct link_map *lm = NULL;
	char path[4096];
	void *h;

	procev_resolve();
	if (!real_dlopen) {
		errno = ENOSYS;
		return NULL;
	}
	shmtrace__tls.nesting++;	/* our own look-ups are not the program's */
	file = procev_dl_path(file, caller, path, sizeof(path));
	shmtrace__tls.nesting--;
	h = real_dlopen(file, mode);
	if (!h || !file)
		return h;
	dlinfo(h, RTLD_DI_LINKMAP, &lm);
	shmtrace(shmtrace_proc, dlopen, file, mode, lm ? (const void *)lm->l_addr : NULL, caller);
	if (lib_ev_mask(&SHMTRACE__EV(shmtrace_statedump, bin_info)))
		sd_run(1, 0);
	return h;
}

SHMTRACE_API int dlclose(void *h)
{
	const void *caller = __builtin_return_address(0);
	struct link_map *lm = NULL;
	uintptr_t base;
	int ret;

	procev_resolve();
	if (!real_dlclose)
		return -1;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) < 0)
		lm = NULL;
	base = lm ? lm->l_addr : 0;	/* the link map may be freed by dlclose */
	ret = real_dlclose(h);
	if (lm) {
		int expect = 0;

		shmtrace(shmtrace_proc, dlclose, (const void *)base, ret, caller);
		/* loaded again, it is dumped again (when busy, a dump may repeat it) */
		if (__atomic_compare_exchange_n(&sd_busy, &expect, 1, 0, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			sd_forget(base);
			__atomic_store_n(&sd_busy, 0, __ATOMIC_RELEASE);
		}
	}
	return ret;
}

SHMTRACE_API pid_t fork(void)
{
	pid_t pid, parent = getpid();

	procev_resolve();
	if (!real_fork) {
		errno = ENOSYS;
		return -1;
	}
	pid = real_fork();
	if (pid > 0) {
		shmtrace(shmtrace_proc, fork, parent, pid);
	} else if (pid == 0) {
		shmtrace(shmtrace_proc, fork, parent, getpid());
		sd_run(1, 0);	/* a new trace: its dump, unless that event wrote it */
	}
	return pid;
}

static void procev_exit(int status, void *arg)
{
	(void)arg;
	shmtrace(shmtrace_proc, exit, status);
}

/* In a forked child (pthread_atfork): another thread of the parent may
 * have been dumping; the child's trace is new and needs a dump of its own. */
void procev_after_fork(void)
{
	__atomic_store_n(&sd_seen, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sd_force, 0, __ATOMIC_RELAXED);	/* the child dumps whole */
	sd_busy = 0;
	sd_again = 0;
}

/*
 * Start-up, after the library registered: our own events first (the
 * per-event constructors run later than this one), then the process's
 * start and its loaded objects.
 */
static void __attribute__((constructor(102))) procev_init(void)
{
	ssize_t n;

	shmtrace__tls.nesting++;
	n = readlink("/proc/self/exe", sd_exe, sizeof(sd_exe) - 1);
	sd_exe[n > 0 ? n : 0] = 0;
	procev_resolve();
	on_exit(procev_exit, NULL);
	shmtrace__tls.nesting--;
	shmtrace__module_init();
	shmtrace(shmtrace_proc, exec, sd_exe, (int32_t)getpid(), (int32_t)getppid());
	sd_run(1, 0);	/* unless that event wrote it */
}
