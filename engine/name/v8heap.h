/* SPDX-License-Identifier: MIT */
/*
 * v8heap — a V8 process's heap objects read from outside it, by V8's
 * metadata (v8meta.h): a tagged value told a heap object's pointer or a
 * Smi, an object's fields, its map's instance type. Every read goes
 * through pymem_peek() (a process gone or an address unmapped is an
 * error, never a fault); nothing is kept.
 */
#ifndef PROBETOP_V8HEAP_H
#define PROBETOP_V8HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct v8meta;

/* What a read needs: the process and its metadata. */
struct v8ctx {
	pid_t pid;
	const struct v8meta *m;
};

/* Whether tagged value v is a heap object's pointer. */
bool v8heap_is_object(const struct v8ctx *c, uint64_t v);

/* Whether tagged value v is a Smi. */
bool v8heap_is_smi(const struct v8ctx *c, uint64_t v);

/* Smi v's value. */
int64_t v8heap_smi(const struct v8ctx *c, uint64_t v);

/* n bytes of heap object obj (tagged) at field offset off into buf. 0,
 * or -1 (obj no heap object's pointer, or unreadable). */
int v8heap_field(const struct v8ctx *c, uint64_t obj, uint32_t off, void *buf,
		 size_t n);

/* The tagged value at field off of obj; 0 if unreadable. */
uint64_t v8heap_tagged(const struct v8ctx *c, uint64_t obj, uint32_t off);

/* obj's instance type (its map's), or UINT32_MAX (no heap object, or
 * unreadable). */
uint32_t v8heap_type(const struct v8ctx *c, uint64_t obj);

#endif
