// SPDX-License-Identifier: MIT
/*
 * wake.h - processes polled and asleep, and their wake sockets (wake.c).
 */
#ifndef SHMTRACE_CONSUMERD_WAKE_H
#define SHMTRACE_CONSUMERD_WAKE_H

#include <stdint.h>

struct c_app;

/* The epoll set that watches the wake sockets; keys are the app ids. */
void wake_init(int epfd);
/* A new process @a, with its wake socket @wake_fd: watched, polled from @now. */
void wake_start(struct c_app *a, int wake_fd, uint64_t now);
/* @a registered again with a new page and wake socket @wake_fd: polled from @now. */
void wake_renew(struct c_app *a, int wake_fd, uint64_t now);
/* @a ends: no longer polled, its wake socket closed. */
void wake_stop(struct c_app *a);
/* Datagrams on the wake socket of process @app_id: polled again. */
void wake_socket(uint64_t app_id);
/*
 * Put the processes idle for a while to sleep. Returns 1 if one is busy
 * (poll soon), else 0; *stuck tells that one stays polled with data it
 * cannot write now (look again in a while, do not spin).
 */
int wake_sleep_idle(uint64_t now, int *stuck);

#endif
