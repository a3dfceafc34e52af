// SPDX-License-Identifier: MIT
/* libFuzzer target: one argument spec, not NUL-terminated, and the
 * whole-string splitter on a terminated copy. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "usdtarg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usdt_arg args[USDT_MAX_ARGS];
	char desc[160];
	char *copy;
	int n;

	usdtarg_decode((const char *)data, size, &args[0]);
	usdtarg_describe(&args[0], desc, sizeof(desc));
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	n = usdtarg_decode_all(copy, args, USDT_MAX_ARGS);
	for (int i = 0; i < (n < 0 ? USDT_MAX_ARGS : n); i++)
		usdtarg_describe(&args[i], desc, sizeof(desc));
	free(copy);
	return 0;
}
