// SPDX-License-Identifier: MIT
/*
 * jvmmap — a HotSpot JVM asked to write its perf map; see jvmmap.h.
 */
#include "jvmmap.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"

#define JVMMAP_PROCS 16
#define JVMMAP_POLL_NS 50000000L /* the listener's socket looked for */
#define JVMMAP_SOON_S 0.5 /* a JVM not ready yet: asked again after */

/* A process asked: what the asking thread found is read on the
 * caller's, under lock. */
struct ask {
	pid_t pid; /* 0: a free slot */
	double at; /* when last asked (CLOCK_MONOTONIC s); 0: never */
	bool running; /* a thread is asking it */
	int err; /* the last request's end: 0 or -errno */
	bool done; /* err is that of a finished request not yet said */
	bool never; /* it cannot answer: not asked again */
	bool soon; /* it was not ready (starting): asked again soon */
	char made[96]; /* the perf map probetop's request made it write
			  (none there before), removed by jvmmap_clean() */
};

static struct ask asks[JVMMAP_PROCS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool closing; /* jvmmap_clean() left a request under way: the
			map it makes goes at its end */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool jvmmap_is_jvm(const struct proc_maps *maps)
{
	for (size_t i = 0; maps && i < maps->n; i++) {
		const char *p = maps->maps[i].path;
		size_t n = p ? strlen(p) : 0;

		if (n >= 10 && !strcmp(p + n - 10, "/libjvm.so"))
			return true;
	}
	return false;
}

static bool is_socket(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISSOCK(st.st_mode);
}

/* Make the file that tells pid's JVM, at a SIGQUIT, to start its attach
 * listener: in its working directory, else its /tmp. Its path into
 * out[0..n); 0 or -errno. */
static int make_trigger(pid_t pid, pid_t ns, char *out, size_t n)
{
	static const char *const WHERE[] = { "cwd", "root/tmp" };
	int fd = -1;

	for (size_t i = 0; i < 2 && fd < 0; i++) {
		snprintf(out, n, "/proc/%d/%s/.attach_pid%d", (int)pid,
			 WHERE[i], (int)ns);
		fd = open(out, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			  0600);
	}
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Whether pid was started with -Xrs (its JVM leaves SIGQUIT alone). */
static bool reduces_signals(pid_t pid)
{
	char args[4096];
	size_t n;

	if (proc_cmdline(pid, args + 1, sizeof(args) - 2))
		return false;
	args[0] = ' '; /* " ARG ARG ... " */
	n = strlen(args);
	args[n] = ' ';
	args[n + 1] = '\0';
	return strstr(args, " -Xrs ") != NULL;
}

/* pid's attach listener running at sock: started if need be. 0, or
 * -ENOTSUP (it leaves SIGQUIT alone: -Xrs), -EAGAIN (it handles no
 * SIGQUIT yet: starting), -ETIMEDOUT, -errno. */
static int start_listener(pid_t pid, pid_t ns, const char *sock)
{
	const struct timespec poll = { 0, JVMMAP_POLL_NS };
	char trigger[128];
	int err;

	if (is_socket(sock))
		return 0;
	if (!proc_catches(pid, SIGQUIT))
		return reduces_signals(pid) ? -ENOTSUP : -EAGAIN;
	err = make_trigger(pid, ns, trigger, sizeof(trigger));
	if (err)
		return err;
	err = kill(pid, SIGQUIT) ? -errno : -ETIMEDOUT;
	for (double t = 0; err == -ETIMEDOUT && t < JVMMAP_WAIT_S;
	     t += (double)JVMMAP_POLL_NS / 1e9) {
		nanosleep(&poll, NULL);
		if (is_socket(sock))
			err = 0;
	}
	unlink(trigger);
	return err;
}

/* Compiler.perfmap sent at sock as jcmd sends a command (protocol 1,
 * "jcmd", three arguments); 0 if the JVM says it ran, -EPROTO if it
 * says it failed (a JVM before 17 does not know it), -errno. */
static int send_perfmap(const char *sock)
{
	static const char REQ[] = "1\0jcmd\0Compiler.perfmap\0\0";
	const struct timeval wait = { 5, 0 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char reply[64];
	ssize_t got;
	int fd, err = 0;

	if (strlen(sock) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, REQ, sizeof(REQ)) != (ssize_t)sizeof(REQ))
		err = -errno;
	got = err ? 0 : read(fd, reply, sizeof(reply) - 1);
	if (!err && got <= 0)
		err = got < 0 ? -errno : -EPROTO;
	else if (!err && reply[0] != '0')
		err = -EPROTO;
	close(fd);
	return err;
}

/* Whether a request is under way. Under lock. */
static bool asking(void)
{
	for (size_t i = 0; i < JVMMAP_PROCS; i++)
		if (asks[i].running)
			return true;
	return false;
}

/* Where pid's JVM writes its perf map, as probetop reaches it after the
 * process is gone where it can: its /tmp is ours when its root is. */
static void map_path(pid_t pid, pid_t ns, char *out, size_t n)
{
	struct stat root, mine;
	char at[64];

	snprintf(at, sizeof(at), "/proc/%d/root", (int)pid);
	if (!stat(at, &root) && !stat("/", &mine) &&
	    root.st_dev == mine.st_dev && root.st_ino == mine.st_ino)
		snprintf(out, n, "/tmp/perf-%d.map", (int)ns);
	else
		snprintf(out, n, "/proc/%d/root/tmp/perf-%d.map", (int)pid,
			 (int)ns);
}

/* The asking thread: pid's listener started, the command sent, what
 * came of it left in pid's slot (and the map it wrote, if it was not
 * there before). */
static void *ask_thread(void *arg)
{
	pid_t pid = (pid_t)(intptr_t)arg, ns = proc_ns_pid(pid);
	char sock[128], map[96];
	bool had;
	int err;

	snprintf(sock, sizeof(sock), "/proc/%d/root/tmp/.java_pid%d", (int)pid,
		 (int)ns);
	map_path(pid, ns, map, sizeof(map));
	had = !access(map, F_OK);
	err = start_listener(pid, ns, sock);
	if (!err)
		err = send_perfmap(sock);
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < JVMMAP_PROCS; i++)
		if (asks[i].pid == pid && asks[i].running) {
			asks[i].running = false;
			asks[i].err = err;
			asks[i].done = true;
			if (!err && !had && closing)
				unlink(map); /* asked for before the end */
			else if (!err && !had)
				snprintf(asks[i].made, sizeof(asks[i].made),
					 "%s", map);
		}
	if (closing && !asking())
		closing = false; /* the last one the end left */
	pthread_mutex_unlock(&lock);
	return NULL;
}

void jvmmap_clean(void)
{
	const struct timespec tick = { 0, 10000000L };

	/* a request under way writes its map at its end: waited for a
	 * while, and one that ends later removes its own */
	pthread_mutex_lock(&lock);
	closing = true;
	for (int w = 0; w < JVMMAP_CLEAN_WAIT_MS / 10 && asking(); w++) {
		pthread_mutex_unlock(&lock);
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&lock);
	}
	for (size_t i = 0; i < JVMMAP_PROCS; i++)
		if (asks[i].made[0]) {
			unlink(asks[i].made);
			asks[i].made[0] = '\0';
		}
	closing = asking(); /* none left: a later tracer's maps are kept */
	pthread_mutex_unlock(&lock);
}

/* pid's slot, else a free one, else the least lately asked (not one
 * being asked); NULL if every slot is being asked. Under lock. */
static struct ask *slot_of(pid_t pid)
{
	struct ask *best = NULL;

	for (size_t i = 0; i < JVMMAP_PROCS; i++) {
		struct ask *a = &asks[i];

		if (a->pid == pid)
			return a;
		if (!a->running && (!best || a->at < best->at))
			best = a;
	}
	if (best && best->made[0])
		unlink(best->made); /* its slot is another's now */
	if (best)
		*best = (struct ask){ .pid = pid };
	return best;
}

/* What the last request of a found; whether it may be asked again. Said
 * on the caller's thread, once per request. Under lock. */
static bool say_done(struct ask *a)
{
	if (!a->done)
		return !a->never;
	a->done = false;
	a->soon = a->err == -EAGAIN;
	if (!a->err || a->soon)
		return true;
	a->never =
		a->err == -ENOTSUP || a->err == -ETIMEDOUT || a->err == -EPROTO;
	if (a->err == -ENOTSUP)
		log_msg(LOG_INFO,
			"process %d: its JVM does not handle SIGQUIT (-Xrs), "
			"which starts its attach listener: not asked for its "
			"perf map; its compiled Java frames stay 0x...",
			(int)a->pid);
	else if (a->err == -EPROTO)
		log_msg(LOG_INFO,
			"process %d: its JVM did not run Compiler.perfmap "
			"(JDK 17 and later have it); its compiled Java frames "
			"stay 0x...",
			(int)a->pid);
	else
		log_msg(LOG_INFO,
			"process %d: its JVM was asked for its perf map and "
			"did not answer: %s%s; its compiled Java frames stay "
			"0x...",
			(int)a->pid, strerror(-a->err),
			a->err == -ETIMEDOUT ? " (-XX:+DisableAttachMechanism?)"
					     : "");
	return !a->never;
}

void jvmmap_request(pid_t pid, bool again)
{
	double now = now_s();
	pthread_attr_t attr;
	pthread_t t;
	struct ask *a;
	bool first;

	pthread_mutex_lock(&lock);
	a = slot_of(pid);
	if (!a || a->running || !say_done(a) ||
	    (a->at > 0 && !(again && now - a->at >= JVMMAP_EVERY_S) &&
	     !(a->soon && now - a->at >= JVMMAP_SOON_S))) {
		pthread_mutex_unlock(&lock);
		return;
	}
	first = a->at == 0;
	a->at = now;
	a->running = true;
	pthread_mutex_unlock(&lock);
	if (first)
		log_msg(LOG_INFO,
			"process %d is a HotSpot JVM: asked it to write its "
			"perf map (as jcmd %d Compiler.perfmap does) to name "
			"its compiled Java methods",
			(int)pid, (int)pid);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, ask_thread, (void *)(intptr_t)pid)) {
		pthread_mutex_lock(&lock);
		a->running = false;
		pthread_mutex_unlock(&lock);
	}
	pthread_attr_destroy(&attr);
}
