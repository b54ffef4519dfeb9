/* SPDX-License-Identifier: MIT */
/*
 * trigctl.h - tracectl add-trigger and wait-trigger, and how the records
 * of triggers and firings are printed (trigctl.c); list-triggers and
 * remove-trigger are plain requests (request.h).
 */
#ifndef SHMTRACE_TOOLS_TRIGCTL_H
#define SHMTRACE_TOOLS_TRIGCTL_H

#include <getopt.h>
#include <stdio.h>
#include "common/proto.h"
#include "jwrite.h"

struct verb;
struct rtree;

/* Their options, for the verb table. */
extern const struct option add_trigger_opts[];
#define ADD_TRIGGER_SHORTOPTS "s:f:h"
extern const struct option wait_trigger_opts[];
#define WAIT_TRIGGER_SHORTOPTS "h"

/* tracectl add-trigger ARGS, wait-trigger ARGS (@argv[0]: the verb): the exit status. */
int add_trigger_main(const struct verb *v, int argc, char **argv);
int wait_trigger_main(const struct verb *v, int argc, char **argv);

/* The triggers and the firing of a reply, as text (render.c). */
void trig_text(FILE *out, const char *cmd, const struct rtree *t);
/* ... as the members "triggers" and "firing" of its JSON document. */
void trig_json(struct jw *w, const char *cmd, const struct rtree *t);
/* One trigger, as an element of "triggers" (load's document too). */
void json_trigger(struct jw *w, const struct rec_trigger *t);
/* Its definition: the members "condition" and "action" (saved profiles too). */
void json_trigger_def(struct jw *w, const struct rec_trigger *t);

/* The words of actions, condition kinds (by CMD_ACT_*, CMD_TRIG_*) and rate policies (once-after: 1). */
extern const char *const trig_act_words[CMD_ACT_NOTIFY + 1];
extern const char *const trig_cond_words[CMD_TRIG_AGG + 1];
extern const char *const trig_policy_words[2];

#endif
