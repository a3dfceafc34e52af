// SPDX-License-Identifier: MIT
/*
 * phplayout_dump MAJOR.MINOR — the engine's layout of PHP MAJOR.MINOR
 * (phplayout_find()) as one JSON object, with the keys of
 * phplayout_probe.c, or the line "null" when phplayout_find() has none.
 * Exit 2 on a bad argument.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "phplayout.h"

static bool first = true;

/* "name": v */
static void num(const char *name, uint32_t v)
{
	printf("%s\"%s\": %u", first ? "{" : ", ", name, v);
	first = false;
}

int main(int argc, char **argv)
{
	const struct phplayout *l;
	int major, minor;

	if (argc != 2 || sscanf(argv[1], "%d.%d", &major, &minor) != 2) {
		fprintf(stderr, "usage: phplayout_dump MAJOR.MINOR\n");
		return 2;
	}
	l = phplayout_find(major, minor);
	if (!l) {
		printf("null\n");
		return 0;
	}
	num("major", (uint32_t)l->major);
	num("minor", (uint32_t)l->minor);
	num("api", l->api);
	num("eg_current_execute_data", l->eg_current_execute_data);
	num("ex_opline", l->ex_opline);
	num("ex_func", l->ex_func);
	num("ex_prev", l->ex_prev);
	num("fn_type", l->fn_type);
	num("fn_name", l->fn_name);
	num("fn_scope", l->fn_scope);
	num("fn_filename", l->fn_filename);
	num("fn_line_start", l->fn_line_start);
	num("ce_name", l->ce_name);
	num("str_len", l->str_len);
	num("str_val", l->str_val);
	num("op_lineno", l->op_lineno);
	num("user_function", l->user_function);
	num("internal_function", l->internal_function);
	num("eval_code", l->eval_code);
	/* the engine takes any type but internal_function for PHP code */
	num("user_code_rule", 1);
	printf("}\n");
	return 0;
}
