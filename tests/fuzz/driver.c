/* SPDX-License-Identifier: MIT */
/*
 * driver.c - run a libFuzzer target without libFuzzer, as a test.
 *
 *	fuzz-target [-n ITERATIONS] [-t SECONDS] [-s SEED] [PATH...]
 *
 * Every file named (or found in a directory named) is run through
 * LLVMFuzzerTestOneInput(), then ITERATIONS (default 50000) mutations of
 * them made with a seeded PRNG, so that every run is the same: all of
 * them, however long they take (a test must not cover less on a slow or
 * loaded machine). -t SECONDS stops the mutations early, for a quick run
 * by hand; the count done is printed. Without PATH, the seed
 * corpus is $srcdir/FUZZ_DRIVER_CORPUS (srcdir is set by `make check`;
 * each target may define its own, default tests/fuzz/corpus).
 * Finding no seed at all is an error, so that a broken setup cannot pass.
 *
 * A target of a text format (fuzz.h: fuzz_tokens) gets its tokens spliced
 * in instead of the mutations of a protocol message's header.
 *
 * When the target aborts or crashes, the input is written to
 * fuzz-crash-input in the current directory first, to be replayed with
 * `fuzz-target fuzz-crash-input` or a libFuzzer build.
 */
#ifndef FUZZ_DRIVER_CORPUS
#define FUZZ_DRIVER_CORPUS "tests/fuzz/corpus"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/proto.h"
#include "fuzz.h"

#define DRV_MAX_INPUT	(PROTO_MAX_MSG + 128)
#define MAX_SEEDS	1024
#define CRASH_FILE	"fuzz-crash-input"

struct input {
	uint8_t *data;
	size_t size;
	char *name;
};

static struct input seeds[MAX_SEEDS];
static size_t nseeds;

/* The input being run, for the crash handler. */
static const uint8_t *volatile cur_data;
static volatile size_t cur_size;

static void on_crash(int sig)
{
	int fd = open(CRASH_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	static const char msg[] = "fuzz driver: crashing input written to " CRASH_FILE "\n";

	if (fd >= 0) {
		const uint8_t *p = cur_data;
		size_t left = cur_size;

		while (p && left) {
			ssize_t n = write(fd, p, left);

			if (n <= 0)
				break;
			p += n;
			left -= (size_t)n;
		}
		close(fd);
		if (write(2, msg, sizeof(msg) - 1) < 0)
			sig = SIGKILL;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void run(const uint8_t *data, size_t size)
{
	cur_data = data;
	cur_size = size;
	LLVMFuzzerTestOneInput(data, size);
	cur_data = NULL;
}

static int add_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct input *in;
	size_t n;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (nseeds == MAX_SEEDS) {
		fclose(f);
		fprintf(stderr, "too many seeds\n");
		return -1;
	}
	in = &seeds[nseeds];
	in->data = malloc(DRV_MAX_INPUT);
	in->name = strdup(path);
	if (!in->data || !in->name) {
		fclose(f);
		return -1;
	}
	n = fread(in->data, 1, DRV_MAX_INPUT, f);
	fclose(f);
	in->size = n;
	nseeds++;
	return 0;
}

static int add_path(const char *path)
{
	struct dirent **ents;
	struct stat st;
	int n, ret = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return add_file(path);
	n = scandir(path, &ents, NULL, alphasort);	/* sorted: same order every run */
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char sub[4096];

		if (ents[i]->d_name[0] != '.' && ret == 0) {
			snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
			if (stat(sub, &st) == 0 && S_ISREG(st.st_mode))
				ret = add_file(sub);
		}
		free(ents[i]);
	}
	free(ents);
	return ret;
}

/* ---- deterministic mutations ------------------------------------------------ */

static uint64_t rng;

static uint64_t rnd(void)
{
	/* splitmix64 */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static const uint32_t interesting[] = {
	0, 1, 2, 3, 4, 7, 8, 12, 15, 16, 17, 31, 32, 63, 64, 72, 127, 128, 255, 256, 257,
	0x7fff, 0x8000, 0xffff, 0x10000, 0x100, 0x101, 0x108, 0x109, 0x10b,
	0x7fffffff, 0x80000000u, 0xffffffffu, PROTO_MAGIC, PROTO_MAX_MSG,
	PROTO_EVNAME_MAX, PROTO_FIELDNAME_MAX, PROTO_MAX_FIELDS,
};

static const uint16_t types[] = {
	MSG_APP_REGISTER, MSG_APP_EVENTS, MSG_APP_SEGMENT, MSG_CMD, MSG_C_CHANNEL_ADD,
	MSG_C_CHANNEL_DEL, MSG_C_FLUSH, MSG_C_APP_ADD, MSG_C_APP_DEL, MSG_C_EVENTS,
	MSG_C_SEGMENT, MSG_C_STATS, MSG_REPLY, MSG_REPLY_ITEM, MSG_C_STATS_REPLY, 0, 99,
};

/* A text target's token, at a random place. */
static void insert_token(uint8_t *d, size_t *size)
{
	size_t nt = 0, len, off, n = *size;
	const char *t;

	while (fuzz_tokens[nt])
		nt++;
	if (!nt)
		return;
	t = fuzz_tokens[below(nt)];
	len = strlen(t);
	if (n + len > DRV_MAX_INPUT)
		return;
	off = below(n + 1);
	memmove(d + off + len, d + off, n - off);
	memcpy(d + off, t, len);
	*size = n + len;
}

static void mutate_once(uint8_t *d, size_t *size)
{
	size_t n = *size, off, len;
	uint32_t v;

	switch (rnd() % 12) {
	case 0:		/* flip a bit */
		if (n)
			d[below(n)] ^= (uint8_t)(1u << (rnd() % 8));
		break;
	case 1:		/* random byte */
		if (n)
			d[below(n)] = (uint8_t)rnd();
		break;
	case 2:		/* interesting 8, 16 or 32-bit value */
		len = (size_t)1 << (rnd() % 3);
		if (n >= len) {
			v = interesting[below(sizeof(interesting) / sizeof(interesting[0]))];
			if (rnd() & 1)
				v = 0u - v;	/* the same bits, without a signed overflow */
			memcpy(d + below(n - len + 1), &v, len);
		}
		break;
	case 3:		/* insert random bytes */
		len = 1 + below(16);
		if (n + len <= DRV_MAX_INPUT) {
			off = below(n + 1);
			memmove(d + off + len, d + off, n - off);
			for (size_t i = 0; i < len; i++)
				d[off + i] = (uint8_t)rnd();
			n += len;
		}
		break;
	case 4:		/* delete a range */
		if (n) {
			off = below(n);
			len = 1 + below(n - off < 32 ? n - off : 32);
			memmove(d + off, d + off + len, n - off - len);
			n -= len;
		}
		break;
	case 5:		/* duplicate a range */
		if (n) {
			off = below(n);
			len = 1 + below(n - off < 64 ? n - off : 64);
			if (n + len <= DRV_MAX_INPUT) {
				size_t to = below(n + 1);
				uint8_t tmp[64];

				memcpy(tmp, d + off, len);
				memmove(d + to + len, d + to, n - to);
				memcpy(d + to, tmp, len);
				n += len;
			}
		}
		break;
	case 6:		/* truncate */
		n = below(n + 1);
		break;
	case 7: {	/* splice the tail of another seed */
		const struct input *o = &seeds[below(nseeds)];

		off = below(n + 1);
		len = o->size ? below(o->size) : 0;
		if (off + (o->size - len) <= DRV_MAX_INPUT) {
			memcpy(d + off, o->data + len, o->size - len);
			n = off + (o->size - len);
		}
		break;
	}
	case 8:		/* a message type */
		if (fuzz_tokens) {
			insert_token(d, &n);
			break;
		}
		if (n >= 8) {
			uint16_t t = types[below(sizeof(types) / sizeof(types[0]))];

			memcpy(d + 6, &t, 2);
		}
		break;
	case 9:		/* the status bits that choose the descriptor count */
		if (fuzz_tokens) {
			insert_token(d, &n);
			break;
		}
		if (n >= 16)
			d[14] ^= (uint8_t)(1u << (rnd() % 2));
		break;
	case 10:	/* a NUL or a non-identifier character */
		if (n)
			d[below(n)] = "\0:-_a9 \xff"[below(8)];
		break;
	default:	/* nothing here; the size fix below may apply */
		break;
	}
	*size = n;
}

static void mutate(uint8_t *d, size_t *size)
{
	int k = 1 + (int)below(4);

	for (int i = 0; i < k; i++)
		mutate_once(d, size);
	/* keep the header's size right most of the time, or little gets past it */
	if (!fuzz_tokens && *size >= 12 && rnd() % 4 != 0) {
		uint32_t s = (uint32_t)*size;

		memcpy(d + 8, &s, 4);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-n ITERATIONS] [-t SECONDS] [-s SEED] [PATH...]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long iterations = 50000, done = 0;
	double seconds = 0, t0;	/* 0: no time limit */
	uint8_t *buf;
	size_t size = 0;
	int opt;

	rng = 1;
	while ((opt = getopt(argc, argv, "n:t:s:h")) != -1) {
		switch (opt) {
		case 'n':
			iterations = strtoul(optarg, NULL, 0);
			break;
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		case 's':
			rng = strtoull(optarg, NULL, 0);
			break;
		default:
			usage(argv[0]);
		}
	}
	signal(SIGABRT, on_crash);
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGFPE, on_crash);
	signal(SIGILL, on_crash);
	signal(SIGPIPE, SIG_IGN);

	if (optind == argc) {
		const char *srcdir = getenv("srcdir");
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", srcdir ? srcdir : ".", FUZZ_DRIVER_CORPUS);
		if (add_path(path) < 0)
			return 1;
	}
	for (int i = optind; i < argc; i++)
		if (add_path(argv[i]) < 0)
			return 1;
	if (nseeds == 0) {
		fprintf(stderr, "no seed inputs found\n");
		return 1;
	}

	/* the empty input, then every seed as it is */
	run((const uint8_t *)"", 0);
	for (size_t i = 0; i < nseeds; i++)
		run(seeds[i].data, seeds[i].size);
	printf("%zu seeds ok\n", nseeds);

	buf = malloc(DRV_MAX_INPUT);
	if (!buf)
		return 1;
	t0 = now();
	for (done = 0; done < iterations; done++) {
		/* start over from a seed now and then, else stack mutations */
		if (done % 8 == 0) {
			const struct input *s = &seeds[below(nseeds)];

			memcpy(buf, s->data, s->size);
			size = s->size;
		}
		mutate(buf, &size);
		run(buf, size);
		if (seconds > 0 && done % 256 == 0 && now() - t0 > seconds) {
			done++;
			break;
		}
	}
	printf("%lu of %lu mutations ok in %.2f s\n", done, iterations, now() - t0);
	free(buf);
	for (size_t i = 0; i < nseeds; i++) {
		free(seeds[i].data);
		free(seeds[i].name);
	}
	return 0;
}
