/* SPDX-License-Identifier: MIT */
/*
 * note — parse the raw bytes of an ELF `.note.stapsdt` section.
 *
 * Each SystemTap SDT note is an ELF note named "stapsdt", type 3, whose
 * descriptor holds three target addresses (the probe's pc, the link-time
 * address of `.stapsdt.base`, the semaphore or 0) followed by three
 * NUL-terminated strings: provider, name, argument spec. Addresses are 4 or
 * 8 bytes wide depending on the ELF class.
 *
 * This module only reads the bytes it is given (no libelf, no I/O), checks
 * every size against the buffer, and hands out pointers into that buffer,
 * so it can be unit-tested on corrupted sections and fuzzed directly.
 */
#ifndef PROBETOP_NOTE_H
#define PROBETOP_NOTE_H

#include <stddef.h>
#include <stdint.h>

#define NT_STAPSDT 3

struct usdt_note {
	uint64_t pc; /* link-time address of the probe site */
	uint64_t base; /* link-time address of .stapsdt.base */
	uint64_t semaphore; /* link-time address of the semaphore, 0 if none */
	const char *provider; /* these three point into the section buffer */
	const char *name;
	const char *args; /* "" when the probe has no arguments */
	size_t offset; /* of the note within the section */
};

/* Called for each stapsdt note; a non-zero return stops the walk. */
typedef int (*note_fn)(const struct usdt_note *note, void *ctx);

/*
 * Walk the notes in data[0..len). addr_size is 4 (ELFCLASS32) or 8.
 * Notes of other owners or types are skipped. Returns 0 at the end,
 * the callback's non-zero value if it stopped the walk, or -EBADMSG on a
 * malformed note, with a one-line reason ("bad note at offset 0x1c4:
 * descriptor runs past the section end") written to err[0..errlen).
 * Notes before the bad one have already been delivered.
 */
int note_parse(const void *data, size_t len, int addr_size, note_fn fn,
	       void *ctx, char *err, size_t errlen);

#endif
