// SPDX-License-Identifier: MIT
/*
 * phplayout_probe — the memory layout of one PHP, from its own headers:
 * compiled against them, it prints (as one JSON object) every field of
 * struct phplayout (engine/name/phplayout.h) by offsetof, and the
 * constants it names. phplayout_headers.py compares that with the table
 * the engine has (phplayout_dump). Build, for the headers under $I
 * (Debian: /usr/include/php/20220829):
 *
 *   gcc -std=c11 -I$I -I$I/main -I$I/Zend -I$I/TSRM phplayout_probe.c
 */
#include "php.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef ZTS
#error "phplayout_probe describes non-ZTS builds"
#endif

static bool first = true;

/* "name": v */
static void num(const char *name, size_t v)
{
	printf("%s\"%s\": %zu", first ? "{" : ", ", name, v);
	first = false;
}

int main(void)
{
	num("major", PHP_MAJOR_VERSION);
	num("minor", PHP_MINOR_VERSION);
	num("api", ZEND_MODULE_API_NO);
	num("eg_current_execute_data",
	    offsetof(zend_executor_globals, current_execute_data));
	num("ex_opline", offsetof(zend_execute_data, opline));
	num("ex_func", offsetof(zend_execute_data, func));
	num("ex_prev", offsetof(zend_execute_data, prev_execute_data));
	num("fn_type", offsetof(zend_function, type));
	num("fn_name", offsetof(zend_function, common.function_name));
	num("fn_scope", offsetof(zend_function, common.scope));
	num("fn_filename", offsetof(zend_function, op_array.filename));
	num("fn_line_start", offsetof(zend_function, op_array.line_start));
	num("ce_name", offsetof(zend_class_entry, name));
	num("str_len", offsetof(zend_string, len));
	num("str_val", offsetof(zend_string, val));
	num("op_lineno", offsetof(zend_op, lineno));
	num("user_function", ZEND_USER_FUNCTION);
	num("internal_function", ZEND_INTERNAL_FUNCTION);
	num("eval_code", ZEND_EVAL_CODE);
	num("user_code_rule", ZEND_USER_CODE(ZEND_EVAL_CODE) &&
				      ZEND_USER_CODE(ZEND_USER_FUNCTION) &&
				      !ZEND_USER_CODE(ZEND_INTERNAL_FUNCTION));
	printf("}\n");
	return 0;
}
