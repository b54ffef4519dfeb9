/* SPDX-License-Identifier: MIT */
/*
 * trigger.h - triggers: their verbs, their firings acted on, the
 * aggregations' conditions evaluated, the clients waiting (trigger.c).
 */
#ifndef SHMTRACE_SESSIOND_TRIGGER_H
#define SHMTRACE_SESSIOND_TRIGGER_H

#include <stdio.h>
#include "common/proto.h"

struct reply;
struct js_doc;
struct js_node;

/* add-trigger: the trigger's record, or the failure in @r. */
int cmd_add_trigger(struct reply *r, const struct proto_cmd *c);
/* list-triggers: a record per trigger, oldest first. */
int cmd_list_triggers(struct reply *r);
/* remove-trigger NAME...: each one's record (removed); its waiters told. */
int cmd_remove_trigger(struct reply *r, const struct proto_cmd *c);
/* wait-trigger: CMD_KEPT (the connection waits for a firing), or the failure. */
int cmd_wait_trigger(struct reply *r, const struct cmd_wait_trigger *w);

/*
 * From the loop, between batches: the firings read from the processes
 * acted on, the aggregation triggers due evaluated, the waiters whose
 * time is up answered. 1 when something to save changed (state_save()).
 */
int trig_tick(void);
/* How long the loop may sleep before trig_tick() is due, at most @max ms (-1: any). */
int trig_wait_ms(int max);
/* At start: the firings of a process that goes are acted on at once (firing.c). */
void trig_init(void);
/* The daemon stops: every waiter told so. */
void trig_shutdown(void);

/*
 * 1 when a count or a firing changed out of trig_tick() (a process went, a
 * command read its firings) and the state was not saved since: a command
 * that changes nothing saves it then, before its reply.
 */
int trig_unsaved(void);
/* state.c: the triggers as "triggers":[...], (a member and its comma). */
void trig_state_save(FILE *f);
/* state.c: the triggers of the saved state; NULL, or the member that is wrong. */
const char *trig_state_load(const struct js_doc *doc, const struct js_node *root);

#endif
