/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the tracectl commands (cmd.c).
 */
#ifndef SHMTRACE_SESSIOND_CMD_H
#define SHMTRACE_SESSIOND_CMD_H

#include <stddef.h>

struct session;

/* A handler kept the connection (wait-trigger): not answered yet, not to be closed. */
#define CMD_KEPT	1

void cmd_init(const char *home);
/*
 * A MSG_CMD on @fd: decoded, carried out, replied to, the state saved. Its
 * status, or CMD_KEPT: @fd is the handler's (trigger.c answers it later).
 */
int session_command(int fd, const char *body, size_t len);
/*
 * A trigger's action (trigger.c): VERB_SNAPSHOT, VERB_START, VERB_STOP or
 * VERB_ROTATE on @s, as the verb does it, answered to nobody; 0 or -errno,
 * the snapshot's or chunk's directory in @path.
 */
int cmd_action(unsigned int verb, struct session *s, char *path, size_t len);

#endif
