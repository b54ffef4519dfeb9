/* SPDX-License-Identifier: MIT */
/*
 * lttng-calls.c - a program for LTTng-UST's helpers, with no tracepoint of
 * its own: built with -finstrument-functions, so that under
 * liblttng-ust-cyg-profile(-fast).so every function entry and exit is an
 * event, and calling malloc, calloc, realloc and free, for
 * liblttng-ust-libc-wrapper.so. "lttng-calls N" makes N rounds: each calls
 * outer() once, which calls inner() 3 times; leaf() is called by inner()
 * twice. Prints "done" at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) int leaf(int x);
__attribute__((noinline)) int inner(int x);
__attribute__((noinline)) int outer(int x);

int leaf(int x)
{
	return x * 3 + 1;
}

int inner(int x)
{
	char *p = malloc(64);
	int r;

	if (!p)
		return 0;
	memset(p, x, 64);
	r = leaf(p[0]) + leaf(x);
	free(p);
	return r;
}

int outer(int x)
{
	int *a = calloc(4, sizeof(*a)), *b, r = 0;

	if (!a)
		return 0;
	b = realloc(a, 16 * sizeof(*a));
	if (!b) {
		free(a);
		return 0;
	}
	for (int i = 0; i < 3; i++)
		r += inner(x + i);
	free(b);
	return r;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	long sum = 0;

	for (long i = 0; i < n; i++)
		sum += outer((int)i);
	printf("done %ld\n", sum);
	return 0;
}
