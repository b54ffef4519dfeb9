/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the tracectl commands (cmd.c).
 */
#ifndef SHMTRACE_SESSIOND_CMD_H
#define SHMTRACE_SESSIOND_CMD_H

#include <stddef.h>

void cmd_init(const char *home);
/* A MSG_CMD on @fd: decoded, carried out, replied to, the state saved. Its status. */
int session_command(int fd, const char *body, size_t len);

#endif
