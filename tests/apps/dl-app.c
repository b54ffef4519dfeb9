/* SPDX-License-Identifier: MIT */
/*
 * dl-app - emits an event of its own, then loads LIB with dlopen (its
 * events register while tracing is on), calls its dl_emit(COUNT), unloads
 * it and emits again.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(shmtrace_dlapp, step, SHMTRACE_INFO,
	SHMTRACE_STRING(what))

int main(int argc, char **argv)
{
	void (*emit)(unsigned int);
	void *h;

	if (argc != 3) {
		fprintf(stderr, "usage: dl-app LIB COUNT\n");
		return 1;
	}
	shmtrace(shmtrace_dlapp, step, "before dlopen");
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dl-app: %s\n", dlerror());
		return 1;
	}
	*(void **)&emit = dlsym(h, "dl_emit");
	if (!emit) {
		fprintf(stderr, "dl-app: %s\n", dlerror());
		return 1;
	}
	emit((unsigned int)atoi(argv[2]));
	dlclose(h);
	shmtrace(shmtrace_dlapp, step, "after dlclose");
	return 0;
}
