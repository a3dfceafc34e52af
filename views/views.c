// SPDX-License-Identifier: MIT
/* views — the one list of views, in the order of the 1..7 keys. */
#include <string.h>

#include "view.h"

static const struct view_ops *const ALL[] = {
	&view_dash,   &view_probes, &view_top, &view_hist,   &view_gc, &view_io,
	&view_stacks, &view_help,   &view_log, &view_picker, NULL,
};

const struct view_ops *const *views_all(void)
{
	return ALL;
}

const struct view_ops *views_find(const char *name)
{
	for (size_t i = 0; ALL[i]; i++)
		if (!strcmp(ALL[i]->name, name))
			return ALL[i];
	return NULL;
}
