// SPDX-License-Identifier: MIT
/*
 * draw — drawing helpers shared by the views; see draw.h.
 *
 * Text goes through wide characters so that clipping counts columns, not
 * bytes (a "µs" or a block character is one column). What comes from a
 * target reaches draw_text() inert already (engine/name/inert.h), so that
 * columns are measured on what is shown; a line that still holds a
 * control or invalid UTF-8 is made inert whole there, as a last resort,
 * so that nothing drawn can act on the terminal or take two lines.
 */
#include "draw.h"

#include <curses.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "inert.h"

static bool use_color, use_utf8;
static int mod_hues = 6;

#define HUE_PAIR 6 /* the colour pair of enum draw_hue 0 */

/* The backgrounds of the flame's hues (black text on them), by enum
 * draw_hue: on 8 colours, the module hues are the six colours besides
 * black and white, so that six modules differ (the Python and native
 * hues share them: a stack has either kind); on 256, twelve light
 * colours of the xterm cube that differ in hue. */
static const short hue8[HUE_ALL] = {
	[HUE_PY_A] = COLOR_YELLOW,     [HUE_PY_B] = COLOR_GREEN,
	[HUE_NATIVE_A] = COLOR_RED,    [HUE_NATIVE_B] = COLOR_MAGENTA,
	[HUE_OTHER] = COLOR_WHITE,     [HUE_MOD + 0] = COLOR_YELLOW,
	[HUE_MOD + 1] = COLOR_CYAN,    [HUE_MOD + 2] = COLOR_GREEN,
	[HUE_MOD + 3] = COLOR_MAGENTA, [HUE_MOD + 4] = COLOR_RED,
	[HUE_MOD + 5] = COLOR_BLUE,    [HUE_GROW + 0] = COLOR_RED,
	[HUE_GROW + 1] = COLOR_RED,    [HUE_GROW + 2] = COLOR_RED,
	[HUE_SHRINK + 0] = COLOR_BLUE, [HUE_SHRINK + 1] = COLOR_BLUE,
	[HUE_SHRINK + 2] = COLOR_BLUE, [HUE_SAME] = COLOR_WHITE,
};
static const short hue256[HUE_ALL] = {
	[HUE_PY_A] = 222,
	[HUE_PY_B] = 150,
	[HUE_NATIVE_A] = 210,
	[HUE_NATIVE_B] = 182,
	[HUE_OTHER] = 252,
	[HUE_MOD + 0] = 222,
	[HUE_MOD + 1] = 117,
	[HUE_MOD + 2] = 150,
	[HUE_MOD + 3] = 218,
	[HUE_MOD + 4] = 210,
	[HUE_MOD + 5] = 147,
	[HUE_MOD + 6] = 159,
	[HUE_MOD + 7] = 186,
	[HUE_MOD + 8] = 180,
	[HUE_MOD + 9] = 115,
	[HUE_MOD + 10] = 183,
	[HUE_MOD + 11] = 229,
	/* pink to red, pale to mid blue, grey */
	[HUE_GROW + 0] = 224,
	[HUE_GROW + 1] = 210,
	[HUE_GROW + 2] = 203,
	[HUE_SHRINK + 0] = 189,
	[HUE_SHRINK + 1] = 153,
	[HUE_SHRINK + 2] = 111,
	[HUE_SAME] = 252,
};

void draw_init(bool color, bool utf8)
{
	const short *bg;

	use_color = color && has_colors();
	use_utf8 = utf8;
	if (!use_color)
		return;
	start_color();
	use_default_colors();
	init_pair(1, COLOR_CYAN, -1); /* title */
	init_pair(2, COLOR_GREEN, -1); /* bar */
	init_pair(3, COLOR_YELLOW, -1); /* mark */
	init_pair(4, COLOR_RED, -1); /* warn */
	init_pair(5, COLOR_BLACK, COLOR_CYAN); /* header */
	mod_hues = COLORS >= 256 && COLOR_PAIRS > HUE_PAIR + HUE_ALL
			   ? DRAW_MOD_HUES_MAX
			   : 6;
	bg = mod_hues == DRAW_MOD_HUES_MAX ? hue256 : hue8;
	for (int h = 0; h < HUE_ALL; h++) /* flame frames */
		if (h < HUE_MOD + mod_hues || h >= HUE_N)
			init_pair((short)(HUE_PAIR + h), COLOR_BLACK, bg[h]);
}

int draw_mod_hues(void)
{
	return mod_hues;
}

bool draw_utf8(void)
{
	return use_utf8;
}

static attr_t style_attr(enum draw_style st)
{
	switch (st) {
	case STYLE_TITLE:
		return A_BOLD | (use_color ? COLOR_PAIR(1) : 0);
	case STYLE_SELECTED:
		return A_REVERSE;
	case STYLE_BAR:
		return use_color ? COLOR_PAIR(2) : 0;
	case STYLE_MARK:
		return A_BOLD | (use_color ? COLOR_PAIR(3) : 0);
	case STYLE_WARN:
		return A_BOLD | (use_color ? COLOR_PAIR(4) : 0);
	case STYLE_DIM:
		return A_DIM;
	case STYLE_HEADER:
		return use_color ? COLOR_PAIR(5) : A_REVERSE;
	default:
		return A_NORMAL;
	}
}

/* s as wide characters in ws[0..n) (NUL-terminated); false if s is not
 * valid UTF-8 or holds a control. */
static bool widen(const char *s, wchar_t *ws, size_t n)
{
	size_t len = mbstowcs(ws, s, n - 1);

	if (len == (size_t)-1) {
		ws[0] = L'\0';
		return false;
	}
	ws[len] = L'\0';
	for (size_t i = 0; i < len; i++)
		if (ws[i] < 0x20 || (ws[i] >= 0x7f && ws[i] < 0xa0))
			return false;
	return true;
}

/* s at (y, x) in attribute a, clipped to w columns and padded to w */
static void text_attr(int y, int x, int w, attr_t a, const char *s)
{
	wchar_t ws[512];
	char shown[2048];
	int cols = 0, i = 0;

	if (w <= 0)
		return;
	if (!widen(s, ws, sizeof(ws) / sizeof(ws[0])))
		widen(inert_str(shown, sizeof(shown), s), ws,
		      sizeof(ws) / sizeof(ws[0]));
	while (ws[i]) {
		int cw = wcwidth(ws[i]);

		if (cw < 0)
			ws[i] = L'?', cw = 1;
		if (cols + cw > w)
			break;
		cols += cw;
		i++;
	}
	attrset(a);
	mvaddnwstr(y, x, ws, i);
	if (cols < w)
		mvhline(y, x + cols, ' ', w - cols);
	attrset(A_NORMAL);
}

void draw_text(int y, int x, int w, enum draw_style st, const char *s)
{
	text_attr(y, x, w, style_attr(st), s);
}

void draw_fmt(int y, int x, int w, enum draw_style st, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	draw_text(y, x, w, st, buf);
}

/* Whether text breaks after s[i]: at a blank, or with fields only at
 * the first of two blanks (the second goes with it). */
static bool wrap_at(const char *s, size_t i, bool fields)
{
	return s[i] == ' ' && (!fields || s[i + 1] == ' ');
}

/* The bytes of s that make its first row in w columns (a UTF-8
 * sequence is one column), cut after the last break (wrap_at()) that
 * fits if there is one; all of s if it fits. At least one character. */
static size_t wrap_len(const char *s, int w, bool fields)
{
	size_t i = 0, brk = 0;
	int cols = 0;

	while (s[i] && cols < w) {
		if (wrap_at(s, i, fields))
			brk = i + 1 + fields;
		i++;
		while ((s[i] & 0xc0) == 0x80)
			i++;
		cols++;
	}
	if (!s[i])
		return i;
	if (wrap_at(s, i, fields))
		return i + 1 + fields;
	return brk ? brk : i;
}

/* The bytes of text's row that starts indent blanks into w columns (one
 * column is kept free at the right). */
static size_t row_len(const char *text, int indent, int w, bool fields)
{
	int cols = w - indent - 1;

	return wrap_len(text, cols > 0 ? cols : 1, fields);
}

static int wrap_draw(int y, int end, int x, int w, enum draw_style st,
		     int first, int rest, const char *text, bool fields)
{
	int indent = first;

	while (y < end) {
		size_t len = row_len(text, indent, w, fields);

		draw_fmt(y++, x, w, st, "%*s%.*s", indent, "", (int)len, text);
		text += len;
		indent = rest;
		if (!*text)
			break;
	}
	return y;
}

static int wrap_rows(int w, int first, int rest, const char *text, bool fields)
{
	int rows = 1;

	text += row_len(text, first, w, fields);
	for (; *text; rows++)
		text += row_len(text, rest, w, fields);
	return rows;
}

int draw_wrapped(int y, int end, int x, int w, enum draw_style st, int first,
		 int rest, const char *text)
{
	return wrap_draw(y, end, x, w, st, first, rest, text, false);
}

int draw_wrap_rows(int w, int first, int rest, const char *text)
{
	return wrap_rows(w, first, rest, text, false);
}

int draw_fields(int y, int end, int x, int w, enum draw_style st, int first,
		int rest, const char *text)
{
	return wrap_draw(y, end, x, w, st, first, rest, text, true);
}

int draw_fields_rows(int w, int first, int rest, const char *text)
{
	return wrap_rows(w, first, rest, text, true);
}

void draw_clear(struct rect r)
{
	for (int i = 0; i < r.h; i++)
		mvhline(r.y + i, r.x, ' ', r.w);
}

struct rect draw_box(struct rect r, const char *title, const char *note,
		     bool focus)
{
	struct rect in = { r.y + 1, r.x + 1, r.h - 2, r.w - 2 };
	int tw;

	if (r.h < 2 || r.w < 4)
		return (struct rect){ r.y, r.x, 0, 0 };
	/* Without UTF-8, plain ASCII: the alternate character set is not
	 * drawn by every terminal that claims it (tmux with TERM=vt100) */
	chtype h = use_utf8 ? ACS_HLINE : '-', v = use_utf8 ? ACS_VLINE : '|';
	chtype ul = use_utf8 ? ACS_ULCORNER : '+';
	chtype ur = use_utf8 ? ACS_URCORNER : '+';
	chtype ll = use_utf8 ? ACS_LLCORNER : '+';
	chtype lr = use_utf8 ? ACS_LRCORNER : '+';

	attrset(focus ? A_BOLD : A_NORMAL);
	mvhline(r.y, r.x + 1, h, r.w - 2);
	mvhline(r.y + r.h - 1, r.x + 1, h, r.w - 2);
	mvvline(r.y + 1, r.x, v, r.h - 2);
	mvvline(r.y + 1, r.x + r.w - 1, v, r.h - 2);
	mvaddch(r.y, r.x, ul);
	mvaddch(r.y, r.x + r.w - 1, ur);
	mvaddch(r.y + r.h - 1, r.x, ll);
	mvaddch(r.y + r.h - 1, r.x + r.w - 1, lr);
	attrset(A_NORMAL);
	tw = title ? (int)mbstowcs(NULL, title, 0) + 2 : 0;
	if (title && r.w > 6)
		draw_fmt(r.y, r.x + 1, tw < r.w - 4 ? tw : r.w - 4, STYLE_TITLE,
			 " %s ", title);
	if (note && *note) {
		int nw = (int)mbstowcs(NULL, note, 0) + 2;

		if (tw + nw < r.w - 4)
			draw_fmt(r.y, r.x + r.w - 2 - nw, nw, STYLE_NORMAL,
				 " %s ", note);
	}
	draw_clear(in);
	return in;
}

size_t fmt_put(char *out, size_t n, size_t o, const char *s)
{
	size_t l = strnlen(s, n - o - 1);

	memcpy(out + o, s, l);
	out[o + l] = '\0';
	return o + l;
}

size_t fmt_put_num(char *out, size_t n, size_t o, uint64_t v, bool neg)
{
	char buf[24];
	size_t i = sizeof(buf) - 1;

	buf[i] = '\0';
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (neg)
		buf[--i] = '-';
	return fmt_put(out, n, o, buf + i);
}

const char *fmt_count(uint64_t v, char *buf, size_t n)
{
	char raw[32];
	size_t len, o = 0;

	snprintf(raw, sizeof(raw), "%" PRIu64, v);
	len = strlen(raw);
	for (size_t i = 0; i < len && o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = '\0';
	return buf;
}

const char *fmt_rate(double v, char *buf, size_t n)
{
	if (v < 0)
		v = 0;
	if (v < 10)
		snprintf(buf, n, v == (double)(uint64_t)v ? "%.0f" : "%.1f", v);
	else if (v < 1e7)
		fmt_count((uint64_t)(v + 0.5), buf, n);
	else
		snprintf(buf, n, "%.1fM", v / 1e6);
	return buf;
}

size_t fmt_glyph(char *out, size_t o, const char *utf, char ascii)
{
	size_t len = strlen(utf);

	if (!use_utf8) {
		out[o] = ascii;
		return o + 1;
	}
	memcpy(out + o, utf, len);
	return o + len;
}

const char *fmt_delta(double v, char *buf, size_t n)
{
	char size[32];

	fmt_rate(v < 0 ? -v : v, size, sizeof(size));
	snprintf(buf, n, "%s%s",
		 !strcmp(size, "0") ? ""
		 : v < 0	    ? "-"
				    : "+",
		 size);
	return buf;
}

const char *fmt_ratio(double v, char *buf, size_t n)
{
	snprintf(buf, n, v < 10 ? "x%.2f" : v < 100 ? "x%.1f" : "x%.0f", v);
	return buf;
}

const char *fmt_ns(double ns, char *buf, size_t n)
{
	const char *us = use_utf8 ? "\u00b5s" : "us";

	if (ns < 1000)
		snprintf(buf, n, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, n, ns < 1e4 ? "%.1f%s" : "%.0f%s", ns / 1e3, us);
	else if (ns < 1e9)
		snprintf(buf, n, ns < 1e7 ? "%.1fms" : "%.0fms", ns / 1e6);
	else
		snprintf(buf, n, "%.2fs", ns / 1e9);
	return buf;
}

int fmt_w(const char *s, int w)
{
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) == 0x80)
			w++;
	return w;
}

const char *fmt_si(double v, char *buf, size_t n)
{
	static const char UNIT[] = "kMGTP";
	double a = v < 0 ? -v : v;
	int u = -1;

	if (a < 10) {
		snprintf(buf, n, a == (double)(uint64_t)a ? "%.0f" : "%.1f", v);
		return buf;
	}
	if (a < 1e4) {
		snprintf(buf, n, "%.0f", v);
		return buf;
	}
	while (a >= 999.5 && u < 4) {
		a /= 1e3;
		v /= 1e3;
		u++;
	}
	if (a >= 999.5)
		snprintf(buf, n, "%.0e", v * 1e15);
	else
		snprintf(buf, n, a < 9.95 ? "%.1f%c" : "%.0f%c", v, UNIT[u]);
	return buf;
}

const char *fmt_bytes(double v, char *buf, size_t n)
{
	if (v < 1000)
		snprintf(buf, n, "%.0fB", v);
	else if (v < 1e6)
		snprintf(buf, n, v < 1e4 ? "%.1fkB" : "%.0fkB", v / 1e3);
	else if (v < 1e9)
		snprintf(buf, n, v < 1e7 ? "%.1fMB" : "%.0fMB", v / 1e6);
	else
		snprintf(buf, n, "%.1fGB", v / 1e9);
	return buf;
}

void draw_spark(int y, int x, int w, const double *v, size_t n)
{
	static const char *const UTF[] = { " ",	     "\u2581", "\u2582",
					   "\u2583", "\u2584", "\u2585",
					   "\u2586", "\u2587", "\u2588" };
	static const char ASCII[] = " .:-=+*#@";
	char line[1024] = "";
	size_t from = n > (size_t)w ? n - (size_t)w : 0, o = 0;
	double max = 0;

	for (size_t i = from; i < n; i++)
		if (v[i] > max)
			max = v[i];
	for (size_t i = from; i < n && o + 4 < sizeof(line); i++) {
		int lv = max > 0 ? (int)(v[i] / max * 8.0 + 0.5) : 0;

		if (v[i] > 0 && lv == 0)
			lv = 1;
		o = fmt_glyph(line, o, UTF[lv], ASCII[lv]);
	}
	line[o] = '\0';
	draw_text(y, x, w, STYLE_BAR, line);
}

/* The bytes of s that take at most cols columns (a UTF-8 sequence is
 * one column). */
static size_t cols_prefix(const char *s, int cols)
{
	size_t i = 0;

	for (int c = 0; s[i] && c < cols; c++) {
		i++;
		while ((s[i] & 0xc0) == 0x80)
			i++;
	}
	return i;
}

int draw_hue_pair(enum draw_hue hue)
{
	if (use_color && ((int)hue < HUE_MOD + mod_hues || hue >= HUE_N))
		return HUE_PAIR + (int)hue;
	return 0;
}

void draw_frame(int y, int x, int w, enum draw_hue hue, unsigned flags,
		const char *name)
{
	attr_t a = (attr_t)COLOR_PAIR(draw_hue_pair(hue));
	char buf[512];
	size_t len;

	if (w < 1)
		return;
	if (flags & FRAME_MATCH)
		a |= A_BOLD | A_UNDERLINE;
	else if (flags & FRAME_DIM)
		a |= A_DIM;
	if (flags & FRAME_CURSOR)
		a |= A_REVERSE;
	if (flags & FRAME_PLUS) {
		len = (size_t)w < sizeof(buf) ? (size_t)w : sizeof(buf) - 1;
		memset(buf, '+', len);
		buf[len] = '\0';
		text_attr(y, x, w, a, buf);
		return;
	}
	if (w == 1) { /* no room for a name: a letter of it would read as
			 part of its neighbour's (ppython3.11+0x...) */
		text_attr(y, x, 1, a, "|");
		return;
	}
	len = cols_prefix(name, w - 1);
	if (name[len]) /* cut: the mark in its last column */
		snprintf(buf, sizeof(buf), "%.*s%s",
			 (int)cols_prefix(name, w - 2), name,
			 use_utf8 ? "\u2026" : "~");
	else
		snprintf(buf, sizeof(buf), "%s", name);
	text_attr(y, x, w - 1, a, buf);
	text_attr(y, x + w - 1, 1, a, "|");
}

const char *draw_mark(unsigned char mark)
{
	return agg_mark_sign(mark, draw_utf8());
}
