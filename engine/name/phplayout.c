// SPDX-License-Identifier: MIT
/*
 * phplayout — the tables; see phplayout.h. Each one is what
 * tests/tools/phplayout_probe.c prints against that version's headers.
 */
#include "phplayout.h"

#include <stddef.h>

/* 8.2: Debian 12's php8.2-dev 8.2.36 (/usr/include/php/20220829) */
static const struct phplayout php82 = {
	.major = 8,
	.minor = 2,
	.api = 20220829,
	.eg_current_execute_data = 488,
	.ex_opline = 0,
	.ex_func = 24,
	.ex_prev = 48,
	.fn_type = 0,
	.fn_name = 8,
	.fn_scope = 16,
	.fn_filename = 152,
	.fn_line_start = 160,
	.ce_name = 8,
	.str_len = 16,
	.str_val = 24,
	.op_lineno = 24,
	.internal_function = 1,
	.user_function = 2,
	.eval_code = 4,
};

static const struct phplayout *const layouts[] = { &php82 };

const struct phplayout *phplayout_find(int major, int minor)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i]->major == major && layouts[i]->minor == minor)
			return layouts[i];
	return NULL;
}

const struct phplayout *phplayout_find_api(uint32_t api)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i]->api == api)
			return layouts[i];
	return NULL;
}

/* PHP's module API numbers (ZEND_MODULE_API_NO) by release. */
static const struct {
	uint32_t api;
	int major, minor;
} apis[] = {
	{ 20200930, 8, 0 }, { 20210902, 8, 1 }, { 20220829, 8, 2 },
	{ 20230831, 8, 3 }, { 20240924, 8, 4 },
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
