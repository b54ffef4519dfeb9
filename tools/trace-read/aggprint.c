// SPDX-License-Identifier: MIT
/*
 * aggprint.c - trace-read --aggregations (see aggprint.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/aggjson.h"
#include "aggprint.h"
#include "exit-status.h"
#include "support/json.h"
#include "output.h"
#include "profile.h"

#define AGG_FILE "aggregations.json"

/* The whole of @path into *@buf (malloc'd), at most JS_MAX_BYTES. 0 or -errno. */
static int read_file(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 16, n = 0;
	char *b = NULL;
	int rc = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t k;

		if (n == cap || !b) {
			char *nb;

			if (b)
				cap *= 2;
			if (cap > (size_t)JS_MAX_BYTES + 1)
				cap = (size_t)JS_MAX_BYTES + 1;
			nb = realloc(b, cap);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			b = nb;
		}
		if (n == cap) {
			rc = -EFBIG;
			break;
		}
		k = read(fd, b + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = -errno;
			break;
		}
		if (!k)
			break;
		n += (size_t)k;
	}
	close(fd);
	if (rc) {
		free(b);
		return rc;
	}
	*buf = b;
	*len = n;
	return 0;
}

/* A function profile (tracectl aggregate --profile, record --aggregate)? */
static bool agg_is_profile(const struct agg_view *v)
{
	if (v->def.nkeys != 2 || strcmp(v->names.key[0], "$ctx.vpid") ||
	    strcmp(v->names.key[1], "addr") ||
	    v->def.nfuncs != AGG_PROFILE_NSUMS)
		return false;
	for (unsigned int i = 0; i < v->def.nfuncs; i++)
		if (v->def.f[i].fn != AGG_SUM || !v->names.arg[i] ||
		    strcmp(v->names.arg[i], agg_profile_sums[i]))
			return false;
	return true;
}

/*
 * Symbol tables of the processes of the traces in @dir (their state
 * dumps), for the profiles' addresses, in *@syms with their reader *@r;
 * nothing (both NULL) when there is no trace.
 */
static void agg_syms(const char *dir, struct shmtrace_rd_reader **r,
		     struct shmtrace_rd_symbols **syms)
{
	const struct shmtrace_rd_event *ev;
	char err[SHMTRACE_RD_ERRLEN];

	*r = NULL;
	*syms = NULL;
	if (shmtrace_rd_open(r, &dir, 1, err, sizeof(err)) < 0) {
		*r = NULL;
		return;
	}
	if (shmtrace_rd_sym_open(syms, *r, NULL, out_warn, NULL) < 0) {
		shmtrace_rd_close(*r);
		*r = NULL;
		return;
	}
	while (shmtrace_rd_next(*r, &ev) > 0)
		shmtrace_rd_sym_track(*syms, ev);
}

/* The name of @addr in process @pid: from the last trace of that pid. */
static const char *agg_sym(const struct shmtrace_rd_reader *r, struct shmtrace_rd_symbols *syms,
			   int64_t pid, uint64_t addr, char *buf, size_t len)
{
	struct shmtrace_rd_symbol sym;

	if (!addr)
		return "(outside the functions followed)";
	for (size_t i = r ? shmtrace_rd_trace_count(r) : 0; i-- > 0;) {
		const struct shmtrace_rd_trace *t = shmtrace_rd_trace_at(r, i);

		if (shmtrace_rd_trace_vpid(t) != pid)
			continue;
		if (shmtrace_rd_sym_lookup(syms, t, addr, &sym)) {
			snprintf(buf, len, "%s", sym.name);
			return buf;
		}
		break;
	}
	snprintf(buf, len, "0x%" PRIx64, addr);
	return buf;
}

/* Print profile @v as --profile prints one, names from the traces in @dir. */
static int print_profile(struct agg_view *v, const char *dir)
{
	struct an_prof_row *rows = calloc(v->n + 1, sizeof(*rows));
	struct shmtrace_rd_reader *r = NULL;
	struct shmtrace_rd_symbols *syms = NULL;
	bool alloc = false;
	uint32_t n = 0;
	int rc = 0;

	if (!rows)
		return -ENOMEM;
	agg_syms(dir, &r, &syms);
	for (uint32_t i = 0; i < v->n && !rc; i++) {
		struct agg_ventry e;
		char buf[512];

		rc = agg_view_entry(v, i, &e);
		if (rc || !e.val[0].v)
			continue;	/* allocations outside every function: no call */
		rows[n].name = strdup(agg_sym(r, syms, e.key[0].i, (uint64_t)e.key[1].i, buf, sizeof(buf)));
		if (!rows[n].name) {
			rc = -ENOMEM;
			break;
		}
		rows[n].calls = (uint64_t)e.val[0].v;
		rows[n].total = (uint64_t)e.val[1].v;
		rows[n].self = (uint64_t)e.val[2].v;
		rows[n].bytes_self = (uint64_t)e.val[3].v;
		rows[n].bytes_total = (uint64_t)e.val[5].v;
		alloc |= e.val[4].v || e.val[6].v;
		n++;
	}
	if (!rc) {
		printf("%s: function profile (%" PRIu64 " updates, %" PRIu64 " keys dropped, %"
		       PRIu64 " lost, %" PRIu64 " tables torn)\n", v->names.name, v->updates,
		       v->dropped, v->lost, v->torn);
		an_profile_rows_print(stdout, rows, n, alloc);
	}
	for (uint32_t i = 0; i < n; i++)
		free((char *)rows[i].name);
	free(rows);
	shmtrace_rd_sym_close(syms);
	shmtrace_rd_close(r);
	return rc;
}

int aggprint(const char *path, bool json, const char *name, bool symbols)
{
	struct agg_json_doc *doc = NULL;
	struct agg_json_writer w;
	char *file = NULL, *text = NULL, *dir = NULL, err[256];
	struct stat st;
	size_t len = 0;
	uint32_t shown = 0;
	int rc, status = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "trace-read: %s: %s\n", path, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (S_ISDIR(st.st_mode)) {
		if (asprintf(&file, "%s/%s", path, AGG_FILE) < 0)
			goto nomem;
		if (stat(file, &st) < 0 && errno == ENOENT) {
			fprintf(stderr, "trace-read: %s has no " AGG_FILE " (the consumer writes "
				"it when the session stops)\n", path);
			free(file);
			return EXIT_RUNTIME;
		}
	} else {
		file = strdup(path);
		if (!file)
			goto nomem;
	}
	rc = read_file(file, &text, &len);
	if (rc == -EFBIG) {
		fprintf(stderr, "trace-read: %s: larger than %u MiB\n", file, JS_MAX_BYTES >> 20);
		status = EXIT_RUNTIME;
		goto out;
	}
	if (rc < 0) {
		fprintf(stderr, "trace-read: %s: %s\n", file, strerror(-rc));
		status = EXIT_RUNTIME;
		goto out;
	}
	rc = agg_json_read(&doc, text, len, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "trace-read: %s: %s\n", file, err);
		status = EXIT_DAMAGED;
		goto out;
	}
	for (uint32_t i = 0; i < agg_json_count(doc); i++)
		shown += !name || !strcmp(agg_json_view(doc, i)->names.name, name);
	if (name && !shown) {
		fprintf(stderr, "trace-read: %s: no aggregation named %s\n", file, name);
		status = EXIT_RUNTIME;
		goto out;
	}
	if (json)
		agg_json_begin(&w, stdout);
	else if (!shown)
		fprintf(stderr, "trace-read: %s: no aggregations\n", file);
	for (uint32_t i = 0; i < agg_json_count(doc) && !rc; i++) {
		struct agg_view *v = agg_json_view(doc, i);

		if (name && strcmp(v->names.name, name))
			continue;
		if (json)
			rc = agg_json_add_view(&w, v);
		else if (agg_is_profile(v) && symbols && (dir || (dir = strdup(file)) != NULL))
			rc = print_profile(v, dirname(dir));
		else
			rc = agg_view_text(stdout, v);
	}
	if (json && !rc)
		rc = agg_json_end(&w);
	if (rc == -ENOMEM)
		goto nomem;
	if (rc || fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "trace-read: write error: %s\n",
			strerror(rc && rc != -EIO ? -rc : errno ? errno : EIO));
		status = EXIT_RUNTIME;
	}
out:
	agg_json_free(doc);
	free(dir);
	free(text);
	free(file);
	return status;
nomem:
	fprintf(stderr, "trace-read: out of memory\n");
	status = EXIT_RUNTIME;
	goto out;
}
