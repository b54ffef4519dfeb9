/* SPDX-License-Identifier: MIT */
/*
 * app.h - the registry of traced processes (app.c).
 */
#ifndef SHMTRACE_SESSIOND_APP_H
#define SHMTRACE_SESSIOND_APP_H

#include <stdint.h>
#include <sys/types.h>
#include "htab.h"
#include "common/proto.h"
#include "seg.h"
#include "common/shm.h"

struct app_event {
	struct proto_event desc;
	int known;
};

/* app.bell_lost: why ctl_ring() did not send the doorbell, each said once */
#define APP_BELL_LOST		1	/* the handler is gone (changed behind our back) */
#define APP_BELL_BLOCKED	2	/* every thread blocked it, once at least */

/* stale markers of processes that are gone are looked for this often */
#define MARKER_SWEEP_MS	2000

struct app {
	uint64_t id;
	pid_t pid;
	uid_t uid;
	int sock;			/* -1 while detached; registered in the loop */
	int signo;
	uint32_t clock;
	uint64_t starttime;
	char procname[PROTO_PROCNAME];
	char *exe;			/* its executable (/proc/PID/exe at registration;
					 * "" unknown), for the sessions' tracking */
	uint64_t instance;		/* its process image (registration) */
	dev_t ctl_dev;			/* its control page's memfd */
	ino_t ctl_ino;
	int ctl_fd;
	int proc_fd;
	int wake_fd;		/* its wake socket, for the consumer */
	int pidfd;			/* -1, or (registered in the loop) while detached */
	int detached;			/* its connection closed while it runs */
	unsigned int reattached;	/* times it registered again */
	int bell_lost;			/* APP_BELL_*: what ctl_ring() found and logged */
	int blind;			/* taken over, its events not known yet: its
					 * control page is left as it is (ctl_update()) */
	struct shm_ctl_page *ctl;	/* read-write mapping */
	const struct shm_proc_page *proc; /* read-only mapping */
	struct app_event *ev;		/* indexed by event id */
	uint32_t nev;
	struct segs segs;		/* its buffer and aggregation segments (seg.c) */
	struct hnode by_pid;		/* in the table by pid, from registration to removal */
	struct app *next, **pprev;	/* the list of apps */
};

int apps_init(const char *home);
/* At exit: every app removed (the consumer told), those gone released. */
void apps_fini(void);
/* Every app, newest first. */
struct app *apps_list(void);
/* A registration (MSG_APP_REGISTER) on @fd: 0 (@fd is the app's, watched), or
 * -EPROTO (refused: its fds closed, @fd is the caller's). */
int app_accept(int fd, const void *body, size_t len, const int *fds);
/* A process the consumer we took over drains (MSG_C_ADOPT_APP): 0, or -errno (fds closed). */
int app_adopt(const struct msg_c_app *m, const int *fds);
/* The processes taken over: asked to register (a new control generation, the doorbell). */
void apps_adopted(void);
/* The ids of a consumer taken over: ours come after @max. */
void apps_ids_after(uint64_t max);
/* Take in everything processes sent so far (a command acts on every
 * segment created before it arrived). */
void apps_poll_all(void);
/* Every process's trigger firings read (firing.c): those whose wake-up was lost. */
void apps_firings(void);
/* @a's process is gone (or exec'd): the consumer drains it. */
void app_remove(struct app *a);
/* Every control page written again (ctl_update()). */
void apps_update_all(void);
/* The markers of processes a daemon started later must find: stale ones
 * removed; with @ring, the others rung. */
void apps_markers(int ring);
/* Every process's segments of @kind owned by @owner forgotten, those gone too. */
void apps_forget_segs(enum seg_kind kind, uint64_t owner);
/* Events committed in channel @chan_id's buffers not yet consumed (at most), in *@bufs buffers. */
uint64_t apps_pending(uint64_t chan_id, uint64_t *bufs);
/* A new consumer: every process, its events and segments; those gone told
 * gone. 0, or -EPIPE when that one died too. */
int apps_replay(void);
/* The application socket (allow.c): opened (0 or -errno) when a session
 * allows another uid; closed by app_socket_update() when none does. */
int app_socket_open(void);
void app_socket_update(void);

#endif
