/* SPDX-License-Identifier: MIT */
/*
 * baseline — `--baseline OLD`: a recording (docs/record-format.md) read
 * whole with replay.h and summed into a basetab (basetab.h): every
 * interval's rows added under their aggregation, the recording's length
 * the last interval's elapsed seconds. Reads only the file.
 */
#ifndef PROBETOP_BASELINE_H
#define PROBETOP_BASELINE_H

#include <stddef.h>

#include "basetab.h"

/*
 * Read path into a new basetab. NULL with a one-line reason in
 * why[0..n) for a file that cannot be opened, is not a recording, is of
 * a format this probetop does not read, is corrupt, or holds no
 * interval. A recording cut inside a record gives what was before the
 * cut, and note[0..nn) says so in one line ("" for a whole file).
 */
struct basetab *baseline_load(const char *path, char *why, size_t n, char *note,
			      size_t nn);

#endif
