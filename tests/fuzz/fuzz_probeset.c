// SPDX-License-Identifier: MIT
/* libFuzzer target: the probeset loader on any text; a file that loads
 * must hold only what the views can index safely. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probeset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct probeset ps;
	char err[600];
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!probeset_parse("fuzz.ini", text, &ps, err, sizeof(err))) {
		if (!ps.name[0] || ps.nspecs > PS_MAX_SPECS ||
		    ps.nsections > PS_MAX_SECTIONS ||
		    ps.nnotes > PS_MAX_NOTES || ps.ndetect > PS_MAX_DETECT)
			abort();
		for (int i = 0; i < ps.nspecs; i++)
			if (ps.specs[i].section < 0 ||
			    ps.specs[i].section >= ps.nsections)
				abort();
		for (int i = 0; i < ps.nsections; i++)
			if (ps.sections[i].nlabels < 0 ||
			    ps.sections[i].nlabels > PS_MAX_LABELS)
				abort();
	} else if (!strchr(err, ':')) {
		abort(); /* every error names the file */
	}
	free(text);
	return 0;
}
