/* SPDX-License-Identifier: MIT */
/*
 * noticetext.c - a notice in words (noticetext.h). Only reads the record:
 * its path had its control characters replaced when the daemon kept it.
 */
#include <inttypes.h>
#include <stdio.h>
#include "support/noticetext.h"

#define DROPS "the loader drops LD_PRELOAD"

const char *notice_kind_name(uint32_t kind)
{
	static const char *const names[NOTICE_MAX] = {
		[NOTICE_STATIC] = "static", [NOTICE_FOREIGN] = "foreign",
		[NOTICE_SETUID] = "setuid", [NOTICE_SETGID] = "setgid", [NOTICE_CAPS] = "caps",
		[NOTICE_IDS] = "ids", [NOTICE_NO_PRELOAD] = "no-preload",
		[NOTICE_EXEC_UID] = "exec-uid", [NOTICE_UID_CHANGE] = "uid-change",
	};

	return kind && kind < NOTICE_MAX ? names[kind] : "unknown";
}

void notice_words(const struct rec_notice *n, char *buf, size_t len)
{
	char times[48] = "", hint[96] = "", why[256];
	unsigned int me = n->daemon_uid;

	if (n->count > 1)
		snprintf(times, sizeof(times), " (%" PRIu64 " times)", n->count);
	if (me == 0)
		snprintf(hint, sizeof(hint), "; a session created with --allow-uid %u traces them",
			 n->uid);
	if (n->kind == NOTICE_UID_CHANGE) {
		snprintf(buf, len, "pid %u (%s) changed its uid from %u to %u: the processes it "
			 "starts and the programs it runs cannot reach this session daemon "
			 "(uid %u) and are not traced%s%s", n->pid, n->path, n->old_uid, n->uid,
			 me, hint, times);
		return;
	}
	switch (n->kind) {
	case NOTICE_STATIC:
		snprintf(why, sizeof(why), "statically linked, it cannot load libshmtrace");
		break;
	case NOTICE_FOREIGN:
		snprintf(why, sizeof(why), "not an x86-64 program, libshmtrace cannot load in it");
		break;
	case NOTICE_SETUID:
		snprintf(why, sizeof(why), "set-user-ID program (runs as uid %u), " DROPS, n->uid);
		break;
	case NOTICE_SETGID:
		snprintf(why, sizeof(why), "set-group-ID program, " DROPS);
		break;
	case NOTICE_CAPS:
		snprintf(why, sizeof(why), "program with file capabilities, " DROPS);
		break;
	case NOTICE_IDS:
		snprintf(why, sizeof(why), "the process's effective uid or gid is not its "
			 "real one, " DROPS);
		break;
	case NOTICE_NO_PRELOAD:
		snprintf(why, sizeof(why), "its environment has no libshmtrace in LD_PRELOAD");
		break;
	case NOTICE_EXEC_UID:
		snprintf(why, sizeof(why), "it runs as uid %u, which cannot reach this session "
			 "daemon (uid %u)%s", n->uid, me, hint);
		break;
	default:
		snprintf(why, sizeof(why), "notice of kind %u", n->kind);
		break;
	}
	snprintf(buf, len, "pid %u exec %s: not traced: %s%s", n->pid, n->path, why, times);
}
