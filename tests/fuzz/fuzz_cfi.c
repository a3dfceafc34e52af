// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the call frame information reader (cfi.c). The first
 * input byte picks the section kind (.eh_frame or .debug_frame); the
 * rest is the section, at a link-time address of 0x1000.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "cfi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfi_rows rows = { 0 };
	size_t bad = 0;
	int err;

	if (size < 1)
		return 0;
	err = cfi_read(data + 1, size - 1, 0x1000, !(data[0] & 1), &rows, &bad);
	if (err && err != -EBADMSG && err != -ENOMEM)
		abort();
	free(rows.v);
	return 0;
}
