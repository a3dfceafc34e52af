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

struct flame {
	struct flame_node *nodes;
	size_t n, cap;
	char *names;
	size_t nnames, capnames;
	uint32_t *kids; /* node ids by (parent, name); FLAME_NIL: empty */
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

static size_t kid_slot(uint32_t parent, uint64_t hash, size_t cap)
{
	uint64_t h = hash ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull);

	return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

/* Grow a power-of-two table of NIL-filled uint32_t to cap; 0 or -1. */
static int kids_grow(struct flame *f, size_t cap)
{
	uint32_t *t = malloc(cap * sizeof(*t));

	if (!t)
		return -1;
	memset(t, 0xff, cap * sizeof(*t));
	for (size_t i = 1; i < f->n; i++) { /* every node but the root */
		const struct flame_node *nd = &f->nodes[i];
		size_t s = kid_slot(nd->parent, nd->hash, cap);

		while (t[s] != FLAME_NIL)
			s = (s + 1) & (cap - 1);
		t[s] = (uint32_t)i;
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

/* A new child of parent named name[0..len); its id, or FLAME_NIL. */
static uint32_t new_node(struct flame *f, uint32_t parent, const char *name,
			 size_t len, uint64_t hash)
{
	struct flame_node *nd;
	uint32_t id = (uint32_t)f->n, off;
	size_t s;

	if ((f->n + 1) * 2 > f->kcap && kids_grow(f, f->kcap * 2))
		return FLAME_NIL;
	if (f->n == f->cap) {
		size_t cap = f->cap * 2;
		struct flame_node *v = realloc(f->nodes, cap * sizeof(*v));

		if (!v)
			return FLAME_NIL;
		f->nodes = v;
		f->cap = cap;
	}
	off = keep_name(f, name, len);
	if (off == UINT32_MAX)
		return FLAME_NIL;
	nd = &f->nodes[id];
	*nd = (struct flame_node){ .parent = parent,
				   .child = FLAME_NIL,
				   .next = f->nodes[parent].child,
				   .name = off,
				   .depth = f->nodes[parent].depth + 1,
				   .hash = hash };
	f->nodes[parent].child = id;
	f->n++;
	s = kid_slot(parent, hash, f->kcap);
	while (f->kids[s] != FLAME_NIL)
		s = (s + 1) & (f->kcap - 1);
	f->kids[s] = id;
	mark_dirty(f, parent);
	return id;
}

/* parent's child named name[0..len), made if new; FLAME_NIL on ENOMEM */
static uint32_t child(struct flame *f, uint32_t parent, const char *name,
		      size_t len)
{
	uint64_t h = name_hash(name, len);
	size_t s = kid_slot(parent, h, f->kcap);

	for (; f->kids[s] != FLAME_NIL; s = (s + 1) & (f->kcap - 1)) {
		const struct flame_node *nd = &f->nodes[f->kids[s]];
		const char *nm = f->names + nd->name;

		if (nd->parent == parent && nd->hash == h &&
		    !strncmp(nm, name, len) && !nm[len])
			return f->kids[s];
	}
	return new_node(f, parent, name, len, h);
}

/* The leaf of a stack seen for the first time: its frames walked from
 * the root, new ones made. */
static uint32_t split(struct flame *f, const char *stack)
{
	uint32_t at = FLAME_ROOT;
	const char *p = stack;

	while (*p && f->nodes[at].depth < FLAME_MAX_DEPTH) {
		size_t len = strcspn(p, ";");

		if (len) {
			at = child(f, at, p, len);
			if (at == FLAME_NIL)
				return FLAME_NIL;
		}
		p += len;
		if (*p == ';')
			p++;
	}
	return at;
}

struct flame *flame_new(void)
{
	struct flame *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->cap = 1024;
	f->nodes = malloc(f->cap * sizeof(*f->nodes));
	if (!f->nodes || kids_grow(f, 2048) || stacks_grow(f, 1024)) {
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
					   .name = keep_name(f, "all", 3) };
	memset(f->kids, 0xff, f->kcap * sizeof(*f->kids));
	for (size_t i = 0; i < f->scap; i++)
		f->stacks[i].leaf = FLAME_NIL;
	f->nstacks = 0;
	f->ndirty = 0;
}

void flame_begin(struct flame *f)
{
	for (size_t i = 0; i < f->n; i++)
		f->nodes[i].total = f->nodes[i].self = 0;
}

/* The leaf of stack: from the stack table, else split and remembered. */
static uint32_t leaf_of(struct flame *f, const char *stack)
{
	uint32_t len, leaf;
	uint64_t h = text_hash(stack, &len);
	size_t s = (size_t)h & (f->scap - 1);

	for (; f->stacks[s].leaf != FLAME_NIL; s = (s + 1) & (f->scap - 1))
		if (f->stacks[s].hash == h && f->stacks[s].len == len)
			return f->stacks[s].leaf;
	leaf = split(f, stack);
	if (leaf == FLAME_NIL)
		return leaf;
	f->stacks[s] = (struct stack_ent){ h, len, leaf };
	if (++f->nstacks * 2 > f->scap)
		stacks_grow(f, f->scap * 2); /* on ENOMEM the table fills on */
	return leaf;
}

int flame_add(struct flame *f, const char *stack, uint64_t count)
{
	uint32_t at;

	if (f->nstacks + 1 >= f->scap)
		return -ENOMEM; /* the table could not grow */
	at = leaf_of(f, stack);
	if (at == FLAME_NIL)
		return -ENOMEM;
	f->nodes[at].self += count;
	for (; at != FLAME_NIL; at = f->nodes[at].parent)
		f->nodes[at].total += count;
	return 0;
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

const char *flame_name(const struct flame *f, uint32_t id)
{
	return id < f->n ? f->names + f->nodes[id].name : "";
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
	double s = (double)p.w / (double)pn->total;
	uint64_t acc = 0, narrow = 0;
	size_t last = SIZE_MAX; /* the last wide child's cell */
	int row = p.row + 1, start, end;

	for (uint32_t c = pn->child; c != FLAME_NIL; c = f->nodes[c].next) {
		uint64_t t = f->nodes[c].total;

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

	if (zoom >= f->n || !f->nodes[zoom].total || width < 1 || rows < 1)
		return 0;
	emit(out, cap, &n,
	     (struct flame_cell){ zoom, 0, 0, width, f->nodes[zoom].total });
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
	if (zoom >= f->n)
		return 0;
	for (uint32_t at = zoom; at != FLAME_NIL;) {
		const struct flame_node *nd = &f->nodes[at];

		if (!nd->total) {
			at = walk_next(f, zoom, at, false);
			continue;
		}
		if (inside != FLAME_NIL && nd->depth <= f->nodes[inside].depth)
			inside = FLAME_NIL; /* left its subtree */
		if (flame_matches(f, at, pat, exact)) {
			(*nodes)++;
			if (inside == FLAME_NIL) {
				sum += nd->total;
				inside = at;
			}
		}
		at = walk_next(f, zoom, at, true);
	}
	return sum;
}
