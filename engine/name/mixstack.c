// SPDX-License-Identifier: MIT
/*
 * mixstack — native and Python stacks merged; see mixstack.h.
 *
 * The native half is named by stackname (and kept there by its own id,
 * so that a ustack spec and a mixstack spec of the same stacks name each
 * native stack once); its text is split back into frames here, which is
 * exact, as stackname writes no ';' inside a frame. The Python half is
 * read from pystacks and each frame named by pyframe.
 */
#include "mixstack.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <linux/types.h> /* before probetop.h */

#include "probetop.h"
#include "pyframe.h"
#include "stackname.h"
#include "stacktext.h"

_Static_assert(sizeof(struct pt_mixstack) == 16, "pt_mixstack layout");
_Static_assert(sizeof(struct pt_pystack) == 16 + 8 * PT_PYSTACK_DEPTH,
	       "pt_pystack layout");
_Static_assert(PT_PYSTACK_DEPTH <= 32, "pt_pystack's ends: 32 bits");

#define EVAL_FUNC "_PyEval_EvalFrameDefault"
#define NATIVE_MAX 16384 /* bytes of a native stack's text */
#define PY_NAME_MAX (PYFRAME_FUNC_MAX + PYFRAME_FILE_MAX + 16)
#define TEXT_MAX (NATIVE_MAX + PT_PYSTACK_DEPTH * PY_NAME_MAX + 256)

struct mixstack {
	int fd; /* mixstacks */
	int py_fd; /* pystacks */
	struct stackname *sn;
	struct pyframe *pf;
	struct stacktext *kept;
};

struct mixstack *mixstack_new(int mixstacks_fd, int pystacks_fd,
			      struct stackname *sn, struct pyframe *pf)
{
	struct mixstack *ms = calloc(1, sizeof(*ms));

	if (ms)
		ms->kept = stacktext_new();
	if (!ms || !ms->kept) {
		free(ms);
		errno = ENOMEM;
		return NULL;
	}
	ms->fd = mixstacks_fd;
	ms->py_fd = pystacks_fd;
	ms->sn = sn;
	ms->pf = pf;
	return ms;
}

void mixstack_free(struct mixstack *ms)
{
	if (!ms)
		return;
	stacktext_free(ms->kept);
	free(ms);
}

bool mixstack_is_eval(const char *name)
{
	size_t n = strlen(EVAL_FUNC);

	return !strncmp(name, EVAL_FUNC, n) &&
	       (name[n] == '\0' || name[n] == '.');
}

/* Text being built: frames joined by ';', full once one did not fit. */
struct text {
	char *p;
	size_t n, at;
	bool full;
};

static void put(struct text *t, const char *frame)
{
	int k;

	if (t->full || !t->n)
		return;
	k = snprintf(t->p + t->at, t->n - t->at, "%s%s", t->at ? ";" : "",
		     frame);
	if (k < 0 || (size_t)k >= t->n - t->at) {
		t->full = true;
		t->p[t->at] = '\0'; /* whole frames only */
		return;
	}
	t->at += (size_t)k;
}

/* The eval calls of py[0..np): one per frame marked first, the root-most
 * frame's always (its first frames may be cut). */
static size_t groups(const struct mixstack_py *py, size_t np)
{
	size_t g = np ? 1 : 0;

	for (size_t j = 1; j < np; j++)
		g += py[j].first;
	return g;
}

/* Put the frames of eval call k (from the root) of py[0..np), the
 * first one after MIXSTACK_CUT when cut: the Python stack went on
 * (outer frames of that call, or other calls) past what it keeps. */
static void put_group(struct text *t, const struct mixstack_py *py, size_t np,
		      size_t k, bool cut)
{
	size_t g = 0;

	if (!k && cut)
		put(t, MIXSTACK_CUT);
	for (size_t j = 0; j < np; j++) {
		if (j && py[j].first)
			g++;
		if (g > k)
			break;
		if (g == k)
			put(t, py[j].name);
	}
}

int mixstack_merge(const char *const *native, size_t nn,
		   const struct mixstack_py *py, size_t np, bool py_cut,
		   bool split, char *out, size_t n)
{
	struct text t = { .p = out, .n = n };
	size_t ne = 0, ng = groups(py, np), pair, e = 0, root;

	if (n)
		out[0] = '\0';
	for (size_t i = 0; i < nn; i++)
		ne += mixstack_is_eval(native[i]);
	pair = ne < ng ? ne : ng;
	root = nn && !strcmp(native[0], "...") ? 1 : 0;
	for (size_t i = 0; i <= nn; i++) {
		bool eval = i < nn && mixstack_is_eval(native[i]);
		/* where Python frames no eval frame pairs with go: in place
		   of the outermost eval frame, else at the root */
		bool here = ne ? eval && !e : i == root;

		if (here && np && !split) {
			put(&t, MIXSTACK_UNSPLIT);
			if (py_cut)
				put(&t, MIXSTACK_CUT);
			for (size_t j = 0; j < np; j++)
				put(&t, py[j].name);
		} else if (here && ng > pair) {
			put(&t, MIXSTACK_NO_EVAL);
			for (size_t k = 0; k < ng - pair; k++)
				put_group(&t, py, np, k, py_cut);
		}
		if (i == nn)
			break;
		if (!eval) {
			put(&t, native[i]);
			continue;
		}
		if (!np || split) { /* (else all were put at the first) */
			if (e < ne - pair)
				put(&t,
				    py_cut ? MIXSTACK_CUT : MIXSTACK_NOT_READ);
			else
				put_group(&t, py, np,
					  e - (ne - pair) + (ng - pair),
					  py_cut);
		}
		e++;
	}
	return t.full ? -1 : (int)t.at;
}

/* Python frame code of pid as a mixed stack names it into out[0..n):
 * "function (file:line)", the file's base name; "?" if unreadable. */
static void py_name(struct pyframe *pf, pid_t pid, uint64_t code, char *out,
		    size_t n)
{
	struct pyname nm;
	const char *base;

	if (!code || pyframe_name(pf, pid, code, &nm)) {
		snprintf(out, n, "?");
		return;
	}
	base = strrchr(nm.file, '/');
	base = base ? base + 1 : nm.file;
	if (nm.line > 0)
		snprintf(out, n, "%s (%s:%d)", nm.func, base, nm.line);
	else
		snprintf(out, n, "%s (%s)", nm.func, base);
	for (char *c = out; *c; c++)
		if (*c == ';')
			*c = ','; /* ';' parts frames in the text */
}

/* Split text (changed in place) at ';' into frames[0..max): how many. */
static size_t split_frames(char *text, const char **frames, size_t max)
{
	size_t nn = 0;

	for (char *p = text; p && nn < max;) {
		char *semi = strchr(p, ';');

		frames[nn++] = p;
		if (semi)
			*semi++ = '\0';
		p = semi;
	}
	return nn;
}

const char *mixstack_text(struct mixstack *ms, pid_t pid, uint64_t id,
			  const struct proc_maps *known)
{
	static char text[TEXT_MAX], native[NATIVE_MAX];
	static char names[PT_PYSTACK_DEPTH][PY_NAME_MAX];
	const char *frames[PT_STACK_FRAMES + 2];
	struct mixstack_py py[PT_PYSTACK_DEPTH];
	const char *kept = stacktext_find(ms->kept, pid, id), *nat;
	struct pt_pystack st = { .split = PT_PYSPLIT_NONE };
	struct pt_mixstack m;
	size_t nn, np = 0;

	if (kept)
		return kept;
	if (bpf_map_lookup_elem(ms->fd, &id, &m))
		return stacktext_keep(ms->kept, pid, id, "?");
	nat = stackname_text(ms->sn, pid, m.native, false, known, NULL);
	if (!nat)
		return NULL;
	snprintf(native, sizeof(native), "%s", nat);
	nn = split_frames(native, frames, sizeof(frames) / sizeof(frames[0]));
	if (m.py && !bpf_map_lookup_elem(ms->py_fd, &m.py, &st) &&
	    st.depth <= PT_PYSTACK_DEPTH)
		np = st.depth;
	for (size_t j = 0; j < np; j++) { /* root first: innermost last */
		size_t i = np - 1 - j;

		py_name(ms->pf, pid, st.code[i], names[j], sizeof(names[j]));
		py[j].name = names[j];
		py[j].first = st.ends >> i & 1;
	}
	mixstack_merge(frames, nn, py, np, np && st.truncated,
		       st.split != PT_PYSPLIT_NONE, text, sizeof(text));
	return stacktext_keep(ms->kept, pid, id, text);
}
