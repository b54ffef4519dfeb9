#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# nginx.sh - a real server under the preloaded helpers: nginx (2 worker
# processes, a 1 KiB static page, no access log) answering ab's requests,
# untraced, under `tracectl record --preload libc,pthread`, under
# `tracectl record --preload all`, and with LTTng-UST 2.13's libc and
# pthread wrappers (and its fork helper, which a forking server needs)
# recording 'lttng_ust_libc:*' and 'lttng_ust_pthread:*'.
#
# Each repetition starts nginx once per configuration (the order is
# reversed every other repetition), waits until it answers, runs one
# untimed warm-up of ab (-n REQ/10), then ab -n REQ -c CONC -k, and stops
# nginx (SIGQUIT, by the pid it wrote). Printed: requests per second, the
# median over the repetitions, the ratio to untraced taken within each
# repetition, and what each tracer recorded: events, events per request,
# discarded, bytes per event on disk.
#
# usage: bench/nginx.sh [-r REPS] [-n REQ] [-c CONC] [-k] [--no-lttng]
#   -r REPS      repetitions (default 5)
#   -n REQ       requests per run (default 50000)
#   -c CONC      ab's concurrency (default 8)
#   -k           keep the work directory (traces, logs, raw results)
#   --no-lttng   untraced and shmtrace only
# Environment: SHMTRACE_BUILD (default <tree>/build), TMPDIR. nginx and
# ab (apache2-utils) are installed with apt-get when missing (as root).
#
# It is a benchmark, not a test: ab and the server share the machine's
# CPUs, so the figures are the whole machine's throughput.
set -euo pipefail
reps=5
events=50000
conc=8
use_lttng=1
name=nginx
bench_option() {
	case $1 in
	-c) [ $# -ge 2 ] && { conc=$2; bench_shift=2; } ;;
	--no-lttng) use_lttng=0; bench_shift=1 ;;
	esac
}
. "$(dirname "$0")/lib.sh" "$@"
case $reps in ''|*[!0-9]*|0) die "bad -r" ;; esac
case $events in ''|*[!0-9]*|0) die "bad -n" ;; esac
case $conc in ''|*[!0-9]*|0) die "bad -c" ;; esac
res=$work/results
: >"$res"
start_time=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
lttng_pre=liblttng-ust-libc-wrapper.so.1:liblttng-ust-pthread-wrapper.so.1:liblttng-ust-fork.so.1

apt_install() {	# apt_install PACKAGE...: as root only; its log in $work
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 0
	log "$name: installing $* with apt-get..."
	{ DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" ||
	  { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"; }; } \
		>>"$work/apt.log" 2>&1 || log "$name: apt-get failed (see $work/apt.log)"
}
export PATH=$PATH:/usr/sbin
command -v nginx >/dev/null && command -v ab >/dev/null || apt_install nginx-light apache2-utils
command -v nginx >/dev/null && command -v ab >/dev/null || die "nginx or ab is not installed"
have_lttng() {
	command -v lttng-sessiond >/dev/null && command -v babeltrace2 >/dev/null &&
		ldconfig -p 2>/dev/null | grep 'liblttng-ust-pthread-wrapper.so.1 ' >/dev/null
}
if [ "$use_lttng" = 1 ] && ! have_lttng; then
	apt_install liblttng-ust1 lttng-tools babeltrace2
	have_lttng || { log "$name: LTTng-UST is not installed: its column is n/a"; use_lttng=0; }
fi

# ---- the server ------------------------------------------------------------------

# a port nothing listens on
port=""
for p in $(shuf -i 20000-60000 -n 50); do
	(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { port=$p; break; }
done
[ -n "$port" ] || die "no free port found"
srv=$work/srv
mkdir -p "$srv/html" "$srv/tmp" "$srv/logs" "$work/log"
head -c 768 /dev/urandom | base64 -w 64 >"$srv/html/index.html"
{
	echo "worker_processes 2;"
	echo "daemon off;"
	echo "pid $srv/nginx.pid;"
	echo "error_log $srv/logs/error.log;"
	# workers of the user that traces them: as root, nginx would make them nobody's
	[ "$(id -u)" != 0 ] || echo "user root root;"
	echo "events { worker_connections 1024; }"
	echo "http {"
	echo "  access_log off;"
	for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $srv/tmp/$t;"; done
	echo "  server { listen 127.0.0.1:$port; root $srv/html; }"
	echo "}"
} >"$srv/nginx.conf"
url=http://127.0.0.1:$port/index.html
# nginx under a shell that prints, last, the CPU time of its reaped children (the
# master and, reaped by it, the workers) as its last line
ngx=(bash -c 'nginx -p "$1" -c "$1/nginx.conf"; st=$?; times; exit $st' nginx "$srv")
nginx -p "$srv" -c "$srv/nginx.conf" -t >"$work/log/nginx-t.log" 2>&1 || { cat "$work/log/nginx-t.log" >&2; die "nginx refuses its configuration"; }

# serve CONFIG CMD...: CMD (nginx, maybe under a tracer) in the background,
# ab against it, nginx stopped; files requests/s. Waits for CMD.
serve() {
	local c=$1 pid i rps fail
	shift
	rm -f "$srv/nginx.pid"
	"$@" >"$work/log/$c-$rep.out" 2>"$work/log/$c-$rep.err" &
	pid=$!
	for i in $(seq 200); do
		[ -s "$srv/nginx.pid" ] && ab -q -n 1 "$url" >/dev/null 2>&1 && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if ab -q -k -n $((events / 10)) -c "$conc" "$url" >/dev/null 2>&1 &&
	   ab -q -k -n "$events" -c "$conc" "$url" >"$work/log/$c-$rep.ab" 2>&1; then
		rps=$(awk '/^Requests per second:/ { print $4 }' "$work/log/$c-$rep.ab")
		fail=$(awk '/^(Failed|Non-2xx)/ { s += $NF } END { print s + 0 }' "$work/log/$c-$rep.ab")
		[ "$fail" = 0 ] || log "warning: $c: $fail requests failed"
		record "$c" rps "$rps"
	else
		log "$c: ab failed (repetition $rep):"
		tail -n 5 "$work/log/$c-$rep.ab" "$work/log/$c-$rep.err" >&2 || true
	fi
	[ -s "$srv/nginx.pid" ] && kill -QUIT "$(cat "$srv/nginx.pid")" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
	wait "$pid" || log "warning: $c exited with status $? (repetition $rep)"
	# the server's CPU time per request (user + system, the warm-up's included)
	record "$c" cpu_us "$(awk -v n=$((events + events / 10)) '/^[0-9]+m[0-9.]+s [0-9]+m[0-9.]+s$/ {
		split($1, u, /[ms]/); split($2, s, /[ms]/); t = u[1] * 60 + u[2] + s[1] * 60 + s[2] }
		END { if (t > 0) printf "%.2f", t * 1e6 / n }' "$work/log/$c-$rep.out")"
}

# the trace's figures: events, per request, discarded, bytes per event
trace_figures() {	# trace_figures CONFIG EVENTS DISCARDED DIR
	local b
	b=$(stream_bytes "$4")
	record "$1" events "$2"
	record "$1" per_req "$(awk -v e="$2" -v n=$((events + events / 10)) 'BEGIN { printf "%.2f", e / n }')"
	record "$1" discarded "$3"
	record "$1" bytes "$(awk -v b="$b" -v e="$2" 'BEGIN { if (e > 0) printf "%.2f", b / e }')"
}

shm_run() {	# shm_run CONFIG PRELOAD
	local out=$work/t-$1-$rep js
	serve "$1" "$T" record --format json --preload "$2" --output "$out" -- "${ngx[@]}"
	js=$(tail -n 1 "$work/log/$1-$rep.err")
	trace_figures "$1" \
		"$(printf '%s\n' "$js" | python3 -c 'import json,sys; print(json.load(sys.stdin)["trace"]["events"])')" \
		"$(printf '%s\n' "$js" | python3 -c 'import json,sys; s=json.load(sys.stdin)["summary"]
print(s["discarded"] + s["lost_without_buffer"] + s["lost_to_write_errors"])')" "$out"
	[ "$keep" = 1 ] || rm -rf "$out"
}

lttng_run() {
	local out=$work/t-lttng-$rep total dis
	lttng_daemons_start "$work/lttng-home" "$work/log/lttng-sessiond-$rep.log" ||
		{ log "lttng-sessiond does not start"; return 1; }
	{ lttng create s --output "$out" &&
	  lttng enable-event -u 'lttng_ust_libc:*,lttng_ust_pthread:*' &&
	  lttng start s; } >"$work/log/lttng-$rep.ctl" 2>&1 || { cat "$work/log/lttng-$rep.ctl" >&2; return 1; }
	serve lttng env LD_PRELOAD="$lttng_pre" LTTNG_UST_REGISTER_TIMEOUT=-1 "${ngx[@]}"
	lttng stop s >/dev/null 2>&1
	lttng destroy s >/dev/null 2>&1
	lttng_daemons_stop
	total=$(babeltrace2 "$out" 2>"$work/log/lttng-$rep.bt.err" | wc -l)
	dis=$(grep -o 'discarded [0-9]* events' "$work/log/lttng-$rep.bt.err" | awk '{ s += $2 } END { print s + 0 }')
	trace_figures lttng "$total" "$dis" "$out"
	[ "$keep" = 1 ] || rm -rf "$out"
}

# ---- run -------------------------------------------------------------------------

bench_daemons
kinds="untraced shm shm-all"
[ "$use_lttng" = 0 ] || kinds="$kinds lttng"
log "$name: $reps repetitions of $kinds (alternating order), ab -n $events -c $conc -k, port $port"
for rep in $(seq "$reps"); do
	order=$kinds
	[ $((rep % 2)) = 0 ] && order=$(echo "$kinds" | tr ' ' '\n' | tac | tr '\n' ' ')
	for k in $order; do
		case $k in
		untraced) serve untraced "${ngx[@]}" ;;
		shm) shm_run shm libc,pthread ;;
		shm-all) shm_run shm-all all ;;
		lttng) lttng_run || { log "$name: LTTng-UST not measured"; kinds=${kinds% lttng}; } ;;
		esac
	done
done

# ---- table ------------------------------------------------------------------------

label() {
	case $1 in
	untraced) echo "untraced" ;;
	shm) echo "shmtrace --preload libc,pthread" ;;
	shm-all) echo "shmtrace --preload all" ;;
	lttng) echo "lttng-ust libc+pthread wrappers" ;;
	esac
}
echo
echo "$name: nginx, 2 workers, ab -n $events -c $conc -k on $(nproc) CPUs; medians of $reps repetitions"
printf '%-32s %9s %15s %7s %8s %8s %9s %7s %9s %8s\n' "" "req/s" "min-max" "ratio" \
	"cpu_us" "added" "events" "ev/req" "discarded" "B/event"
for k in untraced shm shm-all lttng; do
	case " $kinds " in *" $k "*) ;; *) continue ;; esac
	printf '%-32s %9s %15s %7s %8s %8s %9s %7s %9s %8s\n' "$(label "$k")" \
		"$(fmt %.0f "$(med "$k" rps)")" "$(range "$k" rps)" \
		"$([ "$k" = untraced ] && echo 1 || fmt %.3f "$(medratio "$k" rps untraced rps)")" \
		"$(fmt %.2f "$(med "$k" cpu_us)")" \
		"$([ "$k" = untraced ] && echo - || fmt %.2f "$(medratio "$k" cpu_us untraced cpu_us -)")" \
		"$([ "$k" = untraced ] && echo - || fmt %.0f "$(med "$k" events)")" \
		"$([ "$k" = untraced ] && echo - || fmt %.2f "$(med "$k" per_req)")" \
		"$([ "$k" = untraced ] && echo - || fmt %.0f "$(sum "$k" discarded)")" \
		"$([ "$k" = untraced ] && echo - || fmt %.2f "$(med "$k" bytes)")"
done
echo "ratio: requests/s over untraced's, taken within each repetition, then the median;"
echo "cpu_us: the server's CPU time (user + system, master and workers) per request;"
echo "added: over untraced's, within each repetition, then the median;"
echo "events: the trace's events per run, ev/req: over the requests (warm-up included);"
echo "discarded: over all runs, lost without a buffer included."
echo "elapsed: $(( $(date +%s) - start_time )) s; load average at start: $load_start," \
	"at end: $(cut -d' ' -f1-3 /proc/loadavg)"
