/* SPDX-License-Identifier: MIT */
/*
 * rbmem — Ruby's objects read from another process's memory
 * (process_vm_readv, pymem_peek()), by the layout of its version
 * (rblayout.h): String and Array objects, an ID's name from the global
 * symbol table, and where that table is. Called by rbframe.c, which
 * names frames with them when the kernel could not.
 */
#ifndef PROBETOP_RBMEM_H
#define PROBETOP_RBMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rblayout;

/* The String at str in pid into buf (n bytes, NUL-terminated): its first
 * n - 1 bytes, or its last if tail. 0, or -1 (not a String,
 * unreadable). */
int rbmem_str(pid_t pid, const struct rblayout *l, uint64_t str, char *buf,
	      size_t n, bool tail);

/* Element idx of the Array ary in pid; 0 if not an Array, out of range
 * or unreadable. */
uint64_t rbmem_ary_at(pid_t pid, const struct rblayout *l, uint64_t ary,
		      uint64_t idx);

/* The name of ID id in pid, whose global symbol table is at syms, into
 * buf (n bytes). 0 or -1. */
int rbmem_id_name(pid_t pid, const struct rblayout *l, uint64_t syms,
		  uint64_t id, char *buf, size_t n);

/*
 * Where the global symbol table of the Ruby in pid is, found in the code
 * of its rb_id2str() at id2str (an address in pid): the function it
 * jumps to compares the serial with the table's last_id and loads its
 * ids (l->syms_ids further), both RIP-relative. 0, or -1 if that code
 * is not found (a build that differs: C methods stay unnamed).
 */
int rbmem_find_syms(pid_t pid, const struct rblayout *l, uint64_t id2str,
		    uint64_t *syms);

#endif
