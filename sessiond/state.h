/* SPDX-License-Identifier: MIT */
/*
 * state.h - the sessions kept in the home, for a daemon after us (state.c).
 */
#ifndef SHMTRACE_SESSIOND_STATE_H
#define SHMTRACE_SESSIOND_STATE_H

/* The sessions a daemon before us saved in @home: their number, or -errno (none taken). */
int state_load(const char *home);
/* The sessions saved in the home, after a change. */
void state_save(void);

#endif
