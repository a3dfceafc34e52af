// SPDX-License-Identifier: MIT
/*
 * v8frame — JavaScript frames named from V8's metadata; see v8frame.h.
 */
#include "v8frame.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "log.h"
#include "proc.h"
#include "pymem.h"
#include "v8heap.h"
#include "v8meta.h"

#define NAME_UNITS 256 /* code units of a function's or script's name */
#define SCOPE_SLOTS 32 /* ScopeInfo slots looked at */
#define STR_DEPTH 16 /* cons, thin and sliced strings followed */
#define INDEX 4096 /* chains of the names' index */

struct proc_meta {
	pid_t pid;
	bool ok;
	struct v8meta m;
};

struct kept {
	pid_t pid;
	uint64_t sfi;
	uint64_t nos; /* its name_or_scope_info when named */
	char *name;
	uint32_t next; /* 1 + index in its chain, or 0 */
};

struct v8frames {
	struct objcache *cache;
	struct proc_meta procs[V8FRAME_PROCS];
	size_t nprocs, next_proc; /* the next slot to reuse when full */
	struct kept *kept;
	size_t nkept, capkept;
	uint32_t index[INDEX];
	uint16_t *units; /* V8FRAME_SOURCE_MAX code units */
};

struct v8frames *v8frames_new(struct objcache *cache)
{
	struct v8frames *vf = calloc(1, sizeof(*vf));

	if (vf)
		vf->units = malloc(V8FRAME_SOURCE_MAX * sizeof(uint16_t));
	if (!vf || !vf->units) {
		free(vf);
		errno = ENOMEM;
		return NULL;
	}
	vf->cache = cache;
	return vf;
}

void v8frames_free(struct v8frames *vf)
{
	if (!vf)
		return;
	for (size_t i = 0; i < vf->nkept; i++)
		free(vf->kept[i].name);
	free(vf->kept);
	free(vf->units);
	free(vf);
}

/* The metadata of the first executable mapping of maps that has it. */
static bool meta_of(struct v8frames *vf, pid_t pid,
		    const struct proc_maps *maps, struct v8meta *m)
{
	for (size_t i = 0; i < maps->n; i++) {
		const struct proc_map *pm = &maps->maps[i];
		struct elfobj *obj;

		if (pm->perms[2] != 'x' || !pm->path || pm->path[0] != '/')
			continue;
		obj = objcache_elf(vf->cache, pid, pm);
		if (obj && !v8meta_read(obj, m))
			return true;
	}
	return false;
}

/* What pid's V8 (m) names less of, said once as its metadata is read:
 * the functions optimized code inlined (V8 12 and later do not say
 * where it keeps them), the lines of functions (V8 13). */
static void say_partial(pid_t pid, const struct v8meta *m)
{
	if (!m->inl)
		log_msg(LOG_INFO,
			"process %d: its V8's metadata does not say where "
			"optimized code keeps the functions it inlined (V8 12 "
			"and later): their samples are their caller's",
			(int)pid);
	if (!m->scope_pos)
		log_msg(LOG_INFO,
			"process %d: its V8 (13 or later) keeps its functions' "
			"positions where probetop does not read them: its "
			"JavaScript frames are named without a line",
			(int)pid);
}

const struct v8meta *v8frames_meta(struct v8frames *vf, pid_t pid)
{
	struct proc_maps maps = { 0 };
	struct proc_meta *p;

	for (size_t i = 0; i < vf->nprocs; i++)
		if (vf->procs[i].pid == pid)
			return vf->procs[i].ok ? &vf->procs[i].m : NULL;
	if (proc_maps_read(pid, &maps))
		return NULL; /* gone: not kept, nothing to read anyway */
	if (vf->nprocs < V8FRAME_PROCS) {
		p = &vf->procs[vf->nprocs++];
	} else {
		p = &vf->procs[vf->next_proc];
		vf->next_proc = (vf->next_proc + 1) % V8FRAME_PROCS;
	}
	p->pid = pid;
	p->ok = meta_of(vf, pid, &maps, &p->m);
	proc_maps_free(&maps);
	if (p->ok)
		say_partial(pid, &p->m);
	return p->ok ? &p->m : NULL;
}

/* String s's length, or -1 (not a string). */
static int64_t str_len(const struct v8ctx *c, uint64_t s, uint32_t *type)
{
	int32_t len;

	*type = v8heap_type(c, s);
	if (*type >= c->m->t_first_nonstring ||
	    v8heap_field(c, s, c->m->str_len, &len, sizeof(len)) || len < 0)
		return -1;
	return len;
}

/* Code units [from, from + n) of string s into out (at most those it
 * has): how many, or -1 (a kind not read: external strings). */
static int64_t str_units(const struct v8ctx *c, uint64_t s, uint32_t from,
			 uint32_t n, uint16_t *out, int depth)
{
	const struct v8meta *m = c->m;
	uint32_t type, repr;
	int64_t len = depth < STR_DEPTH ? str_len(c, s, &type) : -1, k;
	uint8_t *bytes = (uint8_t *)out;

	if (len < 0)
		return -1;
	if (from >= len)
		return 0;
	n = n < len - from ? n : (uint32_t)(len - from);
	repr = type & m->str_repr_mask;
	if (repr == m->str_seq && (type & m->str_enc_mask) == m->str_one_byte) {
		if (v8heap_field(c, s, m->seq1_chars + from, bytes, n))
			return -1;
		for (uint32_t i = n; i-- > 0;) /* widened in place */
			out[i] = bytes[i];
		return n;
	}
	if (repr == m->str_seq)
		return v8heap_field(c, s, m->seq2_chars + 2 * from, out,
				    2 * (size_t)n)
			       ? -1
			       : (int64_t)n;
	if (repr == m->str_thin)
		return str_units(c, v8heap_tagged(c, s, m->thin_actual), from,
				 n, out, depth + 1);
	if (repr == m->str_sliced)
		return str_units(
			c, v8heap_tagged(c, s, m->sliced_parent),
			from + (uint32_t)v8heap_smi(
				       c,
				       v8heap_tagged(c, s, m->sliced_offset)),
			n, out, depth + 1);
	if (repr != m->str_cons)
		return -1;
	uint64_t first = v8heap_tagged(c, s, m->cons_first);
	int64_t flen = str_len(c, first, &type);

	if (flen < 0)
		return -1;
	k = 0;
	if (from < flen) {
		k = str_units(c, first, from, n, out, depth + 1);
		if (k < 0)
			return -1;
	}
	if (k < n) {
		int64_t more = str_units(c, v8heap_tagged(c, s, m->cons_second),
					 from + (uint32_t)k - (uint32_t)flen,
					 n - (uint32_t)k, out + k, depth + 1);

		return more < 0 ? -1 : k + more;
	}
	return k;
}

/* String s (at most NAME_UNITS of it) as UTF-8 into out[0..n). 0 or -1. */
static int str_utf8(const struct v8ctx *c, uint64_t s, char *out, size_t n)
{
	uint16_t units[NAME_UNITS];
	char buf[4 * NAME_UNITS + 1];
	int64_t k = str_units(c, s, 0, NAME_UNITS, units, 0);

	if (k < 0)
		return -1;
	pymem_decode((const uint8_t *)units, (size_t)k, 2, buf);
	snprintf(out, n, "%s", buf);
	return 0;
}

/* A ScopeInfo's function name (into name: its first string that is not
 * empty, the function's own name or the one V8 inferred for it, as
 * "Module._compile") and start position (-1 if none found), past its
 * context locals. */
static void scope_scan(const struct v8ctx *c, uint64_t scope, char *name,
		       size_t n, int64_t *start)
{
	const struct v8meta *m = c->m;
	uint64_t slot[SCOPE_SLOTS];
	uint64_t at;
	bool named = false;

	*start = -1;
	if (v8heap_field(c, scope, m->obj_map + 8, slot, sizeof(slot)) ||
	    m->scope_ncontextlocals >= SCOPE_SLOTS)
		return;
	at = m->scope_first_vars +
	     2 * (uint64_t)v8heap_smi(c, slot[m->scope_ncontextlocals]);
	for (; at < SCOPE_SLOTS; at++) {
		uint32_t type;

		if (!named && v8heap_is_object(c, slot[at]) &&
		    str_len(c, slot[at], &type) >= 0)
			named = !str_utf8(c, slot[at], name, n) && name[0];
		if (at > 0 && v8heap_is_smi(c, slot[at]) &&
		    v8heap_is_smi(c, slot[at - 1]) &&
		    v8heap_smi(c, slot[at - 1]) >= 0 &&
		    v8heap_smi(c, slot[at - 1]) < v8heap_smi(c, slot[at])) {
			*start = v8heap_smi(c, slot[at - 1]);
			return;
		}
	}
}

/* The 1-based line and column of position pos in script: by its line
 * ends (a FixedArray of Smis, the position of each '\n'), else by its
 * source read up to pos. 0 or -1. */
static int line_of(struct v8frames *vf, const struct v8ctx *c, uint64_t script,
		   int64_t pos, int64_t *line, int64_t *col)
{
	const struct v8meta *m = c->m;
	uint64_t ends = v8heap_tagged(c, script, m->script_ends), v;
	int64_t lo = 0, hi, k, nl = -1;

	if (v8heap_type(c, ends) == m->t_array) {
		hi = v8heap_smi(
			c, v8heap_tagged(c, ends,
					 m->arr_len)); /* first end >= pos */
		if (hi < 0 || hi > V8FRAME_SOURCE_MAX)
			return -1;
		while (lo < hi) {
			int64_t mid = lo + (hi - lo) / 2;

			if (v8heap_field(c, ends,
					 m->arr_data + 8 * (uint32_t)mid, &v,
					 sizeof(v)))
				return -1;
			if (v8heap_smi(c, v) < pos)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 &&
		    v8heap_field(c, ends, m->arr_data + 8 * (uint32_t)(lo - 1),
				 &v, sizeof(v)))
			return -1;
		*line = lo + 1;
		*col = pos - (lo > 0 ? v8heap_smi(c, v) + 1 : 0) + 1;
		return 0;
	}
	if (pos > V8FRAME_SOURCE_MAX)
		return -1;
	k = str_units(c, v8heap_tagged(c, script, m->script_source), 0,
		      (uint32_t)pos, vf->units, 0);
	if (k != pos)
		return -1;
	*line = 1;
	for (int64_t i = 0; i < k; i++)
		if (vf->units[i] == '\n') {
			(*line)++;
			nl = i;
		}
	*col = pos - (nl + 1) + 1;
	return 0;
}

/* Function sfi of c named into out[0..n), or -ENOENT. */
static int name_sfi(struct v8frames *vf, const struct v8ctx *c, uint64_t sfi,
		    char *out, size_t n)
{
	const struct v8meta *m = c->m;
	char fname[4 * NAME_UNITS + 1] = "?", sname[4 * NAME_UNITS + 1];
	uint64_t nos, script, data;
	int64_t start = -1, line, col;
	uint32_t type;

	if (v8heap_type(c, sfi) != m->t_sfi)
		return -ENOENT;
	nos = v8heap_tagged(c, sfi, m->sfi_name);
	if (v8heap_type(c, nos) == m->t_scope) {
		scope_scan(c, nos, fname, sizeof(fname), &start);
		if (!m->scope_pos)
			start = -1; /* not where scope_scan() found it */
	} else if (str_len(c, nos, &type) >= 0 &&
		   str_utf8(c, nos, fname, sizeof(fname)))
		snprintf(fname, sizeof(fname), "?");
	if (!fname[0])
		snprintf(fname, sizeof(fname), "(anonymous)");
	data = m->unc ? v8heap_tagged(c, sfi, m->sfi_data) : 0;
	type = data ? v8heap_type(c, data) : 0;
	for (int i = 0; data && start < 0 && i < 4; i++) {
		int32_t s;

		if (type == m->t_unc[i] &&
		    !v8heap_field(c, data, m->unc_start, &s, sizeof(s)))
			start = s;
	}
	script = v8heap_tagged(c, sfi, m->sfi_script);
	if (v8heap_type(c, script) != m->t_script ||
	    str_len(c, v8heap_tagged(c, script, m->script_name), &type) < 0 ||
	    str_utf8(c, v8heap_tagged(c, script, m->script_name), sname,
		     sizeof(sname))) {
		snprintf(out, n, "JS:%s", fname);
		return 0;
	}
	if (start >= 0 && !line_of(vf, c, script, start, &line, &col))
		snprintf(out, n, "JS:%s %s:%lld:%lld", fname, sname,
			 (long long)line, (long long)col);
	else
		snprintf(out, n, "JS:%s %s", fname, sname);
	return 0;
}

/* The kept name of (pid, sfi), or NULL. */
static struct kept *kept_of(const struct v8frames *vf, pid_t pid, uint64_t sfi)
{
	uint32_t chain = (uint32_t)((sfi >> 3) ^ (uint64_t)pid) % INDEX;

	for (uint32_t k = vf->index[chain]; k; k = vf->kept[k - 1].next)
		if (vf->kept[k - 1].pid == pid && vf->kept[k - 1].sfi == sfi)
			return &vf->kept[k - 1];
	return NULL;
}

/* Keep name for (pid, sfi) (its name_or_scope_info nos), if there is
 * room. */
static void keep(struct v8frames *vf, pid_t pid, uint64_t sfi, uint64_t nos,
		 const char *name)
{
	uint32_t chain = (uint32_t)((sfi >> 3) ^ (uint64_t)pid) % INDEX;
	struct kept *more;

	if (vf->nkept == V8FRAME_NAMES)
		return;
	if (vf->nkept == vf->capkept) {
		size_t cap = vf->capkept ? 2 * vf->capkept : 256;

		more = realloc(vf->kept, cap * sizeof(*more));
		if (!more)
			return;
		vf->kept = more;
		vf->capkept = cap;
	}
	vf->kept[vf->nkept] =
		(struct kept){ pid, sfi, nos, strdup(name), vf->index[chain] };
	if (!vf->kept[vf->nkept].name)
		return;
	vf->index[chain] = (uint32_t)++vf->nkept;
}

int v8frames_name(struct v8frames *vf, pid_t pid, uint64_t sfi, char *out,
		  size_t n)
{
	struct v8ctx c = { pid, v8frames_meta(vf, pid) };
	struct kept *k = kept_of(vf, pid, sfi);
	uint64_t nos = c.m ? v8heap_tagged(&c, sfi, c.m->sfi_name) : 0;
	char *name;

	if (k && (!nos || nos == k->nos)) { /* the same function, or gone */
		snprintf(out, n, "%s", k->name);
		return 0;
	}
	if (!c.m || name_sfi(vf, &c, sfi, out, n))
		return -ENOENT;
	if (!k) {
		keep(vf, pid, sfi, nos, out);
		return 0;
	}
	name = strdup(out); /* another function there now (moved, freed) */
	if (name) {
		free(k->name);
		k->name = name;
		k->nos = nos;
	}
	return 0;
}
