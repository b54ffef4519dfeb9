/* SPDX-License-Identifier: MIT */
/*
 * exit-status.h - the exit statuses of tracectl and trace-read: one
 * scheme, which their manual pages state.
 *
 *	0	success
 *	1	runtime error: refused by the session daemon, unreachable,
 *		nothing found where a trace was named, an I/O error, out of
 *		memory
 *	2	bad command line: said, with the reason, before anything is done
 *	3	damaged trace: what could be read was printed or analysed, then
 *		the file and offset of the damage named
 */
#ifndef SHMTRACE_TOOLS_EXIT_STATUS_H
#define SHMTRACE_TOOLS_EXIT_STATUS_H

#include <errno.h>

#define EXIT_OK		0
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2
#define EXIT_DAMAGED	3

/*
 * The exit status of an error of the reader library (a negative errno of
 * shmtrace_rd_open() or shmtrace_rd_next()): what the trace's own bytes
 * cause is damage, the rest (missing paths, permissions, memory) is not.
 */
static inline int exit_of_read_error(int err)
{
	switch (err) {
	case -EINVAL:		/* malformed metadata */
	case -ENOTSUP:		/* metadata in a form not read */
	case -EFBIG:		/* metadata or a packet past the limits */
	case -EIO:		/* a bad LZ4 frame */
	case -EBADMSG:		/* a corrupt or truncated packet or event */
	case -ENODATA:		/* a stream file that shrank */
		return EXIT_DAMAGED;
	default:
		return EXIT_RUNTIME;
	}
}

#endif
