/* SPDX-License-Identifier: MIT */
/* dl-lib - a shared library with events of its own, loaded with dlopen. */
#include <shmtrace/shmtrace.h>

SHMTRACE_EVENT(shmtrace_dl, hello, SHMTRACE_INFO,
	SHMTRACE_U32(i),
	SHMTRACE_STRING(who))

void dl_emit(unsigned int n);

__attribute__((visibility("default"))) void dl_emit(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		shmtrace(shmtrace_dl, hello, i, "dl-lib");
}
