// SPDX-License-Identifier: MIT
/* libFuzzer target: the SPEC parser on any text; a spec that parses must
 * satisfy the invariants the tracer relies on. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spec sp;
	char err[256];
	char *text = malloc(size + 1);
	int nstrs = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!spec_parse(text, &sp, err, sizeof(err))) {
		if (sp.nprobes < 1 || sp.nprobes > 2 || sp.nkeys < 0 ||
		    sp.nkeys > SPEC_MAX_KEYS ||
		    (sp.val_arg > SPEC_MAX_ARG &&
		     !spec_arg_global(&sp, sp.val_arg)) ||
		    sp.nglobals < 0 || sp.nglobals > SPEC_MAX_GLOBALS)
			abort();
		for (int i = 0; i < sp.nkeys; i++) {
			bool py = spec_key_is_ctx(&sp.keys[i]);

			/* keys read where it fired (pyframe ... mixstack) read
			 * no argument */
			if (py ? sp.keys[i].arg != -1
			       : sp.keys[i].arg < 0 ||
					    (sp.keys[i].arg > SPEC_MAX_ARG &&
					     !spec_arg_global(&sp,
							      sp.keys[i].arg)))
				abort();
			nstrs += spec_key_is_str(&sp.keys[i]);
		}
		if (sp.probe[0].hz && (sp.probe[0].hz > SPEC_PROFILE_MAX_HZ ||
				       sp.nprobes != 1 || sp.val_arg >= 0))
			abort(); /* profile:HZ: a sample, no arguments */
		if (nstrs > SPEC_MAX_STRS)
			abort();
		if (sp.agg == SPEC_AGG_LQUANTIZE &&
		    (sp.lq_step <= 0 || sp.lq_high <= sp.lq_low))
			abort();
	} else if (!err[0] || !strstr(err, " at column ")) {
		abort(); /* every error says where */
	}
	free(text);
	return 0;
}
