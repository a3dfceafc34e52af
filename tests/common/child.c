// SPDX-License-Identifier: MIT
/* child — run a fixture under the tests' control; see child.h. */
#include "child.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *fixture_path(const char *name)
{
	static char path[4096];
	const char *dir = getenv("FIXTURE_DIR");

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : ".", name);
	return path;
}

int child_start(const char *prog, struct child *c)
{
	int to[2], from[2];
	char line[64];

	if (pipe(to) || pipe(from))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (c->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	c->in = fdopen(to[1], "w");
	c->out = fdopen(from[0], "r");
	if (!c->in || !c->out || !fgets(line, sizeof(line), c->out))
		return -1;
	return strncmp(line, "ready", 5) ? -1 : 0;
}

int child_send(struct child *c, const char *line, char *reply, size_t n)
{
	if (fprintf(c->in, "%s\n", line) < 0 || fflush(c->in))
		return -1;
	return fgets(reply, (int)n, c->out) ? 0 : -1;
}

int child_stop(struct child *c)
{
	int status;

	fclose(c->in);
	fclose(c->out);
	return waitpid(c->pid, &status, 0) == c->pid ? status : -1;
}
