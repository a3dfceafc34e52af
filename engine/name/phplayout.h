/* SPDX-License-Identifier: MIT */
/*
 * phplayout — where PHP keeps what a frame walker reads: the offsets of
 * the fields from executor_globals to a request's frames, from a frame
 * to its function, and from there to its names, one table per PHP
 * major.minor, x86-64, non-ZTS build (ZTS keeps its globals per thread,
 * behind a TSRM offset, and exports no executor_globals). Data only: the
 * kernel-side walker (bpf/phpframe.bpf.h) is handed the table of the
 * target's version and follows
 *
 *   executor_globals.current_execute_data -> zend_execute_data
 *   -> func (zend_function): type, common.function_name (zend_string),
 *      common.scope -> zend_class_entry.name, op_array.filename,
 *      op_array.line_start
 *   -> prev_execute_data ...
 *
 * plus, for phpline, zend_execute_data.opline -> zend_op.lineno.
 *
 * 8.0 to 8.4 have a table. 8.2's and 8.4's values are the headers' own:
 * tests/tools/phplayout_probe.c prints them with offsetof compiled
 * against Debian 12's php8.2-dev (8.2.36) and trixie's php8.4-dev (8.4.27,
 * in the root scripts/setup --runtimes builds), and
 * tests/integration/phplayout_headers.py checks the table against them.
 * 8.0's, 8.1's and 8.3's are derived from published copies of their
 * structs (phplayout.c says which and how), checked against no headers
 * and never run against a live PHP. Other versions (7.x, 8.5 and later)
 * have none: phpframe.c says so in one line and reads no PHP frames of
 * theirs.
 */
#ifndef PROBETOP_PHPLAYOUT_H
#define PROBETOP_PHPLAYOUT_H

#include <stdbool.h>
#include <stdint.h>

/* Offsets in bytes from the start of the structure named in each comment. */
struct phplayout {
	int major, minor; /* PHP major.minor, x86-64, non-ZTS */
	uint32_t api; /* ZEND_MODULE_API_NO, as in ZEND_MODULE_BUILD_ID */

	uint32_t eg_current_execute_data; /* zend_executor_globals */
	uint32_t ex_opline; /* zend_execute_data: opline */
	uint32_t ex_func; /* func */
	uint32_t ex_prev; /* prev_execute_data */
	uint32_t fn_type; /* zend_function: type (a byte) */
	uint32_t fn_name; /* common.function_name (zend_string *) */
	uint32_t fn_scope; /* common.scope (zend_class_entry *) */
	uint32_t fn_filename; /* op_array.filename (zend_string *) */
	uint32_t fn_line_start; /* op_array.line_start (uint32_t) */
	uint32_t ce_name; /* zend_class_entry: name (zend_string *) */
	uint32_t str_len; /* zend_string: len (size_t) */
	uint32_t str_val; /* val[] */
	uint32_t op_lineno; /* zend_op: lineno (uint32_t) */
	/* zend_function.type: C (no file), or PHP code (ZEND_USER_CODE():
	 * any other, a function's or eval'd code's) */
	uint32_t internal_function; /* ZEND_INTERNAL_FUNCTION */
	uint32_t user_function; /* ZEND_USER_FUNCTION */
	uint32_t eval_code; /* ZEND_EVAL_CODE */
};

/* Whether l was checked against its version's headers (8.2), not
 * derived. */
bool phplayout_checked(const struct phplayout *l);

/* The layout of PHP major.minor, or NULL if none is known. Static. */
const struct phplayout *phplayout_find(int major, int minor);

/* The layout of the PHP whose module API is api (the number in its
 * ZEND_MODULE_BUILD_ID, "API20220829,NTS"), or NULL. Static. */
const struct phplayout *phplayout_find_api(uint32_t api);

/* The PHP major.minor whose module API is api, for messages: 0, or -1
 * if unknown (8.0 to 8.4 are known). */
int phplayout_api_version(uint32_t api, int *major, int *minor);

#endif
