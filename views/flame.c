// SPDX-License-Identifier: MIT
/*
 * flame — the call tree of folded stacks and its icicle layout; see
 * flame.h for the contract.
 *
 * Nodes sit in one array (ids are indices), their names in one arena.
 * Two open-addressed tables find things without walking: `kids` a
 * node's child by name (used when a new stack is split into frames),
 * `stacks` a stack's leaf by its text (used on every refresh).
 */
#include "flame.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct stack_ent {
	uint64_t hash;
	uint32_t len;
	uint32_t leaf; /* FLAME_NIL: empty slot */
};

/* A slot of the child table: a node and its name's hash (FLAME_NIL:
 * empty). */
struct kid_ent {
	uint32_t id;
	uint32_t hash; /* the name's, low half */
};

struct flame {
	struct flame_node *nodes;
	size_t n, cap;
	/* by node, apart from the nodes so that a refresh sweeps little */
	uint64_t *total, *self;
	uint32_t *up; /* parent */
	char *names;
	size_t nnames, capnames;
	struct kid_ent *kids; /* nodes by (parent, name) */
	size_t kcap; /* a power of two */
	struct stack_ent *stacks;
	size_t nstacks, scap; /* a power of two */
	uint32_t *dirty; /* parents given new children since flame_end */
	size_t ndirty, capdirty;
};

/* FNV-1a of s[0..len) */
static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* A hash of the NUL-terminated s, eight bytes at a time; *len its length. */
static uint64_t text_hash(const char *s, uint32_t *len)
{
	size_t n = strlen(s), i = 0;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s + i, n - i);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 29;
	*len = (uint32_t)n;
	return h;
}

static size_t kid_slot(uint32_t parent, uint32_t hash, size_t cap)
{
	uint64_t h = ((uint64_t)parent << 32 | hash) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 29)) & (cap - 1);
}

/* The child table grown to cap (a power of two); 0 or -1. */
static int kids_grow(struct flame *f, size_t cap)
{
	struct kid_ent *t = malloc(cap * sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < cap; i++)
		t[i].id = FLAME_NIL;
	for (size_t i = 0; i < f->kcap; i++) {
		struct kid_ent e = f->kids[i];
		size_t s;

		if (e.id == FLAME_NIL)
			continue;
		s = kid_slot(f->nodes[e.id].parent, e.hash, cap);
		while (t[s].id != FLAME_NIL)
			s = (s + 1) & (cap - 1);
		t[s] = e;
	}
	free(f->kids);
	f->kids = t;
	f->kcap = cap;
	return 0;
}

static int stacks_grow(struct flame *f, size_t cap)
{
	struct stack_ent *t = malloc(cap * sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < cap; i++)
		t[i].leaf = FLAME_NIL;
	for (size_t i = 0; i < f->scap; i++) {
		size_t s;

		if (f->stacks[i].leaf == FLAME_NIL)
			continue;
		s = (size_t)f->stacks[i].hash & (cap - 1);
		while (t[s].leaf != FLAME_NIL)
			s = (s + 1) & (cap - 1);
		t[s] = f->stacks[i];
	}
	free(f->stacks);
	f->stacks = t;
	f->scap = cap;
	return 0;
}

/* Append name[0..len) to the arena; its offset, or UINT32_MAX. */
static uint32_t keep_name(struct flame *f, const char *name, size_t len)
{
	uint32_t at = (uint32_t)f->nnames;

	if (f->nnames + len + 1 > f->capnames) {
		size_t cap = f->capnames * 2 + len + 1;
		char *v = realloc(f->names, cap);

		if (!v)
			return UINT32_MAX;
		f->names = v;
		f->capnames = cap;
	}
	memcpy(f->names + at, name, len);
	f->names[at + len] = '\0';
	f->nnames += len + 1;
	return at;
}

static void mark_dirty(struct flame *f, uint32_t parent)
{
	if (f->ndirty && f->dirty[f->ndirty - 1] == parent)
		return;
	if (f->ndirty == f->capdirty) {
		size_t cap = f->capdirty ? f->capdirty * 2 : 64;
		uint32_t *v = realloc(f->dirty, cap * sizeof(*v));

		if (!v)
			return; /* the new child stays unsorted: still drawn */
		f->dirty = v;
		f->capdirty = cap;
	}
	f->dirty[f->ndirty++] = parent;
}

/* Room for cap nodes; 0 or -1 (what there is stays as it was). */
static int grow_nodes(struct flame *f, size_t cap)
{
	struct flame_node *v = realloc(f->nodes, cap * sizeof(*v));
	uint64_t *t, *sf;
	uint32_t *up;

	if (!v)
		return -1;
	f->nodes = v;
	t = realloc(f->total, cap * sizeof(*t));
	if (!t)
		return -1;
	f->total = t;
	sf = realloc(f->self, cap * sizeof(*sf));
	if (!sf)
		return -1;
	f->self = sf;
	up = realloc(f->up, cap * sizeof(*up));
	if (!up)
		return -1;
	f->up = up;
	f->cap = cap;
	return 0;
}

/* A new child of parent named name[0..len), of module mod[0..mlen)
 * (mlen 0: none); its id, or FLAME_NIL. */
static uint32_t new_node(struct flame *f, uint32_t parent, const char *name,
			 size_t len, uint32_t hash, const char *mod,
			 size_t mlen)
{
	struct flame_node *nd;
	uint32_t id = (uint32_t)f->n, off, moff;
	size_t s;

	if ((f->n + 1) * 2 > f->kcap && kids_grow(f, f->kcap * 2))
		return FLAME_NIL;
	if (f->n == f->cap && grow_nodes(f, f->cap * 2))
		return FLAME_NIL;
	off = keep_name(f, name, len);
	if (off == UINT32_MAX)
		return FLAME_NIL;
	moff = mlen ? keep_name(f, mod, mlen) : FLAME_NIL;
	if (moff == UINT32_MAX)
		moff = FLAME_NIL; /* the frame without its module */
	nd = &f->nodes[id];
	*nd = (struct flame_node){ .parent = parent,
				   .child = FLAME_NIL,
				   .next = f->nodes[parent].child,
				   .name = off,
				   .mod = moff,
				   .depth = f->nodes[parent].depth + 1 };
	f->nodes[parent].child = id;
	f->up[id] = parent;
	f->total[id] = f->self[id] = 0;
	f->n++;
	s = kid_slot(parent, hash, f->kcap);
	while (f->kids[s].id != FLAME_NIL)
		s = (s + 1) & (f->kcap - 1);
	f->kids[s] = (struct kid_ent){ id, hash };
	mark_dirty(f, parent);
	return id;
}

/* parent's child named name[0..len), whose name hashes to h, or
 * FLAME_NIL */
static uint32_t find_kid(const struct flame *f, uint32_t parent,
			 const char *name, size_t len, uint32_t h)
{
	size_t s = kid_slot(parent, h, f->kcap);

	for (; f->kids[s].id != FLAME_NIL; s = (s + 1) & (f->kcap - 1)) {
		const struct flame_node *nd = &f->nodes[f->kids[s].id];
		const char *nm = f->names + nd->name;

		if (f->kids[s].hash == h && nd->parent == parent &&
		    !strncmp(nm, name, len) && !nm[len])
			return f->kids[s].id;
	}
	return FLAME_NIL;
}

/* parent's child named name[0..len), made if new (of module
 * mod[0..mlen)); FLAME_NIL on ENOMEM */
static uint32_t child(struct flame *f, uint32_t parent, const char *name,
		      size_t len, const char *mod, size_t mlen)
{
	uint32_t h = (uint32_t)name_hash(name, len);
	uint32_t id = find_kid(f, parent, name, len, h);

	return id != FLAME_NIL ? id
			       : new_node(f, parent, name, len, h, mod, mlen);
}

/* The leaf of a stack seen for the first time: its frames walked from
 * the root, new ones made, each with its part of mods (may be NULL). */
static uint32_t split(struct flame *f, const char *stack, const char *mods)
{
	uint32_t at = FLAME_ROOT;
	const char *p = stack, *m = mods ? mods : "";

	while (*p && f->nodes[at].depth < FLAME_MAX_DEPTH) {
		size_t len = strcspn(p, ";"), mlen = strcspn(m, ";");

		if (len) {
			at = child(f, at, p, len, m, mlen);
			if (at == FLAME_NIL)
				return FLAME_NIL;
		}
		p += len;
		if (*p == ';')
			p++;
		m += mlen;
		if (*m == ';')
			m++;
	}
	return at;
}

struct flame *flame_new(void)
{
	struct flame *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (grow_nodes(f, 1024) || kids_grow(f, 2048) || stacks_grow(f, 1024)) {
		flame_free(f);
		errno = ENOMEM;
		return NULL;
	}
	flame_reset(f);
	return f;
}

void flame_free(struct flame *f)
{
	if (!f)
		return;
	free(f->nodes);
	free(f->total);
	free(f->self);
	free(f->up);
	free(f->names);
	free(f->kids);
	free(f->stacks);
	free(f->dirty);
	free(f);
}

void flame_reset(struct flame *f)
{
	f->n = 1;
	f->nnames = 0;
	f->nodes[0] = (struct flame_node){ .parent = FLAME_NIL,
					   .child = FLAME_NIL,
					   .next = FLAME_NIL,
					   .name = keep_name(f, "all", 3),
					   .mod = FLAME_NIL };
	f->up[0] = FLAME_NIL;
	f->total[0] = f->self[0] = 0;
	for (size_t i = 0; i < f->kcap; i++)
		f->kids[i].id = FLAME_NIL;
	for (size_t i = 0; i < f->scap; i++)
		f->stacks[i].leaf = FLAME_NIL;
	f->nstacks = 0;
	f->ndirty = 0;
}

void flame_begin(struct flame *f)
{
	memset(f->total, 0, f->n * sizeof(*f->total));
	memset(f->self, 0, f->n * sizeof(*f->self));
}

/* The leaf of stack: from the stack table, else split (with mods) and
 * remembered. */
static uint32_t leaf_of(struct flame *f, const char *stack, const char *mods)
{
	uint32_t len, leaf;
	uint64_t h = text_hash(stack, &len);
	size_t s = (size_t)h & (f->scap - 1);

	for (; f->stacks[s].leaf != FLAME_NIL; s = (s + 1) & (f->scap - 1))
		if (f->stacks[s].hash == h && f->stacks[s].len == len)
			return f->stacks[s].leaf;
	leaf = split(f, stack, mods);
	if (leaf == FLAME_NIL)
		return leaf;
	f->stacks[s] = (struct stack_ent){ h, len, leaf };
	if (++f->nstacks * 2 > f->scap)
		stacks_grow(f, f->scap * 2); /* on ENOMEM the table fills on */
	return leaf;
}

int flame_add_mods(struct flame *f, const char *stack, const char *mods,
		   uint64_t count)
{
	uint32_t at;

	if (f->nstacks + 1 >= f->scap)
		return -ENOMEM; /* the table could not grow */
	at = leaf_of(f, stack, mods);
	if (at == FLAME_NIL)
		return -ENOMEM;
	f->self[at] += count;
	return 0;
}

int flame_add(struct flame *f, const char *stack, uint64_t count)
{
	return flame_add_mods(f, stack, NULL, count);
}

static int cmp_names(const void *a, const void *b, void *arg)
{
	const struct flame *f = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return strcmp(f->names + f->nodes[x].name, f->names + f->nodes[y].name);
}

/* parent's children relinked in name order; false on ENOMEM */
static bool sort_children(struct flame *f, uint32_t parent)
{
	size_t n = 0;
	uint32_t *v, c;

	for (c = f->nodes[parent].child; c != FLAME_NIL; c = f->nodes[c].next)
		n++;
	v = malloc(n * sizeof(*v));
	if (!v)
		return false;
	n = 0;
	for (c = f->nodes[parent].child; c != FLAME_NIL; c = f->nodes[c].next)
		v[n++] = c;
	qsort_r(v, n, sizeof(*v), cmp_names, f);
	f->nodes[parent].child = v[0];
	for (size_t i = 0; i < n; i++)
		f->nodes[v[i]].next = i + 1 < n ? v[i + 1] : FLAME_NIL;
	free(v);
	return true;
}

void flame_end(struct flame *f)
{
	/* a child's id is above its parent's: one pass from the last node
	 * has every child's total before its parent's */
	for (size_t i = f->n; i-- > 1;) {
		f->total[i] += f->self[i];
		f->total[f->up[i]] += f->total[i];
	}
	f->total[0] += f->self[0];
	for (size_t i = 0; i < f->ndirty; i++)
		sort_children(f, f->dirty[i]);
	f->ndirty = 0;
}

size_t flame_count(const struct flame *f)
{
	return f->n;
}

const struct flame_node *flame_node(const struct flame *f, uint32_t id)
{
	return id < f->n ? &f->nodes[id] : NULL;
}

uint64_t flame_total(const struct flame *f, uint32_t id)
{
	return id < f->n ? f->total[id] : 0;
}

uint64_t flame_self(const struct flame *f, uint32_t id)
{
	return id < f->n ? f->self[id] : 0;
}

const char *flame_name(const struct flame *f, uint32_t id)
{
	return id < f->n ? f->names + f->nodes[id].name : "";
}

uint32_t flame_child(const struct flame *f, uint32_t parent, const char *name)
{
	size_t len = strlen(name);

	if (parent >= f->n || !f->kcap)
		return FLAME_NIL;
	return find_kid(f, parent, name, len, (uint32_t)name_hash(name, len));
}

const char *flame_mod(const struct flame *f, uint32_t id)
{
	return id < f->n && f->nodes[id].mod != FLAME_NIL
		       ? f->names + f->nodes[id].mod
		       : "";
}

/* Append a cell to out[0..cap) at *n; false when full. */
static bool emit(struct flame_cell *out, size_t cap, size_t *n,
		 struct flame_cell c)
{
	if (*n >= cap)
		return false;
	out[(*n)++] = c;
	return true;
}

/* The children of cell p, a row below it: the wide ones (one cell or
 * more) in name order from p's left edge, then a `+` for the others. */
static void lay_children(const struct flame *f, struct flame_cell p,
			 struct flame_cell *out, size_t cap, size_t *n)
{
	const struct flame_node *pn = &f->nodes[p.node];
	double s = (double)p.w / (double)f->total[p.node];
	uint64_t acc = 0, narrow = 0;
	size_t last = SIZE_MAX; /* the last wide child's cell */
	int row = p.row + 1, start, end;

	for (uint32_t c = pn->child; c != FLAME_NIL; c = f->nodes[c].next) {
		uint64_t t = f->total[c];

		if (!t)
			continue;
		if ((double)t * s < 1) {
			narrow += t;
			continue;
		}
		start = p.x + (int)lround((double)acc * s);
		end = p.x + (int)lround((double)(acc + t) * s);
		acc += t;
		last = *n;
		if (!emit(out, cap, n,
			  (struct flame_cell){ c, row, start, end - start, t }))
			return;
	}
	if (!narrow)
		return;
	start = p.x + (int)lround((double)acc * s);
	end = p.x + (int)lround((double)(acc + narrow) * s);
	if (end <= start)
		end = start + 1;
	if (end > p.x + p.w) {
		end = p.x + p.w;
		if (start >= end) { /* no room: take a cell of the last one */
			if (last == SIZE_MAX || out[last].w < 2)
				return;
			out[last].w--;
			start = end - 1;
		}
	}
	emit(out, cap, n,
	     (struct flame_cell){ FLAME_MERGED, row, start, end - start,
				  narrow });
}

size_t flame_layout(const struct flame *f, uint32_t zoom, int width, int rows,
		    struct flame_cell *out, size_t cap)
{
	size_t n = 0, from = 0, to;

	if (zoom >= f->n || !f->total[zoom] || width < 1 || rows < 1)
		return 0;
	emit(out, cap, &n,
	     (struct flame_cell){ zoom, 0, 0, width, f->total[zoom] });
	for (int row = 1; row < rows && from < n; row++) {
		to = n;
		for (size_t i = from; i < to; i++)
			if (out[i].node != FLAME_MERGED)
				lay_children(f, out[i], out, cap, &n);
		from = to;
	}
	return n;
}

bool flame_matches(const struct flame *f, uint32_t id, const char *pat,
		   bool exact)
{
	const char *name = flame_name(f, id);

	return pat[0] && (exact ? !strcmp(name, pat) : !!strstr(name, pat));
}

/* The node after at in a walk of zoom's subtree (children first when
 * down), or FLAME_NIL at its end. */
static uint32_t walk_next(const struct flame *f, uint32_t zoom, uint32_t at,
			  bool down)
{
	if (down && f->nodes[at].child != FLAME_NIL)
		return f->nodes[at].child;
	while (at != zoom) {
		if (f->nodes[at].next != FLAME_NIL)
			return f->nodes[at].next;
		at = f->nodes[at].parent;
	}
	return FLAME_NIL;
}

uint64_t flame_match_total(const struct flame *f, uint32_t zoom,
			   const char *pat, bool exact, size_t *nodes)
{
	uint64_t sum = 0;
	uint32_t inside = FLAME_NIL; /* the outermost match above */

	*nodes = 0;
	if (zoom >= f->n || !pat[0])
		return 0;
	for (uint32_t at = zoom; at != FLAME_NIL;) {
		const struct flame_node *nd = &f->nodes[at];

		if (!f->total[at]) {
			at = walk_next(f, zoom, at, false);
			continue;
		}
		if (inside != FLAME_NIL && nd->depth <= f->nodes[inside].depth)
			inside = FLAME_NIL; /* left its subtree */
		if (flame_matches(f, at, pat, exact)) {
			(*nodes)++;
			if (inside == FLAME_NIL) {
				sum += f->total[at];
				inside = at;
			}
		}
		at = walk_next(f, zoom, at, true);
	}
	return sum;
}
