// SPDX-License-Identifier: MIT
/*
 * stackname — native stacks named once; see stackname.h.
 */
#include "stackname.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <linux/types.h> /* before probetop.h */

#include "ksyms.h"
#include "probetop.h"
#include "stacktext.h"
#include "symbolize.h"

#define FRAME_MAX 128 /* bytes of one frame's name */

struct stackname {
	int fd;
	struct symbolizer *sy;
	struct ksyms *ks; /* read at the first kernel stack */
	bool ks_tried;
	struct stacktext *kept;
};

struct stackname *stackname_new(int stacks_fd, struct symbolizer *sy)
{
	struct stackname *sn = calloc(1, sizeof(*sn));

	if (sn)
		sn->kept = stacktext_new();
	if (!sn || !sn->kept) {
		free(sn);
		errno = ENOMEM;
		return NULL;
	}
	sn->fd = stacks_fd;
	sn->sy = sy;
	return sn;
}

void stackname_free(struct stackname *sn)
{
	if (!sn)
		return;
	ksyms_free(sn->ks);
	stacktext_free(sn->kept);
	free(sn);
}

/* Frame i of st (0: innermost) named into out. A return address points
 * past its call: the call is named, at ip - 1. */
static void frame_name(struct stackname *sn, pid_t pid, bool kernel,
		       const struct pt_stack_ips *st, uint32_t i,
		       const struct proc_maps *known, char *out, size_t n)
{
	uint64_t ip = st->ip[i] - (i ? 1 : 0);

	if (kernel) {
		if (!sn->ks_tried) {
			sn->ks = ksyms_load("/proc/kallsyms");
			sn->ks_tried = true;
		}
		ksyms_name(sn->ks, ip, out, n);
	} else {
		symbolizer_func(sn->sy, pid, ip, known, out, n);
	}
	for (char *c = out; *c; c++)
		if (*c == ';')
			*c = ','; /* ';' parts frames in the text */
}

const char *stackname_text(struct stackname *sn, pid_t pid, uint64_t id,
			   bool kernel, const struct proc_maps *known)
{
	static char text[PT_STACK_FRAMES * (FRAME_MAX + 1) + 8];
	const char *kept = stacktext_find(sn->kept, pid, id);
	struct pt_stack_ips st;
	char frame[FRAME_MAX];
	size_t at = 0;

	if (kept)
		return kept;
	if (bpf_map_lookup_elem(sn->fd, &id, &st) || st.depth > PT_STACK_FRAMES)
		return stacktext_keep(sn->kept, pid, id, "?");
	if (!st.depth) /* no frame: in the other mode when it fired */
		return stacktext_keep(sn->kept, pid, id,
				      kernel ? "[user]" : "[kernel]");
	if (st.truncated)
		at += (size_t)snprintf(text, sizeof(text), "...;");
	for (uint32_t i = st.depth; i-- > 0;) {
		frame_name(sn, pid, kernel, &st, i, known, frame,
			   sizeof(frame));
		at += (size_t)snprintf(text + at, sizeof(text) - at, "%s%s",
				       frame, i ? ";" : "");
	}
	return stacktext_keep(sn->kept, pid, id, text);
}
