// SPDX-License-Identifier: MIT
/* Unit tests of metrics (the Prometheus renderings of a snapshot) and of
 * export's pure parts: names sanitised, label values escaped, a synthetic
 * snapshot rendered exactly in both formats, the series bound, --listen
 * parsing, and one endpoint on a free loopback port answering a GET. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "export.h"
#include "metrics.h"
#include "spec.h"

static void test_name_part(void **state)
{
	char out[64];

	(void)state;
	metrics_name_part(out, sizeof(out), 0, "python:function__return");
	assert_string_equal(out, "python_function_return");
	metrics_name_part(out, sizeof(out), 0, "--Mfa or Reason!!");
	assert_string_equal(out, "mfa_or_reason");
	metrics_name_part(out, sizeof(out), 0, "fn:libc.so.6:free%return");
	assert_string_equal(out, "fn_libc_so_6_free_return");
	metrics_name_part(out, sizeof(out), 0, "é\"\n");
	assert_string_equal(out, "");
	strcpy(out, "probetop_");
	assert_int_equal(metrics_name_part(out, sizeof(out), 9, "x"), 10);
	assert_string_equal(out, "probetop_x");
	/* cut to fit, never past the end */
	metrics_name_part(out, 6, 0, "abcdefgh");
	assert_string_equal(out, "abcde");
}

static void test_escape(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(metrics_escape(out, sizeof(out), "a\\b\"c\nd"), 10);
	assert_string_equal(out, "a\\\\b\\\"c\\nd");
	metrics_escape(out, sizeof(out), "plain é");
	assert_string_equal(out, "plain é");
	/* an escape that does not fit is left out whole */
	metrics_escape(out, 4, "ab\"");
	assert_string_equal(out, "ab");
}

static void test_accept(void **state)
{
	(void)state;
	assert_true(metrics_wants_openmetrics(
		"application/openmetrics-text;version=1.0.0,"
		"text/plain;version=0.0.4;q=0.5"));
	assert_false(metrics_wants_openmetrics("text/plain"));
	assert_false(metrics_wants_openmetrics(NULL));
}

/* A snapshot of three specs: a keyed count from a probeset role, a
 * quantize, a latency; built by hand. */
struct fixture {
	struct spec spec[3];
	struct tracer_spec_info info[3];
	struct agg_row row[4];
	const struct agg_row *rows0[2], *rows1[1], *rows2[1];
	uint64_t qb[PT_NBUCKETS], lb[PT_NBUCKETS];
	struct agg_spec specs[3];
	struct agg_snapshot snap;
};

static void build(struct fixture *f)
{
	static const char *const TEXT[3] = {
		"python:function__return=count(str(arg1),arg2)",
		"fixture:ints=quantize(arg0)",
		"fixture:enter..fixture:leave=latency()",
	};
	char err[128];

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < 3; i++) {
		assert_int_equal(
			spec_parse(TEXT[i], &f->spec[i], err, sizeof(err)), 0);
		f->info[i] = (struct tracer_spec_info){ .spec = &f->spec[i],
							.nprobes = 1 + (i == 2),
							.nsites = 3 };
	}
	/* keys from the target: a quote, a backslash, a newline, a control */
	f->row[0] = (struct agg_row){ .pid = 42, .nkeys = 2, .total = 7 };
	f->row[0].key[0].is_str = true;
	strcpy(f->row[0].key[0].str, "say \"hi\"\\\n\x1b");
	f->row[0].key[1].num = 3;
	f->row[1] = (struct agg_row){ .pid = 42, .nkeys = 2, .total = 2 };
	f->row[1].key[0].is_str = true;
	strcpy(f->row[1].key[0].str, "leaf");
	f->row[1].key[1].num = 9;
	/* quantize: values 0, 1, 5, 5 -> buckets 1, 2, 4 */
	f->qb[1] = 1;
	f->qb[2] = 1;
	f->qb[4] = 2;
	f->row[2] = (struct agg_row){ .pid = 42,
				      .total = 4,
				      .sum_total = 11,
				      .min = 0,
				      .max = 5,
				      .b_total = f->qb };
	/* latency: 3 ns and 1500 ns -> buckets [2,4) and [1024,2048) */
	f->lb[3] = 1;
	f->lb[12] = 1;
	f->row[3] = (struct agg_row){ .pid = 42,
				      .total = 2,
				      .sum_total = 1503,
				      .b_total = f->lb,
				      .mark_total = AGG_BOUND };
	f->rows0[0] = &f->row[0];
	f->rows0[1] = &f->row[1];
	f->rows1[0] = &f->row[2];
	f->rows2[0] = &f->row[3];
	f->specs[0] = (struct agg_spec){ .id = 0,
					 .spec = &f->spec[0],
					 .info = &f->info[0],
					 .nrows = 2,
					 .rows = f->rows0,
					 .events_total = 9,
					 .duty = 1 };
	f->specs[1] = (struct agg_spec){ .id = 1,
					 .spec = &f->spec[1],
					 .info = &f->info[1],
					 .nrows = 1,
					 .rows = f->rows1,
					 .events_total = 4,
					 .duty = 1 };
	f->specs[2] = (struct agg_spec){ .id = 2,
					 .spec = &f->spec[2],
					 .info = &f->info[2],
					 .nrows = 1,
					 .rows = f->rows2,
					 .events_total = 5,
					 .unmatched_total = 1,
					 .estimated_total = true,
					 .events_mark_total = AGG_BOUND,
					 .duty = 0.25 };
	f->specs[2].why_total[AGG_DROP_DEEP] = 1;
	f->snap = (struct agg_snapshot){ .interval = 3,
					 .elapsed_s = 2,
					 .events_total = 18,
					 .drops_total = 1,
					 .nspecs = 3,
					 .specs = f->specs,
					 .budget_pct = -1,
					 .overhead_total = { .cpu_pct = 5 },
					 .overhead = { .cpu_pct = 5,
						       .target_pct = -1 } };
}

static void origin(void *ctx, int id, struct metrics_origin *o)
{
	(void)ctx;
	*o = (struct metrics_origin){ 0 };
	if (id != 0)
		return;
	o->probeset = "python";
	o->section = "frames";
	o->role = "calls";
	o->nlabels = 2;
	o->labels[0] = "function";
	o->labels[1] = "Line No.";
}

static const char *command(void *ctx, uint32_t pid)
{
	(void)ctx;
	return pid == 42 ? "app\t-x" : "?";
}

static char *render(struct fixture *f, enum metrics_format fmt, bool cmd,
		    size_t max)
{
	struct metrics_src src = { .snap = &f->snap,
				   .origin = origin,
				   .command = cmd ? command : NULL,
				   .probes = 4,
				   .max_series = max };
	size_t len = 0;
	char *text = metrics_render(&src, fmt, &len);

	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	return text;
}

/* The lines of text from the one starting with from, up to (not
 * including) the next line starting with "# HELP" after it. */
static char *section(const char *text, const char *from)
{
	const char *a = strstr(text, from), *b;

	assert_non_null(a);
	b = strstr(a + 1, "\n# HELP");
	return strndup(a, b ? (size_t)(b - a + 1) : strlen(a));
}

static void check_section(const char *text, const char *from, const char *want)
{
	char *got = section(text, from);

	assert_string_equal(got, want);
	free(got);
}

static void test_render_text(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	build(&f);
	text = render(&f, METRICS_TEXT, false, 0);
	check_section(
		text, "# HELP probetop_python_frames_calls_total",
		"# HELP probetop_python_frames_calls_total Count of "
		"python:function__return=count(str(arg1),arg2) (probeset "
		"python, [frames] calls)\n"
		"# TYPE probetop_python_frames_calls_total counter\n"
		"probetop_python_frames_calls_total{pid=\"42\",function=\"say "
		"\\\"hi\\\"\\\\\\\\\\\\n\\\\x1b\",line_no=\"3\"} 7\n"
		"probetop_python_frames_calls_total{pid=\"42\",function="
		"\"leaf\",line_no=\"9\"} 2\n");
	check_section(text, "# HELP probetop_fixture_ints ",
		      "# HELP probetop_fixture_ints Values of spec "
		      "fixture:ints=quantize(arg0)\n"
		      "# TYPE probetop_fixture_ints histogram\n"
		      "probetop_fixture_ints_bucket{pid=\"42\",le=\"0\"} 1\n"
		      "probetop_fixture_ints_bucket{pid=\"42\",le=\"1\"} 2\n"
		      "probetop_fixture_ints_bucket{pid=\"42\",le=\"3\"} 2\n"
		      "probetop_fixture_ints_bucket{pid=\"42\",le=\"7\"} 4\n"
		      "probetop_fixture_ints_bucket{pid=\"42\",le=\"+Inf\"} 4\n"
		      "probetop_fixture_ints_sum{pid=\"42\"} 11\n"
		      "probetop_fixture_ints_count{pid=\"42\"} 4\n");
	check_section(
		text, "# HELP probetop_fixture_enter_fixture_leave_seconds ",
		"# HELP probetop_fixture_enter_fixture_leave_seconds Time in "
		"seconds, spec fixture:enter..fixture:leave=latency(); "
		"estimates, see probetop_spec_estimated\n"
		"# TYPE probetop_fixture_enter_fixture_leave_seconds "
		"histogram\n"
		"probetop_fixture_enter_fixture_leave_seconds_bucket{pid="
		"\"42\",le=\"0.000000004\"} 1\n"
		"probetop_fixture_enter_fixture_leave_seconds_bucket{pid="
		"\"42\",le=\"0.000000008\"} 1\n"
		"probetop_fixture_enter_fixture_leave_seconds_bucket{pid="
		"\"42\",le=\"0.000000016\"} 1\n"
		"probetop_fixture_enter_fixture_leave_seconds_bucket{pid="
		"\"42\",le=\"0.000000032\"} 1\n"
		"probetop_fixture_enter_fixture_leave_seconds_bucket{pid="
		"\"42\",le=\"0.000000064\"} 1\n"
		"probetop_fixture_enter_fixture_leave_seconds_bucket{pid="
		"\"42\",le=\"0.000000128\"} 1\n"
		"probetop_fixture_enter_fixture_leave_seconds_bucket{pid="
		"\"42\",le=\"0.000000256\"} 1\n"
		"probetop_fixture_enter_fixture_leave_seconds_bucket{pid="
		"\"42\",le=\"0.000000512\"} 1\n"
		"probetop_fixture_enter_fixture_leave_seconds_bucket{pid="
		"\"42\",le=\"0.000001024\"} 1\n"
		"probetop_fixture_enter_fixture_leave_seconds_bucket{pid="
		"\"42\",le=\"0.000002048\"} 2\n"
		"probetop_fixture_enter_fixture_leave_seconds_bucket{pid="
		"\"42\",le=\"+Inf\"} 2\n"
		"probetop_fixture_enter_fixture_leave_seconds_sum{pid=\"42\"} "
		"0.000001503\n"
		"probetop_fixture_enter_fixture_leave_seconds_count{pid="
		"\"42\"} 2\n");
	check_section(
		text, "# HELP probetop_spec_estimated ",
		"# HELP probetop_spec_estimated 1 if the budget sampled "
		"the aggregation: its totals hold estimates (within 15%) "
		"or lower bounds\n"
		"# TYPE probetop_spec_estimated gauge\n"
		"probetop_spec_estimated{metric=\"probetop_python_frames_"
		"calls\"} 0\n"
		"probetop_spec_estimated{metric=\"probetop_fixture_ints\"}"
		" 0\n"
		"probetop_spec_estimated{metric=\"probetop_fixture_enter_"
		"fixture_leave_seconds\"} 1\n");
	/* the sampled latency's one series is a lower bound, and so are
	 * its events */
	check_section(text, "# HELP probetop_lower_bound ",
		      "# HELP probetop_lower_bound 1 for each series that is "
		      "a lower bound: no estimate could promise 15% (label "
		      "metric: its family)\n"
		      "# TYPE probetop_lower_bound gauge\n"
		      "probetop_lower_bound{pid=\"42\",metric=\"probetop_"
		      "fixture_enter_fixture_leave_seconds\"} 1\n");
	check_section(text, "# HELP probetop_spec_events_lower_bound ",
		      "# HELP probetop_spec_events_lower_bound 1 if the "
		      "aggregation's probetop_spec_events_total is a lower "
		      "bound: no estimate could promise 15%\n"
		      "# TYPE probetop_spec_events_lower_bound gauge\n"
		      "probetop_spec_events_lower_bound{metric=\"probetop_"
		      "python_frames_calls\"} 0\n"
		      "probetop_spec_events_lower_bound{metric=\"probetop_"
		      "fixture_ints\"} 0\n"
		      "probetop_spec_events_lower_bound{metric=\"probetop_"
		      "fixture_enter_fixture_leave_seconds\"} 1\n");
	check_section(text, "# HELP probetop_spec_unmatched_total ",
		      "# HELP probetop_spec_unmatched_total Ends of a latency "
		      "pair without their start, since attach\n"
		      "# TYPE probetop_spec_unmatched_total counter\n"
		      "probetop_spec_unmatched_total{metric=\"probetop_fixture_"
		      "enter_fixture_leave_seconds\"} 1\n");
	assert_non_null(strstr(text, "probetop_spec_drops_total{metric="
				     "\"probetop_fixture_enter_fixture_leave_"
				     "seconds\",reason=\"depth\"} 1\n"));
	assert_non_null(strstr(text,
			       "probetop_spec_info{metric=\"probetop_python_"
			       "frames_calls\",spec=\"python:function__return="
			       "count(str(arg1),arg2)\",probeset=\"python\","
			       "section=\"frames\",role=\"calls\"} 1\n"));
	assert_non_null(strstr(text, "\nprobetop_overhead_cpu_seconds_total "
				     "0.1\n"));
	assert_non_null(strstr(text, "\nprobetop_intervals_total 3\n"));
	assert_non_null(strstr(text, "\nprobetop_probes_attached 4\n"));
	assert_non_null(strstr(text, "\nprobetop_export_series_cut 0\n"));
	assert_null(strstr(text, "probetop_overhead_target_ratio"));
	assert_null(strstr(text, "# EOF"));
	free(text);
}

static void test_render_openmetrics(void **state)
{
	struct fixture f;
	char *text;
	size_t len;

	(void)state;
	build(&f);
	text = render(&f, METRICS_OPENMETRICS, true, 0);
	check_section(text, "# HELP probetop_python_frames_calls ",
		      "# HELP probetop_python_frames_calls Count of "
		      "python:function__return=count(str(arg1),arg2) "
		      "(probeset python, [frames] calls)\n"
		      "# TYPE probetop_python_frames_calls counter\n"
		      "probetop_python_frames_calls_total{pid=\"42\",command="
		      "\"app\\\\t-x\",function=\"say \\\"hi\\\"\\\\\\\\\\\\n"
		      "\\\\x1b\",line_no=\"3\"} 7\n"
		      "probetop_python_frames_calls_total{pid=\"42\",command="
		      "\"app\\\\t-x\",function=\"leaf\",line_no=\"9\"} 2\n");
	assert_non_null(strstr(text, "# TYPE probetop_spec info\n"));
	len = strlen(text);
	assert_true(len > 6);
	assert_string_equal(text + len - 6, "# EOF\n");
	free(text);
}

static void test_series_cut(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	build(&f);
	text = render(&f, METRICS_TEXT, false, 2);
	/* two rows fit (the count's), the histograms' two are cut */
	assert_non_null(strstr(text, "\nprobetop_export_series_cut 2\n"));
	assert_non_null(strstr(text, "(over 2 rows)"));
	assert_null(strstr(text, "probetop_fixture_ints_bucket"));
	assert_non_null(strstr(text, "function=\"leaf\""));
	free(text);
}

static void test_name_clash(void **state)
{
	struct fixture f;
	char *text;

	(void)state;
	build(&f);
	/* a second bare spec on fixture:ints takes _2 */
	f.specs[0].spec = &f.spec[1];
	f.specs[0].id = 1;
	f.specs[0].nrows = 0;
	text = render(&f, METRICS_TEXT, false, 0);
	assert_non_null(strstr(text, "# TYPE probetop_fixture_ints histogram"));
	assert_non_null(
		strstr(text, "# TYPE probetop_fixture_ints_2 histogram"));
	free(text);
}

static void test_parse(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256], host[64];
	const struct sockaddr_in *in = (const void *)&ss;
	const struct sockaddr_in6 *in6 = (const void *)&ss;

	(void)state;
	assert_int_equal(export_parse("9464", &ss, &len, err, sizeof(err)), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ntohs(in->sin_port), 9464);
	inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(export_parse("0.0.0.0:0", &ss, &len, err, sizeof(err)),
			 0);
	inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
	assert_string_equal(host, "0.0.0.0");
	assert_int_equal(ntohs(in->sin_port), 0);
	assert_int_equal(export_parse("[::1]:81", &ss, &len, err, sizeof(err)),
			 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(ntohs(in6->sin6_port), 81);
	assert_int_equal(export_parse(":82", &ss, &len, err, sizeof(err)), 0);
	inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(export_parse("65536", &ss, &len, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--listen: '65536' is not a port (0-65535)");
	assert_int_equal(export_parse("1.2.3.4:x", &ss, &len, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(export_parse("::1:80", &ss, &len, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "--listen: write an IPv6 address in "
				 "brackets: [ADDR]:PORT");
	assert_int_equal(export_parse("[::1]80", &ss, &len, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(export_parse("", &ss, &len, err, sizeof(err)),
			 -EINVAL);
}

/* One request to 127.0.0.1:port; the whole response. */
static char *http(int port, const char *request)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	size_t cap = 1 << 16, len = 0;
	char *buf = calloc(1, cap);
	ssize_t n;

	assert_true(fd >= 0 && buf);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(write(fd, request, strlen(request)),
			 (ssize_t)strlen(request));
	while ((n = read(fd, buf + len, cap - len - 1)) > 0)
		len += (size_t)n;
	close(fd);
	return buf;
}

static void test_serve(void **state)
{
	struct fixture f;
	struct metrics_src src = { 0 };
	char err[256], *resp;
	struct export *ex;

	(void)state;
	build(&f);
	ex = export_start("127.0.0.1:0", err, sizeof(err));
	assert_non_null(ex);
	assert_true(export_port(ex) > 0);
	/* before the first publish: an empty document */
	resp = http(export_port(ex), "GET /metrics HTTP/1.0\r\n\r\n");
	assert_non_null(strstr(resp, " 200 OK\r\n"));
	assert_non_null(strstr(resp, "Content-Length: 0\r\n"));
	free(resp);
	src.snap = &f.snap;
	src.probes = 4;
	assert_int_equal(export_publish(ex, &src), 0);
	resp = http(export_port(ex), "GET /metrics HTTP/1.0\r\nAccept: "
				     "application/openmetrics-text\r\n\r\n");
	assert_non_null(strstr(resp, "Content-Type: application/openmetrics-"
				     "text; version=1.0.0; charset=utf-8\r\n"));
	assert_non_null(strstr(resp, "\nprobetop_probes_attached 4\n"));
	assert_non_null(strstr(resp, "# EOF\n"));
	free(resp);
	resp = http(export_port(ex), "PUT /metrics HTTP/1.0\r\n\r\n");
	assert_non_null(strstr(resp, " 405 Method Not Allowed\r\n"));
	assert_non_null(strstr(resp, "Allow: GET, HEAD\r\n"));
	free(resp);
	resp = http(export_port(ex), "GET /x HTTP/1.0\r\n\r\n");
	assert_non_null(strstr(resp, " 404 Not Found\r\n"));
	free(resp);
	export_stop(ex);
	export_stop(NULL);
	/* a port in use */
	ex = export_start("127.0.0.1:0", err, sizeof(err));
	assert_non_null(ex);
	{
		char arg[64];

		snprintf(arg, sizeof(arg), "127.0.0.1:%d", export_port(ex));
		assert_null(export_start(arg, err, sizeof(err)));
		assert_non_null(strstr(err, "cannot listen there"));
	}
	export_stop(ex);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_part),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_render_text),
		cmocka_unit_test(test_render_openmetrics),
		cmocka_unit_test(test_series_cut),
		cmocka_unit_test(test_name_clash),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_serve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
