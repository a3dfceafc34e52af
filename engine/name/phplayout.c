// SPDX-License-Identifier: MIT
/*
 * phplayout — the tables; see phplayout.h.
 */
#include "phplayout.h"

#include <stddef.h>

/*
 * What 8.0 to 8.4 share: executor_globals up to current_execute_data,
 * zend_execute_data, the common part of zend_function up to scope,
 * zend_class_entry's name, zend_string, zend_op up to lineno and the
 * function types are the same fields in each (ZEND_INTERNAL_FUNCTION 1,
 * ZEND_USER_FUNCTION 2, ZEND_EVAL_CODE 4 since PHP 5); and in each,
 * zend_op_array's line_start follows its filename. PHP8(): a table of
 * 8.min, module API api_no, filename at filename.
 */
#define PHP8_SHARED                                                    \
	.eg_current_execute_data = 488, .ex_opline = 0, .ex_func = 24, \
	.ex_prev = 48, .fn_type = 0, .fn_name = 8, .fn_scope = 16,     \
	.ce_name = 8, .str_len = 16, .str_val = 24, .op_lineno = 24,   \
	.internal_function = 1, .user_function = 2, .eval_code = 4

/*
 * 8.2 is checked: Debian 12's php8.2-dev 8.2.36 (/usr/include/php/
 * 20220829), by tests/integration/phplayout_headers.py, and run by the
 * tests against /usr/bin/php8.2. 8.0, 8.1 and 8.3 are derived, never
 * checked against their headers nor run against a live PHP (none can be
 * installed here): their offsets are added up from two independent
 * copies of their structs, phpspy's gdb dumps (structs/x86_64/
 * php_structs_8N.h: each field at its offset, padding between) and
 * reli-prof's extracts of php-src's headers (src/Lib/PhpInternals/
 * Headers/v8N.h), which agree. The method was tried on 8.2 first: both
 * sources give this 8.2 table, field for field. What moves is
 * zend_op_array's filename and line_start: 8.2 moved T and
 * run_time_cache into the common part, T first (4 bytes of padding
 * after it: filename 8 bytes further than in 8.1); 8.3 put
 * run_time_cache first, T last, no padding (filename back at 144).
 * 8.4 is checked too: Debian trixie's php8.4-dev (8.4.27, /usr/include/
 * php/20240924, in the root scripts/setup --runtimes builds), and run
 * live by matrix_php; its zend_op_array grew before filename (at 168).
 */
#define PHP8(min, api_no, filename)                                        \
	{                                                                  \
		.major = 8, .minor = (min), .api = (api_no), PHP8_SHARED,  \
		.fn_filename = (filename), .fn_line_start = (filename) + 8 \
	}

static const struct phplayout layouts[] = {
	PHP8(0, 20200930, 144), PHP8(1, 20210902, 144), PHP8(2, 20220829, 152),
	PHP8(3, 20230831, 144), PHP8(4, 20240924, 168),
};

#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

bool phplayout_checked(const struct phplayout *l)
{
	return l->major == 8 && (l->minor == 2 || l->minor == 4);
}

const struct phplayout *phplayout_find(int major, int minor)
{
	for (size_t i = 0; i < NLAYOUTS; i++)
		if (layouts[i].major == major && layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

const struct phplayout *phplayout_find_api(uint32_t api)
{
	for (size_t i = 0; i < NLAYOUTS; i++)
		if (layouts[i].api == api)
			return &layouts[i];
	return NULL;
}

/* PHP's module API numbers (ZEND_MODULE_API_NO) by release. */
static const struct {
	uint32_t api;
	int major, minor;
} apis[] = {
	{ 20200930, 8, 0 }, { 20210902, 8, 1 }, { 20220829, 8, 2 },
	{ 20230831, 8, 3 }, { 20240924, 8, 4 }, { 20250925, 8, 5 },
};

int phplayout_api_version(uint32_t api, int *major, int *minor)
{
	for (size_t i = 0; i < sizeof(apis) / sizeof(apis[0]); i++)
		if (apis[i].api == api) {
			*major = apis[i].major;
			*minor = apis[i].minor;
			return 0;
		}
	return -1;
}
