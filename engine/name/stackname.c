// SPDX-License-Identifier: MIT
/*
 * stackname — native stacks named once; see stackname.h.
 *
 * A frame is named from the mapping that holds it: the process's own
 * maps while it lives (the symbolizer reads them), else the mappings the
 * kernel sent when the stack was new (nmaps, struct pt_vma: kept here
 * per process, to the end of the run), those of the process the stack
 * was first seen in (a fork of it shares the stack's id and its
 * mappings), and last the tracer's maps of its one process.
 */
#include "stackname.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h> /* before probetop.h */

#include "jvmframe.h"
#include "jvmscope.h"
#include "ksyms.h"
#include "log.h"
#include "probetop.h"
#include "proc.h"
#include "stacktext.h"
#include "symbolize.h"
#include "v8frame.h"
#include "v8inline.h"

#define FRAME_MAX 128 /* bytes of one frame's name */
#define NOTED_INDEX 1024 /* chains of the noted processes' index */

_Static_assert(V8INLINE_MAX <= JVMSCOPE_MAX, "a frame's text has room");
_Static_assert(sizeof(struct pt_vma) == 48 + PT_PATH_MAX, "pt_vma layout");

/* The mappings the kernel sent for one process. */
struct noted {
	pid_t pid;
	struct proc_maps maps;
	uint32_t next; /* the next of its index chain: 1 + index, or 0 */
};

struct stackname {
	int fd;
	struct symbolizer *sy;
	struct jvmframe *jvm; /* names interpreted Java frames, or NULL */
	struct v8frames *v8; /* JavaScript frames by V8's metadata */
	struct v8inline *inl; /* and the functions inlined into them */
	struct ksyms *ks; /* read at the first kernel stack */
	bool ks_tried;
	struct stacktext *kept;
	struct stacktext *mods; /* each kept stack's frames' modules */
	struct ring_buffer *nmaps; /* the mappings of new stacks' frames */
	const volatile uint64_t *lost; /* mappings nmaps had no room for */
	uint64_t lost_said;
	struct noted *noted;
	size_t nnoted, capnoted;
	uint32_t index[NOTED_INDEX]; /* by pid: 1 + index, or 0 */
};

static int on_vma(void *ctx, void *data, size_t size);

struct stackname *stackname_new(int stacks_fd, int nmaps_fd,
				const volatile uint64_t *lost,
				struct symbolizer *sy, struct objcache *cache)
{
	struct stackname *sn = calloc(1, sizeof(*sn));

	if (sn) {
		sn->kept = stacktext_new();
		sn->mods = stacktext_new();
		sn->v8 = v8frames_new(cache);
		sn->inl = v8inline_new();
	}
	if (sn && sn->kept && sn->mods && nmaps_fd >= 0)
		sn->nmaps = ring_buffer__new(nmaps_fd, on_vma, sn, NULL);
	if (!sn || !sn->kept || !sn->mods || !sn->v8 || !sn->inl ||
	    (nmaps_fd >= 0 && !sn->nmaps)) {
		if (sn) {
			stacktext_free(sn->kept);
			stacktext_free(sn->mods);
			v8frames_free(sn->v8);
			v8inline_free(sn->inl);
		}
		free(sn);
		errno = ENOMEM;
		return NULL;
	}
	sn->fd = stacks_fd;
	sn->sy = sy;
	sn->lost = lost;
	return sn;
}

void stackname_free(struct stackname *sn)
{
	if (!sn)
		return;
	for (size_t i = 0; i < sn->nnoted; i++)
		proc_maps_free(&sn->noted[i].maps);
	free(sn->noted);
	ring_buffer__free(sn->nmaps);
	ksyms_free(sn->ks);
	v8frames_free(sn->v8);
	v8inline_free(sn->inl);
	stacktext_free(sn->kept);
	stacktext_free(sn->mods);
	free(sn);
}

/* The mappings noted for pid, or NULL (add: a new, empty set; NULL if
 * out of memory). */
static struct proc_maps *noted_of(struct stackname *sn, pid_t pid, bool add)
{
	uint32_t chain = (uint32_t)pid % NOTED_INDEX;
	struct noted *nt;

	for (uint32_t k = sn->index[chain]; k; k = sn->noted[k - 1].next)
		if (sn->noted[k - 1].pid == pid)
			return &sn->noted[k - 1].maps;
	if (!add)
		return NULL;
	if (sn->nnoted == sn->capnoted) {
		size_t cap = sn->capnoted ? 2 * sn->capnoted : 64;

		nt = realloc(sn->noted, cap * sizeof(*nt));
		if (!nt)
			return NULL;
		sn->noted = nt;
		sn->capnoted = cap;
	}
	nt = &sn->noted[sn->nnoted];
	*nt = (struct noted){ .pid = pid, .next = sn->index[chain] };
	sn->index[chain] = (uint32_t)++sn->nnoted;
	return &nt->maps;
}

/* A mapping the kernel sent: kept with pid's if the file at its path is
 * still the one mapped, or that file was parsed already (by device and
 * inode: never opened by the path then); else left out (a container's
 * path, or a file replaced since, would give another file's symbols),
 * and its frames stay addresses once the process is gone. */
static int on_vma(void *ctx, void *data, size_t size)
{
	const struct pt_vma *v = data;
	struct stackname *sn = ctx;
	struct proc_maps *maps;
	struct proc_map *m;
	const char *path;
	struct stat st;
	uint64_t dev;

	if (size < sizeof(*v) || v->path_at >= PT_PATH_MAX ||
	    v->path[PT_PATH_MAX - 1])
		return 0;
	path = v->path_at ? v->path + v->path_at : "";
	dev = makedev(v->dev >> 20, v->dev & 0xfffff);
	if ((path[0] != '/' || stat(path, &st) || st.st_ino != v->ino ||
	     st.st_dev != dev) &&
	    !symbolizer_has(sn->sy, dev, v->ino))
		return 0;
	maps = noted_of(sn, (pid_t)v->pid, true);
	if (!maps)
		return 0;
	for (size_t i = 0; i < maps->n; i++)
		if (maps->maps[i].start == v->start &&
		    maps->maps[i].inode == v->ino)
			return 0; /* sent again (nmapseen forgot it) */
	m = realloc(maps->maps, (maps->n + 1) * sizeof(*m));
	if (!m)
		return 0;
	maps->maps = m;
	m = &maps->maps[maps->n];
	*m = (struct proc_map){
		.start = v->start,
		.end = v->end,
		.offset = v->offset,
		.dev_major = v->dev >> 20,
		.dev_minor = v->dev & 0xfffff,
		.inode = v->ino,
		.path = strdup(path),
	};
	snprintf(m->perms, sizeof(m->perms), "%c%c%cp",
		 v->flags & 1 ? 'r' : '-', v->flags & 2 ? 'w' : '-',
		 v->flags & 4 ? 'x' : '-');
	if (m->path)
		maps->n++;
	return 0;
}

void stackname_java(struct stackname *sn, struct jvmframe *jvm)
{
	sn->jvm = jvm;
}

void stackname_drain(struct stackname *sn)
{
	uint64_t lost;

	if (!sn || !sn->nmaps)
		return;
	ring_buffer__consume(sn->nmaps);
	lost = sn->lost ? *sn->lost : 0;
	if (lost > sn->lost_said) {
		log_msg(LOG_WARN,
			"ustack: %llu mappings of new stacks found no room to "
			"be sent (nmaps full); their frames are named from "
			"/proc while their processes live",
			(unsigned long long)(lost - sn->lost_said));
		sn->lost_said = lost;
	}
}

/* Whether maps (may be NULL) has a mapping holding addr. */
static bool holds(const struct proc_maps *maps, uint64_t addr)
{
	for (size_t i = 0; maps && i < maps->n; i++)
		if (addr >= maps->maps[i].start && addr < maps->maps[i].end)
			return true;
	return false;
}

/* A JVM's compiled frame as the methods it ran, names[0..k) innermost
 * first, into out (n bytes): outermost first, parted by ';' as frames
 * are, each cut to FRAME_MAX (a ';' in one made ','); its modules,
 * "[jit]" each, into mod. */
static void put_scopes(const char **names, size_t k, char *out, size_t n,
		       char *mod, size_t modn)
{
	size_t at = 0, mat = 0;

	out[0] = mod[0] = '\0';
	while (k-- > 0 && at < n && mat < modn) {
		char *part = out + at;

		at += (size_t)snprintf(part, n - at, "%.*s", FRAME_MAX - 1,
				       names[k]);
		for (char *c = part; *c; c++)
			if (*c == ';')
				*c = ',';
		if (k && at < n)
			at += (size_t)snprintf(out + at, n - at, ";");
		mat += (size_t)snprintf(mod + mat, modn - mat, "[jit]%s",
					k ? ";" : "");
	}
}

/* An optimized JavaScript frame at ip of pid (its own function's
 * SharedFunctionInfo sfi) as the functions it ran, those TurboFan
 * inlined into it too (v8inline.h), each named by V8's metadata, into
 * out and mod as put_scopes() puts them: whether it ran an inlined
 * function at ip (else out and mod are left as they are). */
static bool js_inlined(struct stackname *sn, pid_t pid, uint64_t ip,
		       uint64_t sfi, char *out, size_t n, char *mod,
		       size_t modn)
{
	const struct v8meta *m = v8frames_meta(sn->v8, pid);
	uint64_t chain[V8INLINE_MAX];
	char names[V8INLINE_MAX][FRAME_MAX];
	const char *np[V8INLINE_MAX];
	size_t k = m ? v8inline_chain(sn->inl, pid, m, ip, sfi, chain) : 0;

	for (size_t j = 0; j < k; j++) {
		if (v8frames_name(sn->v8, pid, chain[j], names[j], FRAME_MAX))
			return false;
		np[j] = names[j];
	}
	if (k)
		put_scopes(np, k, out, n, mod, modn);
	return k > 0;
}

/* Frame i of st (0: innermost) named into out, its module into
 * mod[0..modn). A return address points past its call: the call is
 * named, at ip - 1. The mappings used when pid is gone: those the kernel
 * sent for pid, for the process the stack was first seen in, else
 * known. A JavaScript frame (st->fn[i]) that the perf map does not
 * name is named by V8's metadata (v8frame.h), module "[jit]" too, and
 * one in JIT code that ran functions TurboFan inlined into it as those
 * functions (js_inlined()); a JVM's compiled method by its code cache (jvmframe_compiled()), before
 * the perf map, which may be older. */
static void frame_name(struct stackname *sn, pid_t pid, bool kernel,
		       const struct pt_stack_ips *st, uint32_t i,
		       const struct proc_maps *known, char *out, size_t n,
		       char *mod, size_t modn)
{
	uint64_t ip = st->ip[i] - (i ? 1 : 0);
	const struct proc_maps *mine = noted_of(sn, pid, false);
	const struct proc_maps *first =
		st->pid ? noted_of(sn, (pid_t)st->pid, false) : NULL;
	const char *java, *jn[JVMSCOPE_MAX];
	size_t nj;

	if (!kernel && st->ip[i] >> 62 == PT_IP_JAVA >> 62) {
		java = sn->jvm ? jvmframe_name(sn->jvm, pid, st->ip[i]) : NULL;
		snprintf(out, n, "%s", java ? java : "Interpreter");
		snprintf(mod, modn, "[jit]");
	} else if (kernel) {
		if (!sn->ks_tried) {
			sn->ks = ksyms_load("/proc/kallsyms");
			sn->ks_tried = true;
		}
		ksyms_name(sn->ks, ip, out, n);
		snprintf(mod, modn, "kernel");
	} else if (sn->jvm && (nj = jvmframe_compiled(sn->jvm, pid, ip, jn))) {
		put_scopes(jn, nj, out, n, mod, modn);
		return;
	} else {
		symbolizer_func(sn->sy, pid, ip,
				holds(mine, ip)	   ? mine
				: holds(first, ip) ? first
						   : known,
				out, n, mod, modn);
		if (st->js && st->fn[i] && (!mod[0] || !strcmp(mod, "[jit]")) &&
		    js_inlined(sn, pid, ip, st->fn[i], out, n, mod, modn))
			return;
		if (st->js && st->fn[i] && strcmp(mod, "[jit]") &&
		    !v8frames_name(sn->v8, pid, st->fn[i], out, n))
			snprintf(mod, modn, "[jit]");
	}
	for (char *c = out; *c; c++)
		if (*c == ';')
			*c = ','; /* ';' parts frames in the text */
	for (char *c = mod; *c; c++)
		if (*c == ';')
			*c = ',';
}

/* Keep text and its modules mods for stack id of pid; the kept text
 * (NULL if out of memory), its modules into *kmods if kmods. */
static const char *keep(struct stackname *sn, pid_t pid, uint64_t id,
			const char *text, const char *mods, const char **kmods)
{
	const char *kept = stacktext_keep(sn->kept, pid, id, text);
	const char *km = kept ? stacktext_keep(sn->mods, pid, id, mods) : NULL;

	if (kmods)
		*kmods = km;
	return kept;
}

const char *stackname_text(struct stackname *sn, pid_t pid, uint64_t id,
			   bool kernel, const struct proc_maps *known,
			   const char **mods)
{
	static char text[PT_STACK_FRAMES * JVMSCOPE_MAX * (FRAME_MAX + 1) + 8];
	static char mtext[PT_STACK_FRAMES * JVMSCOPE_MAX * (FRAME_MAX + 1) + 8];
	const char *kept = stacktext_find(sn->kept, pid, id);
	struct pt_stack_ips st;
	char frame[JVMSCOPE_MAX * FRAME_MAX], mod[JVMSCOPE_MAX * FRAME_MAX];
	size_t at = 0, mat = 0;

	if (kept) {
		if (mods)
			*mods = stacktext_find(sn->mods, pid, id);
		return kept;
	}
	if (!kernel)
		stackname_drain(sn); /* the mappings sent with it */
	if (bpf_map_lookup_elem(sn->fd, &id, &st) || st.depth > PT_STACK_FRAMES)
		return keep(sn, pid, id, "?", "", mods);
	if (!st.depth) /* no frame: in the other mode when it fired */
		return keep(sn, pid, id, kernel ? "[user]" : "[kernel]", "",
			    mods);
	if (!kernel && st.js && v8frames_meta(sn->v8, pid))
		symbolizer_quiet(sn->sy, pid); /* its JIT frames named */
	text[0] = mtext[0] = '\0';
	if (st.truncated) {
		at += (size_t)snprintf(text, sizeof(text), "...;");
		mat += (size_t)snprintf(mtext, sizeof(mtext), ";");
	}
	for (uint32_t i = st.depth; i-- > 0;) {
		frame_name(sn, pid, kernel, &st, i, known, frame, sizeof(frame),
			   mod, sizeof(mod));
		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%s",
				       frame, i ? ";" : "");
		mat += (size_t)snprintf(mtext + mat, sizeof(mtext) - mat,
					"%s%s", mod, i ? ";" : "");
	}
	return keep(sn, pid, id, text, mtext, mods);
}

/* The start and length of part i (from 0) of text parted by ';'; false
 * if it has fewer. */
static bool nth_part(const char *text, size_t i, const char **at, size_t *len)
{
	const char *p = text;

	for (; i > 0; i--) {
		p = strchr(p, ';');
		if (!p)
			return false;
		p++;
	}
	*at = p;
	*len = strcspn(p, ";");
	return true;
}

/* A Java method's name buf (*len bytes) without the " (FILE:LINE)"
 * jvmframe puts after it. */
static void cut_java_line(char *buf, size_t *len)
{
	char *open = strstr(buf, ") (");
	char *colon = open ? strrchr(open, ':') : NULL;
	size_t digits = colon ? strspn(colon + 1, "0123456789") : 0;

	if (!digits || colon[1 + digits] != ')' || colon[2 + digits])
		return;
	open[1] = '\0';
	*len = (size_t)(open + 1 - buf);
}

/*
 * A JIT frame's name [*at, *at + *len) as one function's, whatever code
 * of it ran: V8's tier mark after "JS:" left out ("JS:*f", optimized,
 * and "JS:~f", the interpreter's or baseline code, are one f), the
 * BEAM's "-CodeInfoPrologue" line of a function taken as the function,
 * and an interpreted Java frame's line left out ("long Hot.heavy(long)
 * (Hot.java:12)" is its method's, as its compiled code is named). Into
 * buf[0..n) (a name that does not fit is left as it is).
 */
static void jit_function(const char **at, size_t *len, char *buf, size_t n)
{
	static const char PROLOGUE[] = "-CodeInfoPrologue";
	size_t pl = sizeof(PROLOGUE) - 1;

	if (*len >= n)
		return;
	memcpy(buf, *at, *len);
	buf[*len] = '\0';
	if (*len > 4 && !strncmp(buf, "JS:", 3) && strchr("*~^+", buf[3])) {
		memmove(buf + 3, buf + 4, *len - 3);
		(*len)--;
	}
	if (*len > pl && !strcmp(buf + *len - pl, PROLOGUE)) {
		*len -= pl;
		buf[*len] = '\0';
	}
	cut_java_line(buf, len);
	*at = buf;
}

void stackname_jit_frame(const char *text, const char *mods, char *out,
			 size_t n)
{
	size_t frames = 1, pick, len = 0;
	const char *at = text, *mod;
	char buf[FRAME_MAX];
	bool jit = false;

	if (!text) {
		snprintf(out, n, "?");
		return;
	}
	for (const char *p = text; (p = strchr(p, ';')); p++)
		frames++;
	pick = frames - 1;
	for (size_t i = frames; mods && i-- > 0;)
		if (nth_part(mods, i, &mod, &len) && len == 5 &&
		    !strncmp(mod, "[jit]", 5)) {
			pick = i;
			jit = true;
			break;
		}
	nth_part(text, pick, &at, &len);
	if (jit)
		jit_function(&at, &len, buf, sizeof(buf));
	if (len < n) {
		snprintf(out, n, "%.*s", (int)len, at);
		return;
	}
	len = n > 4 ? n - 4 : 0; /* room for "..." */
	while (len > 0 && ((unsigned char)at[len] & 0xc0) == 0x80)
		len--; /* not inside a UTF-8 character */
	snprintf(out, n, "%.*s...", (int)len, at);
}
