/* SPDX-License-Identifier: MIT */
/*
 * verbs.c - the table of tracectl's verbs (see verbs.h): for each, its
 * usage line, its help, its options and what runs it; the order is that
 * of tracectl --help. A verb's options are what its parsing reads, and
 * tests/apps/verb-table prints them for the tests that check the usage
 * lines, the manual page and the bash completion against this table.
 */
#include <stddef.h>
#include <string.h>
#include "suggest.h"
#include "aggctl.h"
#include "profile.h"
#include "record.h"
#include "request.h"
#include "trigctl.h"
#include "verbs.h"
#include "view.h"

/* A verb that is one request, taking the options of request_opts in @l. */
#define REQUEST(l) \
	.longopts = request_opts, .shortopts = REQUEST_SHORTOPTS, .letters = (l), \
	.main = request_main

const struct verb verbs[] = {
	{
		.name = "create", .verb = VERB_CREATE,
		.usage = "create [NAME] [--output DIR] [--overwrite | --discard] [--snapshot]\n"
			 "         [--pool-size N] [--allow-uid UID[,UID]...|all]\n"
			 "         [--set-url net://HOST[:CTRL_PORT[:DATA_PORT]] | --ctrl-url URL --data-url URL]\n"
			 "         [--live[=PERIOD]]",
		.help = "Create a session. Its traces go to DIR (default\n"
			"$SHMTRACE_HOME/traces/NAME-DATE). NAME defaults to auto-DATE.\n"
			"DIR is refused, with the reason, unless a directory and a file can be\n"
			"written there (checked now, then removed: DIR appears with the first\n"
			"trace).\n"
			"--overwrite: flight recorder; when the buffers are full, the oldest\n"
			"data is overwritten instead of new events being discarded (--discard,\n"
			"the default).\n"
			"--snapshot: memory-only flight recorder: every channel overwrites, and\n"
			"nothing is written (DIR stays absent or empty) until `tracectl snapshot`\n"
			"copies what the buffers hold (into DIR/snapshot-N-DATE by default);\n"
			"the buffers of a process that exited are kept for snapshots for the\n"
			"channel's flush interval (default 1s). Not with --discard nor a relay.\n"
			"--pool-size N: buffers each traced process prepares at first for the\n"
			"session (one per thread alive at once; default 10; the pool grows).\n"
			"--allow-uid UID,...|all: processes of these users (uids or names) are\n"
			"traced by this session too, for instance a server that drops root or\n"
			"a program started with runuser. Only with a session daemon running as\n"
			"root; they register on a separate socket that takes registrations\n"
			"only, and the home, the traces and the control socket stay root's. By\n"
			"default nothing of another uid is traced, and `status` says which\n"
			"processes were not traced and why.\n"
			"--set-url net://HOST[:CTRL_PORT[:DATA_PORT]]: stream the traces to\n"
			"lttng-relayd on HOST (ports 5342 and 5343 by default; --ctrl-url and\n"
			"--data-url tcp://HOST:PORT name each); it stores them under\n"
			"HOST_NAME/NAME-DATE in its output directory. Refused at once when no\n"
			"relay answers. Nothing of shmtrace listens on the network.\n"
			"--live[=PERIOD]: a live session (PERIOD in microseconds as lttng's, or\n"
			"with a unit, e.g. 500ms; default 1s; relay\n"
			"on 127.0.0.1 unless given): viewers follow it while it runs, e.g.\n"
			"  babeltrace2 -i lttng-live net://HOST/host/HOST_NAME/NAME\n"
			"Streamed sessions have no chunks, snapshots nor compressed channels.",
		REQUEST("soODPUSKAIW"), .min_args = 0, .max_args = 0, .session_arg = 1,
		.build = build_create,
	},
	{
		.name = "enable-channel", .verb = VERB_ENABLE_CHANNEL,
		.usage = "enable-channel [-s NAME] CHANNEL [--subbuf-size SIZE] [--num-subbuf N]\n"
			 "         [--overwrite | --discard] [--flush-interval TIME] [--pool-size N]\n"
			 "         [--buffer-budget SIZE] [--compress lz4|none]",
		.help = "Create a channel in the session: its own buffers in every traced process\n"
			"and its own stream files. SIZE: bytes, or with k, M or G (default 512k, a\n"
			"whole number of pages); N: 2 to 64 sub-buffers (default 16); --overwrite: flight\n"
			"recorder (default --discard); TIME: the longest an idle thread's events\n"
			"wait before they reach the files, e.g. 200ms or 2s (default 1s, 0 never);\n"
			"--pool-size: buffers each process prepares (default 10, it grows);\n"
			"--buffer-budget SIZE: the most buffer memory a process may hold for the\n"
			"channel (default 1G, 128 of the default buffers; 0: no limit); past it\n"
			"a thread that finds every buffer taken records nothing until one is\n"
			"given back, its events counted as lost without a buffer (status);\n"
			"--compress lz4: stream files as LZ4 frames (lz4 -d gives plain CTF;\n"
			"default none).\n"
			"Events go to a channel with enable-event -c CHANNEL; without -c, to\n"
			"channel0, created with the session's defaults at its first use.\n"
			"A channel that disable-channel disabled is enabled again (its settings\n"
			"stay as they were).",
		REQUEST("sBNODFZPG"), .min_args = 1, .max_args = 1, .session_arg = 0,
		.build = build_channel,
	},
	{
		.name = "rotate", .verb = VERB_ROTATE,
		.usage = "rotate [NAME] [--size SIZE] [--every TIME]",
		.help = "Close the current chunk of the trace: everything recorded so far goes\n"
			"to OUTPUT/chunk-N (complete traces, readable on their own) and tracing\n"
			"goes on into a new chunk. With --size (bytes written, or with k, M, G) or\n"
			"--every (e.g. 30s, 500ms), rotate automatically from now on (0: off).\n"
			"Destroying a rotated session closes its last chunk too.",
		REQUEST("sRE"), .min_args = 0, .max_args = 0, .session_arg = 1,
		.build = build_rotate,
	},
	{
		.name = "snapshot", .verb = VERB_SNAPSHOT,
		.usage = "snapshot [NAME] [--output DIR] [--max-size SIZE]",
		.help = "Write what the session's buffers hold now (the newest events of every\n"
			"thread, contiguous up to now) as traces in DIR (default\n"
			"OUTPUT-snapshot-N-DATE, next to the session's output and not in it,\n"
			"so that reading OUTPUT reads each event once; for a memory-only\n"
			"session, OUTPUT/snapshot-N-DATE), without stopping tracing. Each\n"
			"process's snapshot is a trace of its own (its own uuid).\n"
			"--max-size SIZE: the snapshot's files hold at most SIZE bytes (k, M, G\n"
			"allowed): the newest packets across all threads, by time, so that it\n"
			"holds every event after some time and nothing older.\n"
			"Fails, making nothing, when no traced process has buffers (none\n"
			"alive, nor exited within the flush interval of a memory-only session),\n"
			"or when SIZE holds not even one thread's newest packet. Made for\n"
			"flight recorder sessions (create --snapshot, or --overwrite).",
		REQUEST("soM"), .min_args = 0, .max_args = 0, .session_arg = 1,
		.build = build_snapshot,
	},
	{
		.name = "clear", .verb = VERB_CLEAR,
		.usage = "clear [NAME]",
		.help = "Discard what the session recorded so far, and go on recording: the\n"
			"traces written in OUTPUT since the last rotation (the chunks of\n"
			"earlier rotations stay), or, for a memory-only session, what its\n"
			"buffers hold (the next snapshot holds only newer events). Events\n"
			"emitted while it runs are in the traces after it or counted as\n"
			"cleared; status says per channel how many events clear discarded.",
		REQUEST("s"), .min_args = 0, .max_args = 0, .session_arg = 1,
	},
	{
		.name = "destroy", .verb = VERB_DESTROY,
		.usage = "destroy [NAME]",
		.help = "Stop the session if active, write out everything recorded, and forget it;\n"
			"print its summary as stop does. When it stops the session, it fails as stop\n"
			"does on write errors.",
		REQUEST("s"), .min_args = 0, .max_args = 0, .session_arg = 1,
	},
	{
		.name = "enable-event", .verb = VERB_ENABLE_EVENT,
		.usage = "enable-event [-s NAME] [-c CHANNEL] [--loglevel LEVEL | --loglevel-only LEVEL]\n"
			 "         [--filter EXPR] [-x PATTERN[,PATTERN]...] PATTERN...",
		.help = "Record the events whose \"provider:event\" name matches a PATTERN\n"
			"('*' matches any characters; '\\' escapes).\n"
			"--loglevel LEVEL: only events of LEVEL or more severe; --loglevel-only\n"
			"LEVEL: only events of LEVEL. LEVEL: emerg alert crit err warning notice\n"
			"info debug, or 0 (emerg) to 7 (debug).\n"
			"--filter EXPR: only events whose fields satisfy EXPR, decided in the\n"
			"traced thread before anything is copied: comparisons of fields with\n"
			"numbers, strings (\"/tmp/*\" globs with == and !=) or other fields\n"
			"(== != < <= > >=), && || ! and parentheses (at most 256 of them and '!'\n"
			"around a condition), e.g.\n"
			"  'seq >= 500 && (thread == 1 || path == \"/var/*\")'\n"
			"A field the event lacks makes its comparison false; $ctx.cpu_id (or\n"
			"cpu_id), $ctx.vtid and $ctx.vpid name the emitting thread's CPU, thread\n"
			"and process.\n"
			"-x, --exclude PATTERN[,PATTERN]...: leave out the events these patterns\n"
			"match (repeatable; at most 16), e.g. enable-event 'app:*' -x 'app:noisy*';\n"
			"only with PATTERNs that have a '*'. Decided when the session daemon\n"
			"enables the events, never per event.\n"
			"Enabling a pattern again replaces its conditions and exclusions; an\n"
			"event that several patterns match is recorded when any of them keeps it.",
		REQUEST("scfLYx"), .min_args = 1, .max_args = 255, .session_arg = 0,
		.build = build_events,
	},
	{
		.name = "add-context", .verb = VERB_ADD_CONTEXT,
		.usage = "add-context [-s NAME] [-c CHANNEL] [--list] -t FIELD [-t FIELD]...",
		.help = "Add context fields to every event of CHANNEL (without -c, of every\n"
			"channel of the session, channel0 if there is none yet), recorded between\n"
			"the event header and its fields. Only before the session first starts.\n"
			"--list: the fields known (ip: address of the code that emitted the\n"
			"event; cpu_id: the CPU the thread ran on).",
		REQUEST("sctl"), .min_args = 0, .max_args = 255, .session_arg = 0,
		.build = build_context,
	},
	{
		.name = "disable-aggregation", .verb = VERB_DISABLE_AGG,
		.usage = "disable-aggregation [-s NAME] AGGREGATION...",
		.help = "Remove aggregations made with aggregate: their tables are forgotten\n"
			"(what they held is in aggregations.json of the last stop).",
		REQUEST("s"), .min_args = 1, .max_args = 255, .session_arg = 0,
		.build = build_names,
	},
	{
		.name = "disable-event", .verb = VERB_DISABLE_EVENT,
		.usage = "disable-event [-s NAME] [-c CHANNEL] PATTERN...",
		.help = "Remove PATTERNs previously enabled with enable-event.",
		REQUEST("sc"), .min_args = 1, .max_args = 255, .session_arg = 0,
		.build = build_events,
	},
	{
		.name = "disable-channel", .verb = VERB_DISABLE_CHANNEL,
		.usage = "disable-channel [-s NAME] CHANNEL...",
		.help = "Stop recording into CHANNELs: their patterns enable nothing from now\n"
			"on (each traced process sees it at its next event). They keep their\n"
			"settings, buffers and traces; enable-channel CHANNEL enables one again.",
		REQUEST("s"), .min_args = 1, .max_args = 255, .session_arg = 0,
		.build = build_names,
	},
	{
		.name = "start", .verb = VERB_START,
		.usage = "start [NAME]",
		.help = "Start recording.",
		REQUEST("s"), .min_args = 0, .max_args = 0, .session_arg = 1,
	},
	{
		.name = "stop", .verb = VERB_STOP,
		.usage = "stop [NAME]",
		.help = "Stop recording; when it returns, every event recorded is in the trace files.\n"
			"Prints a summary: events recorded, discarded, lost and overwritten, bytes\n"
			"written, and where the trace is. When some could not be written (no space\n"
			"left, I/O error, the directory removed...), it says how many events were\n"
			"lost and the first error (the file and the reason) and exits with status 1.",
		REQUEST("s"), .min_args = 0, .max_args = 0, .session_arg = 1,
	},
	{
		.name = "regenerate", .verb = VERB_REGENERATE,
		.usage = "regenerate statedump [-s NAME]",
		.help = "Have every process the session traces write its state dump again\n"
			"(shmtrace_statedump:start, a bin_info per loaded object, end), as at\n"
			"its start, into the channels that record shmtrace_statedump:*: for\n"
			"readers that start from a later point of the trace (a rotated chunk, a\n"
			"snapshot). Each process writes it before its next enabled event; a\n"
			"process that emits none writes none. The session must be active.",
		REQUEST("s"), .min_args = 1, .max_args = 1, .session_arg = 0,
		.build = build_regenerate,
	},
	{
		.name = "track", .verb = VERB_TRACK,
		.usage = "track [-s NAME] [--pid PID[,PID]...|all] [--uid UID[,UID]...|all]\n"
			 "         [--exe GLOB|all]... | --all",
		.help = "Record only the processes named, from now on: those registered (each\n"
			"process's events are enabled or not again) and those to come (decided\n"
			"when they register). By default a session records every process (of\n"
			"the uids it allows). Per kind, a set: --pid, the processes of these ids;\n"
			"--uid, of these users (uids or names); --exe, whose executable's path\n"
			"matches GLOB ('*' any characters, repeatable). A process is recorded\n"
			"when every kind takes it (--pid 10 --uid 1000: process 10 if it runs\n"
			"as 1000). The first value of a kind replaces its 'all'; the next ones\n"
			"are added. all (--pid all...): every process of that kind again; --all:\n"
			"of every kind, the default. status shows it.",
		REQUEST("spuea"), .min_args = 0, .max_args = 0, .session_arg = 0,
		.build = build_track,
	},
	{
		.name = "untrack", .verb = VERB_UNTRACK,
		.usage = "untrack [-s NAME] [--pid PID[,PID]...|all] [--uid UID[,UID]...|all]\n"
			 "         [--exe GLOB|all]... | --all",
		.help = "Take processes out of the sets of track: their events are no longer\n"
			"recorded by the session. A value that is not in its set is refused, as\n"
			"is one of a kind that tracks every process. all (--pid all...): none of\n"
			"that kind (an empty set: the session records nothing until track adds\n"
			"to it); --all: none of any kind.",
		REQUEST("spuea"), .min_args = 0, .max_args = 0, .session_arg = 0,
		.build = build_track,
	},
	{
		.name = "list", .verb = VERB_LIST,
		.usage = "list",
		.help = "List the sessions.",
		REQUEST(""), .min_args = 0, .max_args = 0, .session_arg = 0,
	},
	{
		.name = "list-events", .verb = VERB_LIST_EVENTS,
		.usage = "list-events",
		.help = "List the events of every registered process, with their fields.",
		REQUEST(""), .min_args = 0, .max_args = 0, .session_arg = 0,
	},
	{
		.name = "status", .verb = VERB_STATUS,
		.usage = "status [NAME]",
		.help = "Show sessions: state, output, channel, events enabled, processes,\n"
			"events recorded, discarded and lost to write errors, and the programs\n"
			"that were not traced and why (statically linked, set-user-ID, LD_PRELOAD\n"
			"removed from their environment, run as another user). Exits with status\n"
			"1 when traces could not be written, saying the first error.",
		REQUEST("s"), .min_args = 0, .max_args = 0, .session_arg = 1,
	},
	{
		.name = "save",
		.usage = "save [NAME...] [-o FILE]",
		.help = "Write the sessions named (every one without NAME) as a profile: what\n"
			"makes each (settings, channels, patterns with their filters, log levels\n"
			"and exclusions, context fields, aggregations, tracking, whether it is\n"
			"active), not what it recorded; JSON, doc/profile.md. To FILE (made\n"
			"whole or not at all), or to the standard output without -o (or -o -).",
		.longopts = save_opts, .shortopts = SAVE_SHORTOPTS, .main = save_main,
	},
	{
		.name = "load",
		.usage = "load FILE [--override-name NEW]",
		.help = "Make the sessions of a profile written by save (FILE, or - for the\n"
			"standard input): each as its commands would, started when it was\n"
			"active. The whole profile is checked first (one of a later version,\n"
			"or with a member this tracectl does not know, is refused); when the\n"
			"daemon refuses a step, every session the load made is destroyed again.\n"
			"--override-name NEW: the profile's one session is named NEW. A session\n"
			"whose output was given keeps it: it must not hold traces already.",
		.longopts = load_opts, .shortopts = LOAD_SHORTOPTS, .main = load_main,
	},
	{
		.name = "view",
		.usage = "view [NAME | -s NAME] [TRACE-READ OPTIONS]",
		.help = "Watch the session's events as they are recorded: trace-read --follow on\n"
			"its output (in time order, a flush interval late, until the session is\n"
			"stopped or destroyed; trace-read's output options apply, e.g.\n"
			"tracectl view s --format json). For a session streamed to a relay, says\n"
			"how to attach babeltrace2 to it; a memory-only session has nothing to follow.",
		.longopts = view_opts, .shortopts = VIEW_SHORTOPTS, .main = view_main,
	},
	{
		.name = "aggregate",
		.usage = "aggregate [-s NAME] AGGREGATION EVENT_PATTERN [--filter EXPR] [--by FIELD[,FIELD]...]\n"
			 "         [--count] [--sum F] [--min F] [--max F] [--avg F] [--quantize F]\n"
			 "         [--lquantize F,LOW,HIGH,STEP] [--keys N] [--profile] [--timeout DURATION]",
		.help = "Keep an aggregation of the events whose \"provider:event\" name matches\n"
			"EVENT_PATTERN, in every traced process, without writing the events: each\n"
			"thread updates its own table in shared memory (no lock, nothing in the\n"
			"ring buffers), merged when shown. Several functions at once; --count when\n"
			"none is given. F names a field of the event (or $ctx.vtid, $ctx.vpid,\n"
			"$ctx.cpu_id).\n"
			"--by FIELD[,FIELD]...: up to 4 keys, integers or strings (told by the\n"
			"events known now, or by FIELD:str / FIELD:int); strings keep 31 bytes.\n"
			"--count; --sum F; --min F; --max F; --avg F; --quantize F (power-of-two\n"
			"buckets, as DTrace); --lquantize F,LOW,HIGH,STEP (linear buckets from LOW\n"
			"to HIGH, and one below and one above).\n"
			"--filter EXPR: only events whose fields satisfy EXPR (as enable-event).\n"
			"--keys N: keys a thread's table holds (default 1024, fewer for large\n"
			"entries); a key that finds no room is counted as dropped and reported.\n"
			"--profile: per process and function, calls, total and self time and\n"
			"bytes allocated, from the func and libc preload helpers' events (what\n"
			"record --aggregate uses); no pattern, keys nor functions.\n"
			"Updates happen while the session is active; the events may be recorded\n"
			"too (enable-event). At stop, OUTPUT/aggregations.json holds them all.",
		.longopts = agg_opts, .shortopts = AGG_SHORTOPTS, .main = agg_main,
	},
	{
		.name = "show-aggregations",
		.usage = "show-aggregations [-s NAME] [AGGREGATION] [--format text|json] [--interval TIME]\n"
			 "         [--timeout DURATION]",
		.help = "Print the session's aggregations (or the one named), merged over every\n"
			"thread and process, exited and crashed ones included: as text (DTrace's\n"
			"style, histograms as rows of value, bar and count) or as JSON (an array,\n"
			"one object per aggregation; see trace-read --aggregations). With\n"
			"--interval TIME (e.g. 2s, 500ms), again every TIME until the session is gone.",
		.longopts = show_agg_opts, .shortopts = SHOW_AGG_SHORTOPTS, .main = show_agg_main,
	},
	{
		.name = "add-trigger",
		.usage = "add-trigger NAME --on-event PATTERN [--filter EXPR] [--rate-policy every:N | once-after:N]\n"
			 "         | --on-aggregation AGGREGATION [-s NAME] --when EXPR [--every TIME]\n"
			 "         --action snapshot-session SESSION | start-session SESSION | stop-session SESSION\n"
			 "         | rotate-session SESSION | notify",
		.help = "Act on its own when something happens, without a process switch on the\n"
			"fast path.\n"
			"--on-event PATTERN [--filter EXPR]: an event whose \"provider:event\" name\n"
			"matches PATTERN (and whose fields satisfy EXPR, as for enable-event),\n"
			"decided in the thread that emits it before anything is copied. The\n"
			"action sees the event: a snapshot holds it and what came before it.\n"
			"--rate-policy every:N (default every:1): at every N-th such event of a\n"
			"process; once-after:N: once, at the N-th (counted per process, exactly\n"
			"across its threads).\n"
			"--on-aggregation AGGREGATION --when EXPR: a condition on an\n"
			"aggregation's values (of session NAME, by default the only one), per\n"
			"key: STAT OP VALUE with STAT count, sum, min, max, avg or pNN (a\n"
			"percentile of its quantize or lquantize: true once every value of the\n"
			"percentile's bucket makes it true), OP > >= < <= == !=, VALUE a number\n"
			"or a duration (compared as nanoseconds), e.g. 'p99 > 5ms',\n"
			"'count > 1000'. Evaluated every TIME (--every, default 1s); it fires\n"
			"for a key when the condition becomes true for it (not while it stays\n"
			"true; again after it was false once).\n"
			"--action: snapshot-session SESSION (what its buffers hold, as snapshot\n"
			"does), start-session, stop-session, rotate-session SESSION, or notify\n"
			"(wait-trigger and the session daemon's log are told).\n"
			"Triggers belong to the session daemon, not to a session, and outlive\n"
			"its restarts.",
		.longopts = add_trigger_opts, .shortopts = ADD_TRIGGER_SHORTOPTS,
		.main = add_trigger_main,
	},
	{
		.name = "list-triggers", .verb = VERB_LIST_TRIGGERS,
		.usage = "list-triggers",
		.help = "List the triggers: their condition, action, and what they did (events\n"
			"that met the condition, firings acted on, failed, lost, the last one).",
		REQUEST(""), .min_args = 0, .max_args = 0, .session_arg = 0,
	},
	{
		.name = "remove-trigger", .verb = VERB_REMOVE_TRIGGER,
		.usage = "remove-trigger NAME...",
		.help = "Remove triggers: they fire no more (a wait-trigger waiting for one\n"
			"is told).",
		REQUEST(""), .min_args = 1, .max_args = 255, .session_arg = 0,
		.build = build_names,
	},
	{
		.name = "wait-trigger",
		.usage = "wait-trigger NAME [--timeout TIME]",
		.help = "Wait until the trigger fires, then print what fired: the trigger, the\n"
			"time, and for an event its process, thread and fields (for an\n"
			"aggregation, the key and the value). --timeout TIME: give up after TIME\n"
			"(exit status 1; default: wait as long as it takes).",
		.longopts = wait_trigger_opts, .shortopts = WAIT_TRIGGER_SHORTOPTS,
		.main = wait_trigger_main,
	},
	{
		.name = "record",
		.usage = "record [--output DIR] [--preload libc,pthread,func,io|all] [--event PATTERN]...\n"
			 "         [--overwrite] [--pool-size N] [--context ip,cpu_id] [--no-wait] [--aggregate]\n"
			 "         [--allow-uid UID[,UID]...|all]\n"
			 "         [--set-url URL | --ctrl-url URL --data-url URL] [--live[=PERIOD]]\n"
			 "         [--timeout DURATION] [--] CMD [ARG]...",
		.help = "Trace CMD and every process it starts, then print where the trace is\n"
			"and a summary on standard error. CMD's input, output and exit status\n"
			"pass through.\n"
			"--output DIR: the session's directory (default\n"
			"  $SHMTRACE_HOME/traces/record-CMD-PID-DATE).\n"
			"--preload LIST: helpers to preload, comma-separated: libc (malloc\n"
			"  family), pthread (mutexes, condition variables, threads), func\n"
			"  (-finstrument-functions), io (file descriptors), or all.\n"
			"--event PATTERN: record events matching PATTERN (repeatable); without\n"
			"  --event nor --preload every event is recorded.\n"
			"--context LIST: context fields of every event, comma-separated: ip\n"
			"  (address of the code that emitted it), cpu_id (the CPU).\n"
			"--overwrite, --pool-size N: as for create.\n"
			"--allow-uid UID,...|all: trace also the processes CMD starts that run\n"
			"  as these users (uids or names), as for create (session daemon running\n"
			"  as root only).\n"
			"--set-url net://HOST[:CTRL_PORT[:DATA_PORT]], --ctrl-url, --data-url,\n"
			"  --live[=PERIOD]: stream the trace to lttng-relayd, as for create\n"
			"  (not with --output); the summary then counts what was sent.\n"
			"--aggregate: with --preload func (and libc): a profile kept in the\n"
			"  processes instead of their call and allocation events: per function,\n"
			"  calls, total and self time, bytes allocated; printed when CMD exits\n"
			"  (also in DIR/aggregations.json, for trace-read --aggregations).\n"
			"--no-wait: when CMD exits, stop at once even if traced processes it\n"
			"  started still run (they are named on standard error). By default\n"
			"  tracing goes on until they exit (a program that daemonizes), or\n"
			"  until record is interrupted (SIGINT, SIGTERM, SIGHUP): the session\n"
			"  then stops and everything recorded is written out.\n"
			"--timeout DURATION: each request to the session daemon gives up when\n"
			"  it says nothing for that long (as for every command); CMD and the\n"
			"  processes it leaves are waited for as long as they run.\n"
			"--format json: the summary as one JSON document (doc/json.md), the last\n"
			"  line of standard error, instead of the text.\n"
			"The programs CMD runs wait up to 3 s at start-up for the session daemon\n"
			"to enable their events (SHMTRACE_REGISTER_TIMEOUT, when not set), so that\n"
			"their first events are recorded however busy the machine.\n"
			"The programs that were not traced are listed with the reason: CMD or\n"
			"what it runs being statically linked or set-user-ID, an environment\n"
			"without libshmtrace in LD_PRELOAD, a process running as another user.\n"
			"Exit status: CMD's (128 + N when killed by signal N); 125 when tracing\n"
			"failed: the output refused (it must be a directory we can write, and\n"
			"not an existing non-empty one: runs are never merged), or the trace is\n"
			"incomplete (write errors; the events lost are in the summary); CMD's own\n"
			"status is then on standard error (\"CMD exited with status N\"). 126 or\n"
			"127 when CMD cannot be run, 2 on bad usage.",
		.longopts = record_opts, .shortopts = RECORD_SHORTOPTS, .main = record_main,
	},
};

const size_t nverbs = sizeof(verbs) / sizeof(verbs[0]);

const struct verb *verb_find(const char *name)
{
	for (size_t i = 0; i < nverbs; i++)
		if (!strcmp(name, verbs[i].name))
			return &verbs[i];
	return NULL;
}

int verb_getopt(const struct verb *v, int argc, char **argv)
{
	struct option own[64];
	char shortopts[128];
	const char *arg, *hint;
	size_t n = 0;
	int c;

	opterr = 0;
	snprintf(shortopts, sizeof(shortopts), ":%s", v->shortopts);
	c = getopt_long(argc, argv, shortopts, v->longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	arg = argv[optind - 1];
	if (c == ':') {
		fprintf(stderr, "tracectl: %s: '%s' needs a value (see tracectl %s --help)\n",
			v->name, arg, v->name);
		return '?';
	}
	for (const struct option *o = v->longopts; o->name && n + 1 < 64; o++)
		if (verb_takes(v, o->val))
			own[n++] = *o;
	own[n] = (struct option){ 0 };
	hint = suggest_option(arg, own);
	if (hint)
		fprintf(stderr, "tracectl: %s: unknown option '%s'; did you mean '--%s'?\n",
			v->name, arg, hint);
	else
		fprintf(stderr, "tracectl: %s: unknown option '%s' (see tracectl %s --help)\n",
			v->name, arg, v->name);
	return '?';
}
