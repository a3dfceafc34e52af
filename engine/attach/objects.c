// SPDX-License-Identifier: MIT
/*
 * objects — the objects a tracer knows of its target; see objects.h.
 */
#include "objects.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <bpf/libbpf.h>
#include <linux/types.h> /* before probetop.h */

#include "catalog.h"
#include "jvmcode.h"
#include "jvmframe.h"
#include "jvmmap.h"
#include "log.h"
#include "phpframe.h"
#include "probetop.h"
#include "pyframe.h"
#include "rbframe.h"
#include "probetop.skel.h"
#include "tracer_state.h"
#include "v8meta.h"

#include <bpf/bpf.h>
#include <linux/types.h> /* before v8shared.h */

#include "probetop.skel.h"
#include "v8shared.h"

bool seen_has(const struct seen_set *set, uint64_t dev, uint64_t inode)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->v[i].dev == dev && set->v[i].inode == inode)
			return true;
	return false;
}

int seen_add(struct seen_set *set, uint64_t dev, uint64_t inode)
{
	struct seen *v = realloc(set->v, (set->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	set->v = v;
	v[set->n++] = (struct seen){ dev, inode };
	return 0;
}

int objects_keep(struct tracer *tr, struct catalog *cat)
{
	struct catalog **c = realloc(tr->cats, (tr->ncats + 1) * sizeof(*c));

	if (!c) {
		catalog_free(cat);
		return -ENOMEM;
	}
	tr->cats = c;
	c[tr->ncats++] = cat;
	return 0;
}

size_t tracer_objects(const struct tracer *tr, const struct cat_object **out,
		      size_t max)
{
	size_t n = 0;

	for (size_t c = tr->ncats; c-- > 0;) {
		for (size_t i = 0; i < catalog_nobjects(tr->cats[c]); i++) {
			const struct cat_object *obj =
				catalog_object(tr->cats[c], i);
			size_t j = 0;

			while (j < n && (out[j]->dev != obj->dev ||
					 out[j]->inode != obj->inode))
				j++;
			if (j == n && n < max)
				out[n++] = obj;
		}
	}
	return n;
}

void objects_py_setup(struct tracer *tr)
{
	const struct cat_object *objs[512];
	size_t n;

	if (!tr->py_wanted || pyframe_ready(tr->py, tr->pid))
		return;
	n = tracer_objects(tr, objs, sizeof(objs) / sizeof(objs[0]));
	pyframe_setup(tr->py, tr->pid, objs, n, &tr->maps);
}

void objects_php_setup(struct tracer *tr)
{
	const struct cat_object *objs[512];
	size_t n;

	if (!tr->php_wanted || phpframe_ready(tr->php, tr->pid))
		return;
	n = tracer_objects(tr, objs, sizeof(objs) / sizeof(objs[0]));
	phpframe_setup(tr->php, tr->pid, objs, n, &tr->maps);
}

void objects_rb_setup(struct tracer *tr)
{
	const struct cat_object *objs[512];
	size_t n;

	if (!tr->rb_wanted || rbframe_ready(tr->rb, tr->pid))
		return;
	n = tracer_objects(tr, objs, sizeof(objs) / sizeof(objs[0]));
	rbframe_setup(tr->rb, tr->pid, objs, n, &tr->maps);
}

void objects_jvm_setup(struct tracer *tr)
{
	const struct cat_object *objs[512];
	struct jvm_interp in;
	size_t n;
	int err;

	if (tr->kind != TRACER_PID || !jvmmap_is_jvm(&tr->maps))
		return;
	jvmmap_request(tr->pid, false);
	if (!tr->unwind || tr->jvm_ready)
		return;
	n = tracer_objects(tr, objs, sizeof(objs) / sizeof(objs[0]));
	err = jvmframe_setup(tr->jvm, tr->pid, objs, n, &in);
	if (err == -EAGAIN)
		return; /* its tables not filled in yet: at the next rescan */
	tr->jvm_ready = true; /* done, or never: not tried again */
	if (err) {
		log_msg(LOG_INFO,
			"pid %d: this JVM's tables (gHotSpotVMStructs) lack "
			"what names its interpreted frames: they stay "
			"\"Interpreter\"",
			(int)tr->pid);
		return;
	}
	tr->skel->bss->jvm_method_at = in.method_at;
	tr->skel->bss->jvm_bcp_at = in.bcp_at;
	tr->skel->bss->jvm_cm_at = in.cm_at;
	tr->skel->bss->jvm_code_at = in.code_at;
	tr->skel->bss->jvm_sender_at = in.sender_at;
	tr->skel->bss->jvm_lo = in.lo;
	tr->skel->bss->jvm_hi = in.hi;
	tr->skel->bss->jvm_pid = (uint32_t)tr->pid;
	if (!in.code_ok)
		log_msg(LOG_INFO,
			"pid %d: this JVM's tables lack its code cache's "
			"layout: a stack ends at its first compiled frame "
			"that keeps no frame pointer",
			(int)tr->pid);
}

/* Now on the monotonic clock, in microseconds. */
static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

const struct jvmcode *objects_jvm_code(struct tracer *tr)
{
	const struct jvmcode *c;
	uint64_t now = now_us(), took;

	if (!tr->skel->bss->jvm_pid || now < tr->jvm_code_next ||
	    jvmframe_code(tr->jvm, tr->pid, &c))
		return NULL;
	took = now_us() - now;
	tr->jvm_code_next = now + (took * JVMCODE_COST > JVMCODE_EVERY_MS * 1000
					   ? took * JVMCODE_COST
					   : JVMCODE_EVERY_MS * 1000);
	return c;
}

void objects_jvm_forget(struct tracer *tr)
{
	tr->skel->bss->jvm_pid = 0;
	tr->jvm_ready = false;
	tr->jvm_code_next = 0;
	jvmframe_forget(tr->jvm, tr->pid);
}

void objects_v8_setup(struct tracer *tr)
{
	const struct cat_object *objs[512];
	struct pt_v8proc p = { 0 };
	struct v8meta m;
	__u32 pid = (__u32)tr->pid;
	size_t n;

	if (tr->v8_set || tr->v8_said || !tr->unwind || tr->pid <= 0)
		return;
	n = tracer_objects(tr, objs, sizeof(objs) / sizeof(objs[0]));
	for (size_t i = 0; i < n; i++) {
		int err =
			objs[i]->elf ? v8meta_read(objs[i]->elf, &m) : -ENOENT;

		if (err == -ENOTSUP) {
			log_msg(LOG_WARN,
				"%s: a V8 probetop cannot read (%s): its "
				"JavaScript frames stay addresses",
				objs[i]->path, m.why);
			tr->v8_said = true;
			return;
		}
		if (err)
			continue;
		p.fp_context = m.fp_context;
		p.fp_function = m.fp_function;
		p.fn_shared = m.fn_shared;
		p.heap_tag = m.heap_tag;
		p.heap_tag_mask = m.heap_tag_mask;
		tr->v8_set = !bpf_map_update_elem(
			bpf_map__fd(tr->skel->maps.v8procs), &pid, &p, BPF_ANY);
		return;
	}
}

void objects_v8_forget(struct tracer *tr)
{
	__u32 pid = (__u32)tr->pid;

	tr->v8_said = false; /* another program after an exec */
	if (!tr->v8_set)
		return;
	bpf_map_delete_elem(bpf_map__fd(tr->skel->maps.v8procs), &pid);
	tr->v8_set = false;
}
