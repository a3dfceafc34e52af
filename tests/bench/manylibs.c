// SPDX-License-Identifier: MIT
/*
 * manylibs — a process that maps many shared libraries, for the `list`
 * benchmark: dlopens the paths given as arguments until WANT of them are
 * loaded, prints "ready PID LOADED", then waits for end of input.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int want = argc > 1 ? atoi(argv[1]) : 50, loaded = 0;
	char line[64];

	for (int i = 2; i < argc && loaded < want; i++)
		if (dlopen(argv[i], RTLD_LAZY | RTLD_LOCAL))
			loaded++;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d %d\n", (int)getpid(), loaded);
	while (fgets(line, sizeof(line), stdin))
		;
	return 0;
}
