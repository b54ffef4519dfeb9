/* SPDX-License-Identifier: MIT */
/*
 * request.h - the tracectl verbs that are one request to the session
 * daemon (create, enable-channel, enable-event, start, status...): the
 * options they share, the functions that build each verb's body from the
 * parsed command line (named by the verb's entry of verbs.h), and the
 * verb's run.
 */
#ifndef SHMTRACE_TOOLS_REQUEST_H
#define SHMTRACE_TOOLS_REQUEST_H

#include <getopt.h>

struct ctl_req;
struct verb;

/* The options of every request verb; its entry's letters say which it takes. */
extern const struct option request_opts[];
#define REQUEST_SHORTOPTS ":s:o:c:f:t:x:hl"

/*
 * Each verb's body and strings from the parsed command line: 0, or
 * -EINVAL after a message (the command line is refused).
 */
int build_create(struct ctl_req *r);
int build_channel(struct ctl_req *r);
int build_events(struct ctl_req *r);		/* enable-event, disable-event */
int build_context(struct ctl_req *r);
int build_rotate(struct ctl_req *r);
int build_snapshot(struct ctl_req *r);
int build_names(struct ctl_req *r);		/* the positional arguments as strings */
int build_regenerate(struct ctl_req *r);
int build_track(struct ctl_req *r);		/* track, untrack */

/*
 * Parse the command line of @v (@argv[0]: its name), build its request
 * and send it; print the replies. --help and add-context --list print
 * and send nothing. Returns the exit status (exit-status.h).
 */
int request_main(const struct verb *v, int argc, char **argv);

#endif
