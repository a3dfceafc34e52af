/* SPDX-License-Identifier: MIT */
/*
 * shebang — the program a command really runs: a script's "#!" line is
 * followed to its interpreter the way the kernel's binfmt_script does, so
 * that a launched command's probes are those of the ELF file that runs.
 *
 * As the kernel: the first SHEBANG_BUF bytes are read; "#!", blanks, the
 * interpreter's path up to a blank, tab, NUL or newline, then at most one
 * optional argument (the rest of the line, trimmed); a line with no
 * newline in those bytes is taken as far as it goes unless the path
 * itself may be cut there (then it is not a script). A relative
 * interpreter path is opened from the current directory (the launched
 * command's), not the script's. An interpreter may be a script itself,
 * SHEBANG_DEPTH scripts at most (else ELOOP). A top-level file that is
 * neither ELF nor a script is run by /bin/sh, as execvp() does.
 * Called by session.c before the command is launched.
 */
#ifndef PROBETOP_SHEBANG_H
#define PROBETOP_SHEBANG_H

#include <stddef.h>

#define SHEBANG_BUF 256 /* the kernel's BINPRM_BUF_SIZE */
#define SHEBANG_DEPTH 5 /* scripts before the ELF file, as the kernel */

/* One "#!" line, as the kernel reads it. */
struct shebang_line {
	char interp[SHEBANG_BUF];
	char arg[SHEBANG_BUF]; /* "" when there is none */
};

/*
 * Parse the first len bytes of a file (at most SHEBANG_BUF are looked
 * at). 0, -ENOEXEC when it is not a script the kernel would run.
 */
int shebang_parse(const char *buf, size_t len, struct shebang_line *out);

/*
 * The ELF file that runs when path (an executable file) is exec()ed,
 * into out (n bytes): path itself, or its interpreter's, followed. 0 or a
 * negative errno, with a one-line reason in why (whylen bytes) naming the
 * script and its interpreter: -ENOENT, -EACCES (interpreter missing, not
 * executable), -ELOOP (too many levels), -ENOEXEC (a bad "#!" line, or
 * an interpreter neither ELF nor script).
 */
int shebang_resolve(const char *path, char *out, size_t n, char *why,
		    size_t whylen);

#endif
