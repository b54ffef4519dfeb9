/* SPDX-License-Identifier: MIT */
/*
 * symbols.h - resolve code addresses of a traced process to function names:
 * the ELF part of the reader library's symbol tables (symbolize.c builds
 * the public shmtrace_rd_sym_*() on it); internal to the library, and
 * used alone by its unit test and fuzz target.
 *
 * Three layers:
 *
 *  - struct sym_elf: the function symbols of one ELF object, as link-time
 *    addresses: a sorted array searched by bisection, plus the object's
 *    executable PT_LOAD segments. Built once from the object's file, its
 *    separate debug file when one is found, or an image in memory.
 *
 *  - struct sym_cache: every object file loaded so far, keyed by (path,
 *    build id recorded in the trace), shared by all processes; also a small
 *    direct-mapped cache of the last address lookups. Memory is bounded by
 *    the distinct files named in the trace, never by the number of events.
 *
 *  - struct sym_table: one per traced process, the objects mapped in it
 *    (base = load bias, [low, high) = the span of their PT_LOAD segments),
 *    fed by state dump and dlopen/dlclose events, and queried with
 *    sym_table_resolve().
 *
 * An ELF file is untrusted input: a damaged, truncated or foreign file just
 * yields no names. When the trace recorded a build id and the file on disk
 * has another one, the file's names are not used (only a debug file found
 * by the recorded build id can then provide them).
 *
 * Errors are negative errno values. Nothing here is thread-safe.
 */
#ifndef SHMTRACE_SYMBOLS_H
#define SHMTRACE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* Longest build id taken from a trace or a file (GNU ones are 8 to 20). */
#define SYM_BUILD_ID_MAX 64

/* Default root of separate debug files. */
#define SYM_DEBUG_DIR "/usr/lib/debug"

struct sym_elf;
struct sym_cache;
struct sym_table;

/* ---- one ELF object ------------------------------------------------------ */

/*
 * Parse the ELF image data[0..len) alone (no debug file is looked for):
 * its .symtab, else its .dynsym. 0 and *out, or -ENOEXEC (not a usable
 * ELF file), -ENOMEM. The image is not referenced once this returns.
 */
int sym_elf_from_mem(struct sym_elf **out, const void *data, size_t len);
void sym_elf_free(struct sym_elf *e);

/* Number of function symbols kept (aliases at one address count once). */
size_t sym_elf_func_count(const struct sym_elf *e);

/*
 * The function containing the link-time address @vaddr (the run-time
 * address minus the load bias): 1 with *name and *offset (from the
 * function's start) set, 0 when @vaddr is outside every executable
 * segment or no function covers it.
 */
int sym_elf_lookup(const struct sym_elf *e, uint64_t vaddr,
		   const char **name, uint64_t *offset);

/* Build id of the file the object was read from: its length, 0 if none. */
size_t sym_elf_build_id(const struct sym_elf *e, const uint8_t **id);

/*
 * Path of the file the names came from (the object itself or its debug
 * file), NULL for an image in memory or when there are no names.
 */
const char *sym_elf_names_path(const struct sym_elf *e);

/* 0 if the object gave names, else why not (-ENOENT, -ENOEXEC, -ESTALE...) */
int sym_elf_status(const struct sym_elf *e);

/* ---- files of all processes --------------------------------------------- */

struct sym_cache_config {
	/* root of separate debug files: NULL means SYM_DEBUG_DIR, "" none */
	const char *debug_dir;
	/* called once per file that cannot give names, with a message */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

int sym_cache_new(struct sym_cache **out, const struct sym_cache_config *cfg);
void sym_cache_free(struct sym_cache *c);

/*
 * The object at @path as recorded with @build_id (@id_len 0: none), loaded
 * on first use and cached: names from its debug file (found from the build
 * id under <debug_dir>/.build-id/, else from .gnu_debuglink in the object's
 * directory, its .debug/ subdirectory and <debug_dir>/<directory>/), else
 * from its .symtab, else its .dynsym. A file that gives no names yields an
 * object with no functions (sym_elf_status() says why). NULL only for bad
 * arguments, without memory, or once the cache holds its maximum number of
 * files (16384).
 */
const struct sym_elf *sym_cache_get(struct sym_cache *c, const char *path,
				    const uint8_t *build_id, size_t id_len);

struct sym_cache_stats {
	size_t files;		/* files loaded (a file is loaded once) */
	size_t funcs;		/* function symbols held, all files */
	size_t bytes;		/* memory held by the loaded files */
	uint64_t lookups;	/* sym_table_resolve() calls */
	uint64_t hits;		/* ... answered by the lookup cache */
};

void sym_cache_stats(const struct sym_cache *c, struct sym_cache_stats *st);

/* ---- objects of one process --------------------------------------------- */

struct sym_result {
	const char *path;	/* the object, as recorded */
	const char *name;	/* the function */
	uint64_t offset;	/* from the function's start */
};

int sym_table_new(struct sym_table **out, struct sym_cache *c);
void sym_table_free(struct sym_table *t);

/*
 * The object at @path is mapped with load bias @base over [low, high)
 * (absolute, high exclusive). low == high == 0: unknown, taken from the
 * file's PT_LOAD segments, and then an object already known at @base is
 * kept as it is (a dlopen event after the state dump that described it).
 * Objects overlapping the new one are dropped (their memory was reused).
 * Adding an object exactly as already known changes nothing.
 * 0, or -EINVAL (bad range or build id), -ENOENT (range unknown and the
 * file unusable), -ENOSPC (too many files or objects), -ENOMEM.
 */
int sym_table_add(struct sym_table *t, uint64_t base, uint64_t low,
		  uint64_t high, const char *path, const uint8_t *build_id,
		  size_t id_len);

/* Drop the object loaded at @base (dlclose). 0, or -ENOENT. */
int sym_table_remove(struct sym_table *t, uint64_t base);

size_t sym_table_count(const struct sym_table *t);

/*
 * Resolve the run-time address @addr: 1 and *res filled (its strings live
 * as long as the cache), 0 when @addr is in no executable segment of a
 * known object or no function covers it. Recent answers are cached.
 */
int sym_table_resolve(struct sym_table *t, uint64_t addr,
		      struct sym_result *res);

#endif /* SHMTRACE_SYMBOLS_H */
