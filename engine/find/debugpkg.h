/* SPDX-License-Identifier: MIT */
/*
 * debugpkg — which Debian package would name a stripped file's
 * functions: the package that installed the file, from dpkg's database
 * (the file lists in /var/lib/dpkg/info, read; nothing is run), and its
 * debug package: PKG-dbgsym (Debian's automatic debug symbols, from the
 * debian-debug archive), except for the packages that build their own:
 * libc6-dbg for libc6, python3.X-dbg for CPython's (python3.X, its
 * -minimal, libpython3.X...).
 *
 * A file is matched by its device and inode, not by its path: a path
 * that a link leads to (/lib is /usr/lib on a merged /usr) is the same
 * file. A file of a container is not the host's, and no package owns it.
 */
#ifndef PROBETOP_DEBUGPKG_H
#define PROBETOP_DEBUGPKG_H

#include <stddef.h>
#include <stdint.h>

#define DEBUGPKG_INFO "/var/lib/dpkg/info"

/*
 * The package that installed the file of device dev (makedev()) and
 * inode ino, whose base name is that of path: the name of the list in
 * infodir (DEBUGPKG_INFO) that holds a path of that base name which is
 * this file, without its ":ARCH", into pkg[0..n). 0, -ENOENT (none),
 * or another negative errno.
 */
int debugpkg_owner(const char *infodir, const char *path, uint64_t dev,
		   uint64_t ino, char *pkg, size_t n);

/* The package of pkg's debug symbols into out[0..n), as above. */
void debugpkg_debug(const char *pkg, char *out, size_t n);

#endif
