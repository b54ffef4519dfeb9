# SPDX-License-Identifier: MIT

INTEGRATION_TESTS = \
	tests/integration/basic.sh \
	tests/integration/replies.sh \
	tests/integration/late-daemon.sh \
	tests/integration/stop-flush.sh \
	tests/integration/kill-daemons.sh \
	tests/integration/dlopen.sh \
	tests/integration/bad-messages.sh \
	tests/integration/fd-ownership.sh \
	tests/integration/closefrom.sh \
	tests/integration/doorbell-taken.sh \
	tests/integration/fork-handlers.sh \
	tests/integration/markers.sh \
	tests/integration/fd-limit.sh \
	tests/integration/hostile-clients.sh \
	tests/integration/other-uid.sh \
	tests/integration/scribble.sh \
	tests/integration/tracectl-cli.sh \
	tests/integration/daemon-lifecycle.sh \
	tests/integration/clock.sh \
	tests/integration/signal-nesting.sh \
	tests/integration/consumer-stopped.sh \
	tests/integration/overwrite.sh \
	tests/integration/thread-churn.sh \
	tests/integration/reclaim.sh \
	tests/integration/buffer-memory.sh \
	tests/integration/buffer-budget.sh \
	tests/integration/fork-daemon-killed.sh \
	tests/integration/fork.sh \
	tests/integration/crash-kill.sh \
	tests/integration/crash-segv.sh \
	tests/integration/crash-abort.sh \
	tests/integration/crash-running.sh \
	tests/integration/idle-flush.sh \
	tests/integration/restart.sh \
	tests/integration/consumer-resume.sh \
	tests/integration/consumer-hung.sh \
	tests/integration/shutdown-queued.sh \
	tests/integration/sessiond-restart.sh \
	tests/integration/daemon-successor.sh \
	tests/integration/counters-bounded.sh \
	tests/integration/damaged-events.sh \
	tests/integration/output-symlink.sh \
	tests/integration/create-rules.sh \
	tests/integration/home-errors.sh \
	tests/integration/no-memory.sh \
	tests/integration/exec.sh \
	tests/integration/stalled-churn.sh \
	tests/integration/record.sh \
	tests/integration/preload-runpath.sh \
	tests/integration/read-latency.sh \
	tests/integration/read-profile.sh \
	tests/integration/read-chrome.sh \
	tests/integration/read-lz4.sh \
	tests/integration/read-compare.sh \
	tests/integration/read-lttng.sh \
	tests/integration/read-select.sh \
	tests/integration/loglevel.sh \
	tests/integration/sessions.sh \
	tests/integration/channels.sh \
	tests/integration/filter.sh \
	tests/integration/agg-basic.sh \
	tests/integration/agg-functions.sh \
	tests/integration/agg-crash.sh \
	tests/integration/agg-signal.sh \
	tests/integration/agg-plan.sh \
	tests/integration/record-aggregate.sh \
	tests/integration/man-pages.sh \
	tests/integration/completion.sh \
	tests/integration/status.sh \
	tests/integration/snapshot.sh \
	tests/integration/trigger-snapshot.sh \
	tests/integration/trigger-policy.sh \
	tests/integration/trigger-aggregation.sh \
	tests/integration/trigger-restart.sh \
	tests/integration/rotate.sh \
	tests/integration/context.sh \
	tests/integration/output-refused.sh \
	tests/integration/output-full.sh \
	tests/integration/output-removed.sh \
	tests/integration/record-reuse.sh \
	tests/integration/snapshot-read.sh \
	tests/integration/untraced.sh \
	tests/integration/record-daemon.sh \
	tests/integration/record-quick.sh \
	tests/integration/daemon-hangup.sh \
	tests/integration/allow-uid.sh \
	tests/integration/stream-relay.sh \
	tests/integration/stream-live.sh \
	tests/integration/stream-live-tail.sh \
	tests/integration/stream-live-late.sh \
	tests/integration/stream-live-idle.sh \
	tests/integration/stream-errors.sh \
	tests/integration/stream-faults.sh \
	tests/integration/stream-hosts.sh \
	tests/integration/stream-restart.sh \
	tests/integration/read-follow.sh \
	tests/integration/python.sh \
	tests/integration/trace-env.sh \
	tests/integration/python-read.sh \
	tests/integration/python-venv.sh \
	tests/integration/read-names.sh \
	tests/integration/list-events.sh \
	tests/integration/read-stats.sh \
	tests/integration/read-damage.sh \
	tests/integration/filter-depth.sh \
	tests/integration/ctl-timeout.sh \
	tests/integration/read-json-utf8.sh \
	tests/integration/notice-own.sh \
	tests/integration/signals-blocked.sh \
	tests/integration/signals-consumed.sh \
	tests/integration/stalled-start.sh \
	tests/integration/consumer-workers.sh \
	tests/integration/disable-channel.sh \
	tests/integration/exclusions.sh \
	tests/integration/regenerate.sh \
	tests/integration/track.sh \
	tests/integration/save-load.sh \
	tests/integration/memory-only.sh \
	tests/integration/memory-restart.sh \
	tests/integration/clear.sh \
	tests/integration/flight-recorder.sh \
	tests/integration/memory-verbs.sh
TESTS += $(INTEGRATION_TESTS)
dist_check_SCRIPTS += $(INTEGRATION_TESTS)
EXTRA_DIST += tests/integration/lib.sh tests/integration/json-get.py tests/integration/json-schema.py
EXTRA_DIST += tests/integration/lttng-lib.sh tests/integration/lttng-canon.awk \
	tests/integration/canon-lib.awk

# trace-read on a generated trace of several stream classes (context fields)
TESTS += tests/integration/read-context.sh
dist_check_SCRIPTS += tests/integration/read-context.sh
EXTRA_DIST += tests/integration/read-context-gen.py tests/integration/hostile-clients.py

# trace-read --aggregations on an aggregations.json written by hand (no daemon)
TESTS += tests/integration/read-aggregations.sh
dist_check_SCRIPTS += tests/integration/read-aggregations.sh

# trace-read against babeltrace2 on a corpus of damaged real traces
TESTS += tests/integration/read-fuzz.sh
dist_check_SCRIPTS += tests/integration/read-fuzz.sh
EXTRA_DIST += tests/integration/read-fuzz.py
EXTRA_DIST += tests/integration/stream-fake-relay.py
