/* SPDX-License-Identifier: MIT */
/*
 * notice.h - why processes were not traced, as they tell (notice.c).
 */
#ifndef SHMTRACE_SESSIOND_NOTICE_H
#define SHMTRACE_SESSIOND_NOTICE_H

#include <stddef.h>
#include <stdint.h>
#include "session.h"

struct app;

/* A notice of a traced process (MSG_APP_NOTICE), kept by every active session. */
struct notice {
	uint32_t kind;			/* enum proto_notice */
	uint32_t pid;			/* the first process it was about */
	uint32_t uid;
	uint32_t old_uid;
	uint64_t count;			/* the same kind, uid and path again */
	char *path;			/* control characters replaced */
	struct notice *next;
};

/* MSG_APP_NOTICE from @a: 0 (kept, or refused and counted), -EPROTO when malformed. */
int app_notice(struct app *a, const char *body, size_t len);
void notices_free(struct session *s);
/* @n as @s keeps it (@s NULL: of no session), for a reply. */
void notice_record(const struct session *s, const struct notice *n, struct rec_notice *rn);

#endif
