/* SPDX-License-Identifier: MIT */
/*
 * draw — what every view draws with: clipped text, boxes with titles,
 * numbers as people read them, sparklines and DTrace-style quantize bars.
 * UTF-8 blocks and "µs" only when the console says the terminal can show
 * them (draw_init), ASCII otherwise; colours only when allowed, attributes
 * (reverse, bold) always.
 */
#ifndef PROBETOP_DRAW_H
#define PROBETOP_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg.h"
#include "view.h"

enum draw_style {
	STYLE_NORMAL,
	STYLE_TITLE, /* box titles, column heads */
	STYLE_SELECTED, /* the cursor row */
	STYLE_BAR, /* quantize bars, sparklines */
	STYLE_MARK, /* p50/p90/p99 marks */
	STYLE_WARN, /* drops, silent probes, exit banner */
	STYLE_DIM, /* off probes, hints */
	STYLE_HEADER, /* the top two lines */
};

/* The sign before a number of enum agg_mark mark (agg.h): "" exact, "~"
 * an estimate, "≥" a lower bound (">" without UTF-8). */
const char *draw_mark(unsigned char mark);

/* Call after initscr (colours are set up when color is true). */
void draw_init(bool color, bool utf8);
bool draw_utf8(void);

/* Text at (y, x), clipped to w columns and padded with blanks to w. */
void draw_text(int y, int x, int w, enum draw_style st, const char *s);
/* printf into draw_text */
void draw_fmt(int y, int x, int w, enum draw_style st, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/*
 * text wrapped at blanks into rows of w columns from row y while below
 * end: the first row indented by first blanks, the others by rest (a
 * UTF-8 sequence is one column). Returns the row after the last drawn;
 * draw_wrap_rows() says how many rows all of text takes.
 */
int draw_wrapped(int y, int end, int x, int w, enum draw_style st, int first,
		 int rest, const char *text);
int draw_wrap_rows(int w, int first, int rest, const char *text);
/* The same for text made of fields that two blanks separate ("gen0 81/s
 * gen1 6.0/s" with two blanks between): rows break only between fields,
 * a field wider than a row is split where the row ends. */
int draw_fields(int y, int end, int x, int w, enum draw_style st, int first,
		int rest, const char *text);
int draw_fields_rows(int w, int first, int rest, const char *text);

/* A box around r with title at the left and note at the right of its top
 * edge; the inside is r shrunk by one on every side. */
struct rect draw_box(struct rect r, const char *title, const char *note,
		     bool focus);
void draw_clear(struct rect r);

/* 9120331 -> "9,120,331" */
const char *fmt_count(uint64_t v, char *buf, size_t n);
/* a rate per second, "3,041,000" below ten million, then "12.3M" */
const char *fmt_rate(double v, char *buf, size_t n);
/* Put one glyph at out[o]: utf (a UTF-8 sequence of at most 4 bytes)
 * where the terminal shows UTF-8, else ascii; the new end (no NUL). */
size_t fmt_glyph(char *out, size_t o, const char *utf, char ascii);
/* a difference of rates: fmt_rate() of its size after its sign,
 * "+1,200", "-3.5", "0" */
const char *fmt_delta(double v, char *buf, size_t n);
/* a ratio: "x1.80" below 10, "x12.5" below 100, "x340" above */
const char *fmt_ratio(double v, char *buf, size_t n);
/* nanoseconds: "410ns", "1.1µs" (or "1.1us"), "2.0ms", "3.00s" */
const char *fmt_ns(double ns, char *buf, size_t n);
/* The printf field width that shows s in w columns: w plus the bytes of
 * s that take no column of their own (UTF-8 continuation bytes, as in
 * "µs"). Use as "%*s", fmt_w(s, 7), s. */
int fmt_w(const char *s, int w);
/*
 * Append s, or v in decimal (with '-' when neg), at out[o] and return
 * the new end; what does not fit in out[0..n) is cut, out stays
 * NUL-terminated (needs o < n). For text built per row, where
 * snprintf() costs more than the row.
 */
size_t fmt_put(char *out, size_t n, size_t o, const char *s);
size_t fmt_put_num(char *out, size_t n, size_t o, uint64_t v, bool neg);
/* a plain value in at most 6 columns: "7.5", "812", "41k", "-1.2M",
 * "9.4T"; beyond that "1e+18" */
const char *fmt_si(double v, char *buf, size_t n);
/* bytes: "512B", "40kB", "1.2MB" */
const char *fmt_bytes(double v, char *buf, size_t n);

/* Flame graph frames (the Stacks view): a hue by runtime or module
 * (drawn only with colours), flags for the cursor (reverse video), a
 * search's matches (bold, underlined) and the frames that do not match
 * (dim), and FRAME_PLUS for narrow frames merged into `+` cells.
 *
 * Native frames take one of the module hues, HUE_MOD + k for k below
 * draw_mod_hues(): a palette of background colours that tell modules
 * apart (6 on an 8-colour terminal, 12 with 256 colours); the view
 * picks k per module. Without colours every hue draws the same. */
#define DRAW_MOD_HUES_MAX 12
enum draw_hue {
	HUE_PY_A, /* Python frames, two shades by name */
	HUE_PY_B,
	HUE_NATIVE_A, /* native symbols of no known module */
	HUE_NATIVE_B,
	HUE_OTHER, /* "...", "?", all, + */
	HUE_MOD, /* the first module hue */
	HUE_N = HUE_MOD + DRAW_MOD_HUES_MAX,
	/* a differential flame graph's (--baseline): a frame whose share of
	 * the samples grew against the baseline's (reds) or shrank
	 * (blues), HUE_GROW + k and HUE_SHRINK + k for k in
	 * 0..DRAW_DIFF_STEPS - 1 from a little to much (one red and one
	 * blue on 8 colours), or is about the same */
	HUE_GROW = HUE_N,
	HUE_SHRINK = HUE_GROW + 3,
	HUE_SAME = HUE_SHRINK + 3,
	HUE_ALL
};
#define DRAW_DIFF_STEPS 3

/* How many module hues the terminal shows apart (after draw_init()):
 * 12 with 256 colours, else 6. */
int draw_mod_hues(void);
#define FRAME_CURSOR 1u
#define FRAME_MATCH 2u
#define FRAME_DIM 4u
#define FRAME_PLUS 8u
/* The colour pair draw_frame() draws a frame of hue with (0 without
 * colours). */
int draw_hue_pair(enum draw_hue hue);
/*
 * A frame w columns wide at (y, x): its name cut to w - 1 columns (a
 * mark in the last when cut) and a '|' closing it; one column is only
 * the '|' (a letter would read as part of the next frame's name). With
 * FRAME_PLUS, w '+' (name unused).
 */
void draw_frame(int y, int x, int w, enum draw_hue hue, unsigned flags,
		const char *name);

/* The last w of v[0..n) as a sparkline at (y, x), scaled to their max. */
void draw_spark(int y, int x, int w, const double *v, size_t n);

/* What a quantize histogram looks like on screen. */
struct hist_draw {
	const struct spec *spec;
	const struct agg_row *row;
	const uint64_t *b; /* buckets to show (interval or totals) */
	const uint64_t *base; /* the baseline's, overlaid; NULL: none */
	int cursor; /* bucket under the cursor, or -1 */
	bool ns; /* values are nanoseconds */
};

/*
 * Draw h as DTrace does (value, bar of '@' or blocks, count), one bucket
 * per line from the first to the last non-empty one (with an empty one
 * either side), scaled to r, p50/p90/p99 marked after the count; with a
 * baseline, its bars (its buckets' shares of its count) overlaid in
 * other shades (draw_hist.c). Returns
 * the bucket range drawn in *first, *last (-1 if empty).
 */
void draw_hist(struct rect r, const struct hist_draw *h, int *first, int *last);

/* The bucket's label: "< 0", ">= 1000", "4096" */
const char *hist_bucket_label(const struct spec *spec,
			      const struct agg_row *row, int i, bool ns,
			      char *buf, size_t n);

#endif
