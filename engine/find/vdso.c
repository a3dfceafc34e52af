// SPDX-License-Identifier: MIT
/* vdso — this process's vDSO image, every process's; see vdso.h. */
#include "vdso.h"

#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "elfobj.h"

int vdso_image(const void **at, size_t *size)
{
	const Elf64_Ehdr *eh = (const void *)getauxval(AT_SYSINFO_EHDR);

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOENT;
	*at = eh;
	*size = (size_t)(eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize);
	return 0;
}

struct elfobj *vdso_elfobj(void)
{
	const void *at;
	size_t size;
	int fd;

	if (vdso_image(&at, &size)) {
		errno = ENOENT;
		return NULL;
	}
	fd = memfd_create("probetop-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (write(fd, at, size) != (ssize_t)size) {
		close(fd);
		errno = EIO;
		return NULL;
	}
	return elfobj_open_fd(fd, "[vdso]");
}

int vdso_same(pid_t pid, uint64_t at)
{
	Elf64_Ehdr theirs;
	struct iovec local = { &theirs, sizeof(theirs) };
	struct iovec remote = { (void *)(uintptr_t)at, sizeof(theirs) };
	const void *ours;
	size_t size;

	if (vdso_image(&ours, &size))
		return -ENOENT;
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) !=
	    (ssize_t)sizeof(theirs))
		return errno ? -errno : -EIO;
	return !memcmp(&theirs, ours, sizeof(theirs));
}
