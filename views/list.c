// SPDX-License-Identifier: MIT
/* list — the cursor and scroll of the views that show a list of rows. */
#include "view.h"

#define LIST_PAGE 10

bool list_move(size_t *cursor, size_t n, enum action a)
{
	size_t c = *cursor, last = n ? n - 1 : 0;

	switch (a) {
	case ACT_UP:
		c = c ? c - 1 : 0;
		break;
	case ACT_DOWN:
		c = c < last ? c + 1 : last;
		break;
	case ACT_PGUP:
		c = c > LIST_PAGE ? c - LIST_PAGE : 0;
		break;
	case ACT_PGDN:
		c = c + LIST_PAGE < n ? c + LIST_PAGE : last;
		break;
	case ACT_HOME:
		c = 0;
		break;
	case ACT_END:
		c = last;
		break;
	default:
		return false;
	}
	*cursor = c;
	return true;
}

void list_scroll(size_t cursor, size_t *scroll, int lines)
{
	if (cursor < *scroll)
		*scroll = cursor;
	if (lines > 0 && cursor >= *scroll + (size_t)lines)
		*scroll = cursor - (size_t)lines + 1;
}
