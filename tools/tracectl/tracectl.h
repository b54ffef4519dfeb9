/* SPDX-License-Identifier: MIT */
/*
 * tracectl.h - tracectl's commands beside the verb table: record,
 * aggregate and show-aggregations (their usage lines and entry points).
 */
#ifndef SHMTRACE_TOOLS_TRACECTL_H
#define SHMTRACE_TOOLS_TRACECTL_H

#include <stddef.h>
#include <stdio.h>
#include "proto.h"

#define RECORD_USAGE \
	"record [--output DIR] [--preload libc,pthread,func,io|all] [--event PATTERN]...\n" \
	"         [--overwrite] [--pool-size N] [--context ip,cpu_id] [--no-wait] [--aggregate]\n" \
	"         [--allow-uid UID[,UID]...|all]\n" \
	"         [--set-url URL | --ctrl-url URL --data-url URL] [--live[=PERIOD]]\n" \
	"         [--timeout DURATION] [--] CMD [ARG]..."

#define AGG_USAGE \
	"aggregate [-s NAME] AGGREGATION EVENT_PATTERN [--filter EXPR] [--by FIELD[,FIELD]...]\n" \
	"         [--count] [--sum F] [--min F] [--max F] [--avg F] [--quantize F]\n" \
	"         [--lquantize F,LOW,HIGH,STEP] [--keys N] [--profile] [--timeout DURATION]"
#define SHOW_AGG_USAGE \
	"show-aggregations [-s NAME] [AGGREGATION] [--format text|json] [--interval TIME]\n" \
	"         [--timeout DURATION]"

/* tracectl aggregate / show-aggregations ARGS: argv[0] is the verb (aggctl.c). */
int agg_main(int argc, char **argv);

/* tracectl record ARGS: argv[0] is "record". Returns the exit status. */
int record_main(int argc, char **argv);

#endif
