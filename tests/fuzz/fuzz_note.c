// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the .note.stapsdt section parser, then the argument
 * decoder on every argument string it hands out. The first input byte
 * picks the ELF class (4- or 8-byte addresses).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "note.h"
#include "usdtarg.h"

static int decode_args(const struct usdt_note *note, void *ctx)
{
	struct usdt_arg args[USDT_MAX_ARGS];
	char desc[160];
	int n;

	(void)ctx;
	/* provider and name must be NUL-terminated inside the buffer */
	if (strlen(note->provider) + strlen(note->name) == 0)
		return 1;
	n = usdtarg_decode_all(note->args, args, USDT_MAX_ARGS);
	for (int i = 0; i < (n < 0 ? USDT_MAX_ARGS : n); i++)
		usdtarg_describe(&args[i], desc, sizeof(desc));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[200];

	if (size < 1)
		return 0;
	note_parse(data + 1, size - 1, (data[0] & 1) ? 4 : 8, decode_args, NULL,
		   err, sizeof(err));
	return 0;
}
