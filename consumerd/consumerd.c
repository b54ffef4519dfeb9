/* SPDX-License-Identifier: MIT */
/*
 * trace-consumerd - the consumer daemon.
 *
 * Started by the session daemon with one end of a socket pair (--fd). It
 * receives channels, traced processes (their process page and wake socket),
 * event descriptions and buffer segments, maps the segments and writes
 * every committed packet to CTF stream files (stream.c).
 *
 * Waiting: the daemon never spins. While data flows it polls every 1 ms
 * (see loop()), so that writers make no system call; once idle for 50 ms,
 * before it sleeps it sets every process's consumer_sleeping flag, issues a
 * full barrier and checks all streams once more; writers that publish a
 * packet after that barrier see the flag and send a datagram on their
 * process's wake socket (see shm.h), which the daemon drains. A timer wakes the daemon for each channel's flush
 * interval, when the committed part of open packets is written too, so
 * idle threads' events reach the disk.
 *
 * Requests are served in order and each is answered once done: a FLUSH
 * reply means everything committed before it is in the files. When the
 * session daemon goes away, everything is drained and the daemon exits.
 *
 * Threads: this loop runs on the main thread, which alone changes the
 * registries (stream.h) and holds the RCU read lock except while it
 * sleeps; draining is done in rounds by the workers (worker.c), during
 * which the main thread changes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "aggr.h"
#include "seg.h"
#include "worker.h"
#include "home.h"
#include "log.h"
#include "tsc.h"
#include "util.h"

static int cd_fd = -1;
static int cd_epfd = -1;
static volatile sig_atomic_t cd_quit;

static void on_term(int sig)
{
	cd_quit = 1;
}

#define EP_CTL		((uint64_t)-1)

static void ep_add(int fd, uint64_t key, uint32_t flags)
{
	struct epoll_event ev = { .events = EPOLLIN | flags, .data.u64 = key };

	epoll_ctl(cd_epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Mark the channels whose flush interval is due; is there one? */
static int flush_due_mark(uint64_t now)
{
	struct cds_lfht_iter it;
	struct c_chan *ch;
	int any = 0;

	chan_for_each(&it, ch) {
		ch->flush_due = ch->flush_ms && now >= ch->next_flush;
		if (ch->flush_due)
			ch->next_flush = now + (uint64_t)ch->flush_ms * 1000000u;
		any |= ch->flush_due;
	}
	return any;
}

/*
 * Write out every stream, of processes asleep too, as @how says, all
 * workers at once; the committed part of open packets too for channels
 * whose flush interval is due.
 */
static int drain_all(enum drain how)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC);

	flush_due_mark(now);
	return wk_round(how, NULL, 1, now);
}

/*
 * Processes polled and asleep. A process is polled (its streams in the
 * workers' polled lists) while its streams give something, and for
 * ACTIVE_NS after; then, once everything complete of it is written, it is
 * put to sleep: consumer_sleeping set in its page, a full barrier, and a
 * last look at its streams (see shm.h); its writers then wake us with a
 * datagram when they publish a packet, and it is polled again. So a round
 * costs what the busy processes have, however many are idle, and only
 * their writers make a system call, once per packet while we sleep.
 */
#define ACTIVE_NS	50000000u

static CDS_LIST_HEAD(awake_apps);

/* Move every stream of @a to the polled or parked lists; -ENOMEM, none moved. */
static int app_park_streams(struct c_app *a, int parked)
{
	for (struct c_seg *s = a->segs; s; s = s->next)
		for (uint32_t i = 0; i < s->nslots; i++) {
			if (wk_stream_park(&s->streams[i], parked) == 0)
				continue;
			/* undo: each list has room for what it had */
			for (struct c_seg *u = a->segs; u; u = u->next)
				for (uint32_t k = 0; k < u->nslots; k++)
					wk_stream_park(&u->streams[k], !parked);
			return -ENOMEM;
		}
	return 0;
}

static void app_wake(struct c_app *a, uint64_t now)
{
	a->last_data = now;
	if (!a->asleep || app_park_streams(a, WK_POLLED) < 0)
		return;		/* (still asleep: its next packet wakes us again) */
	__atomic_store_n(&a->proc->consumer_sleeping, 0, __ATOMIC_RELAXED);
	a->asleep = 0;
	cds_list_add(&a->awake, &awake_apps);
}

static int app_pending(const struct c_app *a)
{
	for (const struct c_seg *s = a->segs; s; s = s->next)
		if (seg_pending(s))
			return 1;
	return 0;
}

static int app_drain(struct c_app *a)
{
	int written = 0;

	for (struct c_seg *s = a->segs; s; s = s->next)
		written += seg_drain(s, DRAIN_COMPLETE);
	return written;
}

/*
 * Put @a to sleep if nothing is left to write. Returns 1 when it wrote
 * more (it stays polled), 0 when it stays polled with something it cannot
 * write now (a relay that takes nothing), -1 when asleep.
 */
static int app_sleep(struct c_app *a)
{
	app_drain(a);
	__atomic_store_n(&a->proc->consumer_sleeping, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (app_pending(a) || app_park_streams(a, WK_PARKED) < 0) {
		__atomic_store_n(&a->proc->consumer_sleeping, 0, __ATOMIC_RELAXED);
		return app_drain(a) > 0;
	}
	a->asleep = 1;
	cds_list_del(&a->awake);
	return -1;
}

/*
 * Put the processes idle for ACTIVE_NS to sleep. Returns 1 if one is
 * busy (poll soon), else 0; *stuck tells that one stays polled with data
 * it cannot write now (look again in a while, do not spin).
 */
static int apps_sleep_idle(uint64_t now, int *stuck)
{
	struct c_app *a, *tmp;
	int busy = 0;

	*stuck = 0;
	cds_list_for_each_entry_safe(a, tmp, &awake_apps, awake) {
		int r;

		if (now - __atomic_load_n(&a->last_data, __ATOMIC_RELAXED) < ACTIVE_NS) {
			busy = 1;
			continue;
		}
		r = app_sleep(a);
		if (r > 0)
			a->last_data = now;
		busy |= r > 0;
		*stuck |= r == 0;
	}
	return busy;
}

/*
 * A traced process: its process page and wake socket. The same app id
 * again is the same process registering anew after it lost its
 * descriptors: its trace goes on, with the new page and socket (the
 * process copied its counters into the new page).
 */
static int handle_app_add(const struct msg_c_app *m, const int *fds)
{
	struct c_app *a = capp_find(m->app_id);
	struct stat st;
	void *proc;

	if (memfd_check(fds[0], SHM_PROC_SIZE) < 0 || fstat(fds[1], &st) < 0 ||
	    !S_ISSOCK(st.st_mode))
		goto bad;
	proc = mmap(NULL, SHM_PROC_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	if (proc == MAP_FAILED)
		goto bad;
	close(fds[0]);
	if (a) {
		struct shm_proc_page *old = a->proc;

		for (struct c_seg *s = a->segs; s; s = s->next)
			s->proc = proc;
		a->proc = proc;
		munmap(old, SHM_PROC_SIZE);
		epoll_ctl(cd_epfd, EPOLL_CTL_DEL, a->efd, NULL);
		close(a->efd);
		a->efd = fds[1];
		ep_add(a->efd, a->id, EPOLLET);
		if (!a->asleep)
			__atomic_store_n(&a->proc->consumer_sleeping, 0, __ATOMIC_RELAXED);
		app_wake(a, now_ns(CLOCK_MONOTONIC));
		log_info("%s[%u] registered again", a->procname, a->pid);
		return 0;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		munmap(proc, SHM_PROC_SIZE);
		goto bad;
	}
	a->id = m->app_id;
	a->pid = m->pid;
	a->clock = m->clock <= CLOCK_KIND_TSC ? m->clock : CLOCK_KIND_MONOTONIC;
	memcpy(a->procname, m->procname, sizeof(a->procname) - 1);
	a->proc = proc;
	/* a new process image's counts are all ours (a forked child's drops
	 * before its handler ran); else they start from here */
	if (!__atomic_exchange_n(&a->proc->nobuf_fresh, 0, __ATOMIC_RELAXED))
		for (unsigned int i = 0; i < SHM_MAX_CHAN; i++)
			capp_nobuf_start(a, i);
	a->efd = fds[1];
	ep_add(a->efd, a->id, EPOLLET);
	__atomic_store_n(&a->proc->consumer_sleeping, 0, __ATOMIC_RELAXED);
	a->last_data = now_ns(CLOCK_MONOTONIC);
	cds_list_add(&a->awake, &awake_apps);
	capp_insert(a);
	return 0;
bad:
	close(fds[0]);
	close(fds[1]);
	return -EINVAL;
}

/*
 * A process's wake socket: datagrams that only say "look". Drained with
 * MSG_DONTWAIT, which no flag the process sets on the shared open file can
 * turn into a blocking read; bounded, so a process that floods it costs a
 * few calls per wake-up.
 */
static void wake_drain(uint64_t app_id)
{
	struct c_app *a = capp_find(app_id);
	char buf[16];

	for (int i = 0; a && i < 64 && recv(a->efd, buf, sizeof(buf), MSG_DONTWAIT) >= 0; i++)
		;
	if (a)
		app_wake(a, now_ns(CLOCK_MONOTONIC));
}

static void handle_app_del(uint64_t id)
{
	struct c_app *a = capp_find(id);

	if (!a)
		return;
	epoll_ctl(cd_epfd, EPOLL_CTL_DEL, a->efd, NULL);
	cagg_app_gone(a->id);
	capp_free(a);
}

static int handle_chan_add(const struct msg_c_channel *m)
{
	struct c_relay *relay = m->relay_id ? net_find(m->relay_id) : NULL;
	struct cds_lfht_iter it;
	struct c_chan *ch;
	struct c_app *a;

	if (chan_find(m->chan_id) || m->chan_slot >= SHM_MAX_CHAN || m->compress > PROTO_COMPRESS_LZ4 ||
	    !memchr(m->name, 0, sizeof(m->name)) || !memchr(m->output, 0, sizeof(m->output)) ||
	    (m->relay_id ? !relay || m->compress : m->output[0] != '/') || !m->name[0] ||
	    strchr(m->name, '/'))
		return -EINVAL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	ch->id = m->chan_id;
	ch->slot = m->chan_slot;
	ch->flush_ms = m->flush_ms;
	ch->mode = m->mode;
	ch->compress = m->compress;
	ch->relay = relay;
	memcpy(ch->name, m->name, sizeof(ch->name));
	memcpy(ch->output, m->output, sizeof(ch->output));
	chan_insert(ch);
	capp_for_each(&it, a)
		capp_nobuf_start(a, ch->slot);
	return 0;
}

static void handle_chan_del(uint64_t id)
{
	struct c_chan *ch = chan_find(id);

	if (!ch)
		return;
	chan_drop(ch);
	chan_remove(ch);
}

static void handle_request(void)
{
	static uint64_t buf[PROTO_MAX_MSG / 8];
	struct proto_hdr h;
	int fds[PROTO_MAX_FDS];
	long n = proto_recv(cd_fd, buf, &h, fds, MSG_DONTWAIT);
	const struct msg_c_id *id = (const void *)buf;
	struct msg_c_stats st;
	struct c_app *a;
	int ret = 0;

	if (n == -EAGAIN)
		return;
	if (n < 0) {
		if (n != -ECONNRESET)
			log_err("malformed request from the session daemon");
		cd_quit = 1;
		return;
	}
	switch (h.type) {
	case MSG_C_CHANNEL_ADD:
		ret = handle_chan_add((const void *)buf);
		break;
	case MSG_C_CHANNEL_DEL:
		handle_chan_del(id->id);
		break;
	case MSG_C_FLUSH:
		chan_flush(id->id);
		break;
	case MSG_C_RELAY_ADD:
		ret = net_add((const void *)buf, fds);
		break;
	case MSG_C_RELAY_DEL:
		net_del(id->id);
		break;
	case MSG_C_RELAY_CHECK:
		ret = net_check(id->id);
		break;
	case MSG_C_APP_ADD:
		ret = handle_app_add((const void *)buf, fds);
		break;
	case MSG_C_APP_DEL:
		handle_app_del(id->id);
		break;
	case MSG_C_EVENTS:
		a = capp_find(((const struct msg_events *)(const void *)buf)->app_id);
		ret = a ? capp_add_events(a, (const char *)buf, (size_t)n) : -ENOENT;
		break;
	case MSG_C_SNAPSHOT: {
		const struct msg_c_snapshot *sn = (const void *)buf;

		drain_all(DRAIN_COMPLETE);
		ret = memchr(sn->output, 0, sizeof(sn->output)) ?
		      snapshot_chan(sn->chan_id, sn->output) : -EINVAL;
		break;
	}
	case MSG_C_ROTATE: {
		const struct msg_c_snapshot *sn = (const void *)buf;
		struct c_chan *ch = chan_find(sn->chan_id);

		ret = ch && memchr(sn->output, 0, sizeof(sn->output)) && sn->output[0] == '/' ?
		      rotate_output(ch->output, sn->output) : -EINVAL;
		break;
	}
	case MSG_C_AGG_ADD:
		ret = cagg_add((const void *)buf);
		break;
	case MSG_C_AGG_DEL:
		cagg_del(id->id);
		break;
	case MSG_C_AGG_SEG:
		ret = capp_find(((const struct msg_agg_seg *)(const void *)buf)->app_id) ?
		      cagg_seg((const void *)buf, fds[0]) : -ENOENT;
		close(fds[0]);
		break;
	case MSG_C_AGG_SHOW:
		ret = cagg_show((const void *)buf, fds[0]);
		close(fds[0]);
		break;
	case MSG_C_SEGMENT:
		a = capp_find(((const struct msg_segment *)(const void *)buf)->app_id);
		ret = a ? seg_add(a, (const void *)buf, fds[0]) : -ENOENT;
		close(fds[0]);
		break;
	case MSG_C_STATS:
		drain_all(DRAIN_COMPLETE);
		stats_chan(id->id, &st);
		proto_send(cd_fd, MSG_C_STATS_REPLY, 0, &st, sizeof(st), NULL, 0);
		return;
	default:
		for (int i = 0; i < proto_nfds(h.type); i++)
			close(fds[i]);
		ret = -EINVAL;
		break;
	}
	if (ret < 0)
		log_warn("request %u failed: %s", h.type, strerror(-ret));
	proto_send(cd_fd, MSG_REPLY, ret, NULL, 0, NULL, 0);
}

/* Milliseconds until the next channel flush is due (at most 1000). */
static int next_timeout(void)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), t = (uint64_t)net_timeout(1000);
	struct cds_lfht_iter it;
	struct c_chan *ch;

	chan_for_each(&it, ch) {
		uint64_t ms;

		if (!ch->flush_ms)
			continue;
		ms = ch->next_flush > now ? (ch->next_flush - now) / 1000000u + 1 : 0;
		if (ms < t)
			t = ms;
	}
	return (int)t;
}

/*
 * While a process's data flows, its streams are polled every POLL_NS
 * without telling its writers that we sleep, so that they never make a
 * system call to wake us, and a ring is written out when its writer pauses
 * or it is a quarter full (DRAIN_LAZY): the consumer then takes the CPU
 * from busy traced threads less often when they share the CPUs. Idle
 * processes sleep (apps_sleep_idle()); when all do, so does the consumer,
 * until a writer wakes it or a flush is due (then every stream is looked
 * at, those of processes asleep too).
 */
#define POLL_NS		200000

static void loop(void)
{
	struct epoll_event evs[64];

	while (!cd_quit) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		int n, stuck;

		wk_round(DRAIN_LAZY, NULL, flush_due_mark(now), now);
		net_tick();
		if (apps_sleep_idle(now, &stuck)) {
			struct timespec ts = { 0, POLL_NS };
			struct pollfd pfd = { .fd = cd_epfd, .events = POLLIN };

			urcu_memb_read_unlock();
			n = ppoll(&pfd, 1, &ts, NULL) > 0 ? epoll_wait(cd_epfd, evs, 64, 0) : 0;
			urcu_memb_read_lock();
		} else {
			int timeout = next_timeout();

			if (stuck && timeout > 100)
				timeout = 100;	/* could not write it: retry, do not spin */
			urcu_memb_read_unlock();
			n = epoll_wait(cd_epfd, evs, 64, timeout);
			urcu_memb_read_lock();
		}
		for (int i = 0; i < n; i++) {
			uint64_t key = evs[i].data.u64;

			if (key != EP_CTL && (key & NET_KEY)) {
				net_event(key, evs[i].events);
			} else if (key == EP_CTL) {
				if (evs[i].events & (EPOLLHUP | EPOLLERR) && !(evs[i].events & EPOLLIN))
					cd_quit = 1;
				else
					handle_request();
			}
			else
				wake_drain(key);
		}
	}
}

/*
 * Describe the trace clocks once, so that every trace this consumer writes
 * merges exactly with the others. Both clocks count from boot: their uuid
 * is the boot id (with the last digit changed for the TSC), as readers
 * merge traces only when their clocks have the same uuid.
 */
static void clocks_init(void)
{
	struct c_clock *m = &c_clocks[CLOCK_KIND_MONOTONIC], *t = &c_clocks[CLOCK_KIND_TSC];
	uint64_t off = now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC);
	struct tsc_calib cal;
	char boot[64];

	if (read_small("/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) >= 36) {
		memcpy(m->uuid, boot, 36);
	} else {
		uint8_t raw[16];

		uuid_make(raw, m->uuid);
	}
	strcpy(m->name, "monotonic");
	strcpy(m->desc, "CLOCK_MONOTONIC");
	m->freq = 1000000000u;
	m->offset_s = (int64_t)(off / 1000000000u);
	m->offset = off % 1000000000u;
	m->ok = 1;

	*t = *m;
	t->uuid[35] = t->uuid[35] == '0' ? '1' : '0';
	strcpy(t->name, "tsc");
	strcpy(t->desc, "TSC, calibrated against CLOCK_MONOTONIC");
	if (tsc_choose_clock() == CLOCK_KIND_TSC && tsc_calibrate(&cal, 50) == 0) {
		/* Epoch time of TSC value 0, in ns, split into seconds and ticks */
		long double zero = (long double)cal.real0_ns -
				   (long double)cal.tsc0 * 1e9L / (long double)cal.hz;
		int64_t secs = (int64_t)(zero / 1e9L);

		t->freq = cal.hz;
		t->offset_s = secs;
		t->offset = (uint64_t)((zero - (long double)secs * 1e9L) * (long double)cal.hz / 1e9L);
		log_info("TSC at %llu Hz", (unsigned long long)cal.hz);
	}
}

static void usage(FILE *out)
{
	fprintf(out, "usage: trace-consumerd --fd FD [--home DIR] [--workers N]\n"
		"The shmtrace consumer daemon; trace-sessiond starts it.\n"
		"  --workers N  threads that drain and compress (default: the CPUs this\n"
		"               process may run on, or $SHMTRACE_CONSUMER_WORKERS; 1: none,\n"
		"               the main thread drains)\n");
}

/* The CPUs we may run on. */
static unsigned int cpus_allowed(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (unsigned int)n : 1;
}

/* A worker count: 1 to WORKERS_MAX, or 0 if @s is not one. */
#define WORKERS_MAX	256

static unsigned int parse_workers(const char *s)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 10);
	return errno || end == s || *end || n < 1 || n > WORKERS_MAX || s[0] == '-' ?
	       0 : (unsigned int)n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fd", required_argument, NULL, 'f' },
		{ "home", required_argument, NULL, 'H' },
		{ "workers", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	char home[1024] = "", logpath[1100], pidpath[1100] = "";
	const char *env = getenv("SHMTRACE_CONSUMER_WORKERS");
	unsigned int workers = 0;
	long nofile;
	int c;

	while ((c = getopt_long(argc, argv, "f:H:w:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'f': cd_fd = atoi(optarg); break;
		case 'H': snprintf(home, sizeof(home), "%s", optarg); break;
		case 'w':
			workers = parse_workers(optarg);
			if (!workers) {
				fprintf(stderr, "trace-consumerd: --workers takes 1 to %d, not '%s'\n",
					WORKERS_MAX, optarg);
				return 1;
			}
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("trace-consumerd %s\n", PACKAGE_VERSION); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (cd_fd < 0 || optind != argc) {
		usage(stderr);
		return 1;
	}
	if (home[0] && home_path(logpath, sizeof(logpath), home, HOME_CLOG) == 0)
		log_init("trace-consumerd", logpath);
	else
		log_init("trace-consumerd", NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	/*
	 * Run ahead of the traced programs when allowed (a stall of the
	 * consumer longer than a buffer's worth of events means discards);
	 * without the privilege, stay as we are.
	 */
	if (setpriority(PRIO_PROCESS, 0, -10) < 0)
		log_dbg("cannot raise the consumer's priority: %s", strerror(errno));
	signal(SIGTERM, on_term);
	clocks_init();
	/* a descriptor per stream file and process: take all the kernel allows */
	nofile = nofile_raise();
	if (nofile < 0)
		log_dbg("cannot raise the descriptor limit: %s", strerror((int)-nofile));
	if (!workers && env && *env && !(workers = parse_workers(env)))
		log_warn("ignoring SHMTRACE_CONSUMER_WORKERS='%s': not 1 to %d", env, WORKERS_MAX);
	if (!workers)
		workers = cpus_allowed();
	urcu_memb_register_thread();
	if (registries_init() < 0) {
		log_err("out of memory");
		return 1;
	}
	wk_init(workers);
	urcu_memb_read_lock();
	if (home[0] && home_path(pidpath, sizeof(pidpath), home, HOME_CPID) == 0) {
		char num[32];
		int pfd = open(pidpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (pfd >= 0) {
			write_all(pfd, num, (size_t)snprintf(num, sizeof(num), "%d\n", (int)getpid()));
			close(pfd);
		}
	}
	cd_epfd = epoll_create1(EPOLL_CLOEXEC);
	ep_add(cd_fd, EP_CTL, 0);
	net_init(cd_epfd);
	log_info("started (%u workers at most)", workers > 1 ? workers : 0);
	loop();
	{
		struct cds_lfht_iter it;
		struct c_chan *ch;
		struct c_app *a;

		capp_for_each(&it, a)
			capp_free(a);
		chan_for_each(&it, ch)
			chan_remove(ch);
	}
	urcu_memb_read_unlock();
	wk_fini();
	registries_fini();
	if (pidpath[0])
		unlink(pidpath);
	log_info("exiting");
	return 0;
}
