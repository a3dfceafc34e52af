// SPDX-License-Identifier: MIT
/*
 * export — the --listen endpoint; see export.h.
 *
 * libmicrohttpd parses HTTP and runs one polling thread (epoll); the
 * access handler only takes a reference on the current document and
 * hands its text to a response that drops the reference when it is
 * done, so a scrape costs a lookup and the sending, however large the
 * document, and never waits for the tracer.
 */
#include "export.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct doc {
	atomic_int refs;
	char *text[2]; /* by enum metrics_format */
	size_t len[2];
};

struct export
{
	struct MHD_Daemon *d;
	pthread_mutex_t lock; /* guards cur (the swap only) */
	struct doc *cur;
	int port;
	char url[128];
};

static const char PAGE[] =
	"<!DOCTYPE html>\n<html><head><title>probetop</title></head>\n"
	"<body><h1>probetop</h1>\n"
	"<p>Metrics of the aggregations probetop keeps, for Prometheus: "
	"<a href=\"/metrics\">/metrics</a></p>\n</body></html>\n";

static void doc_unref(void *arg)
{
	struct doc *doc = arg;

	if (!doc || atomic_fetch_sub(&doc->refs, 1) != 1)
		return;
	free(doc->text[0]);
	free(doc->text[1]);
	free(doc);
}

/* The current document, with a reference the caller drops. */
static struct doc *doc_get(struct export *ex)
{
	struct doc *doc;

	pthread_mutex_lock(&ex->lock);
	doc = ex->cur;
	atomic_fetch_add(&doc->refs, 1);
	pthread_mutex_unlock(&ex->lock);
	return doc;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status,
			     struct MHD_Response *resp, const char *type)
{
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
					"GET, HEAD");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result reply_static(struct MHD_Connection *conn,
				    unsigned int status, const char *text,
				    const char *type)
{
	return reply(conn, status,
		     MHD_create_response_from_buffer(strlen(text), (void *)text,
						     MHD_RESPMEM_PERSISTENT),
		     type);
}

static enum MHD_Result serve_metrics(struct export *ex,
				     struct MHD_Connection *conn)
{
	const char *accept = MHD_lookup_connection_value(
		conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	enum metrics_format f = metrics_wants_openmetrics(accept)
					? METRICS_OPENMETRICS
					: METRICS_TEXT;
	struct doc *doc = doc_get(ex);
	struct MHD_Response *resp =
		MHD_create_response_from_buffer_with_free_callback_cls(
			doc->len[f], doc->text[f], doc_unref, doc);

	if (!resp) {
		doc_unref(doc);
		return MHD_NO;
	}
	return reply(conn, MHD_HTTP_OK, resp,
		     f == METRICS_OPENMETRICS ? METRICS_OPENMETRICS_TYPE
					      : METRICS_TEXT_TYPE);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	(void)version;
	(void)upload;
	(void)state;
	*upload_size = 0; /* a body is never read */
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_static(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				    "only GET\n", "text/plain; charset=utf-8");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(cls, conn);
	if (!strcmp(url, "/"))
		return reply_static(conn, MHD_HTTP_OK, PAGE,
				    "text/html; charset=utf-8");
	return reply_static(conn, MHD_HTTP_NOT_FOUND,
			    "not found: see /metrics\n",
			    "text/plain; charset=utf-8");
}

/* Parsing [ADDR:]PORT ----------------------------------------------------- */

static int parse_port(const char *s, char *err, size_t n)
{
	char *end;
	long port;

	errno = 0;
	port = strtol(s, &end, 10);
	if (!*s || *end || errno || port < 0 || port > 65535) {
		snprintf(err, n, "--listen: '%s' is not a port (0-65535)", s);
		return -EINVAL;
	}
	return (int)port;
}

int export_parse(const char *arg, struct sockaddr_storage *ss, socklen_t *len,
		 char *err, size_t n)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	char host[256];
	const char *port_s, *colon;
	int port, rc;

	if (arg[0] == '[') {
		const char *close = strchr(arg, ']');

		if (!close || close[1] != ':' ||
		    (size_t)(close - arg - 1) >= sizeof(host)) {
			snprintf(err, n, "--listen: '%s' is not [IPV6]:PORT",
				 arg);
			return -EINVAL;
		}
		memcpy(host, arg + 1, (size_t)(close - arg - 1));
		host[close - arg - 1] = '\0';
		port_s = close + 2;
		hints.ai_family = AF_INET6;
		hints.ai_flags = AI_NUMERICHOST;
	} else if ((colon = strrchr(arg, ':'))) {
		if ((size_t)(colon - arg) >= sizeof(host)) {
			snprintf(err, n, "--listen: the address is too long");
			return -EINVAL;
		}
		memcpy(host, arg, (size_t)(colon - arg));
		host[colon - arg] = '\0';
		port_s = colon + 1;
		if (strchr(host, ':')) {
			snprintf(err, n,
				 "--listen: write an IPv6 address in "
				 "brackets: [ADDR]:PORT");
			return -EINVAL;
		}
	} else {
		snprintf(host, sizeof(host), "%s", EXPORT_DEFAULT_ADDR);
		port_s = arg;
	}
	if (!host[0])
		snprintf(host, sizeof(host), "%s", EXPORT_DEFAULT_ADDR);
	port = parse_port(port_s, err, n);
	if (port < 0)
		return port;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc || !res || res->ai_addrlen > sizeof(*ss)) {
		snprintf(err, n, "--listen: '%s' is not an address here%s%s",
			 host, rc ? ": " : "", rc ? gai_strerror(rc) : "");
		if (res)
			freeaddrinfo(res);
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	return 0;
}

/* The server ------------------------------------------------------------ */

static struct doc *doc_empty(void)
{
	struct doc *doc = calloc(1, sizeof(*doc));

	if (!doc)
		return NULL;
	atomic_init(&doc->refs, 1);
	doc->text[METRICS_TEXT] = strdup("");
	doc->text[METRICS_OPENMETRICS] = strdup("# EOF\n");
	if (!doc->text[0] || !doc->text[1]) {
		doc_unref(doc);
		return NULL;
	}
	doc->len[METRICS_OPENMETRICS] = strlen("# EOF\n");
	return doc;
}

static void set_url(struct export *ex, const struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)ss)->sin6_addr, host,
			  sizeof(host));
		snprintf(ex->url, sizeof(ex->url), "http://[%s]:%d/metrics",
			 host, ex->port);
		return;
	}
	inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, host,
		  sizeof(host));
	snprintf(ex->url, sizeof(ex->url), "http://%s:%d/metrics", host,
		 ex->port);
}

struct export *export_start(const char *arg, char *err, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct export *ex = NULL;
	const union MHD_DaemonInfo *info;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
	int rc = export_parse(arg, &ss, &len, err, n);

	if (rc) {
		errno = -rc;
		return NULL;
	}
	ex = calloc(1, sizeof(*ex));
	if (!ex || !(ex->cur = doc_empty())) {
		snprintf(err, n, "--listen: out of memory");
		free(ex);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&ex->lock, NULL);
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	ex->d = MHD_start_daemon(
		flags, 0, NULL, NULL, handle, ex, MHD_OPTION_SOCK_ADDR,
		(struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned int)EXPORT_MAX_CONNS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned int)EXPORT_MAX_PER_IP, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned int)EXPORT_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)EXPORT_MEMORY_LIMIT,
		MHD_OPTION_END);
	if (!ex->d) {
		snprintf(err, n, "--listen %s: cannot listen there (in use?)",
			 arg);
		export_stop(ex);
		errno = EADDRINUSE;
		return NULL;
	}
	info = MHD_get_daemon_info(ex->d, MHD_DAEMON_INFO_BIND_PORT);
	ex->port = info ? info->port : 0;
	set_url(ex, &ss);
	return ex;
}

const char *export_url(const struct export *ex)
{
	return ex->url;
}

int export_port(const struct export *ex)
{
	return ex->port;
}

int export_publish(struct export *ex, const struct metrics_src *src)
{
	struct doc *doc = calloc(1, sizeof(*doc)), *old;

	if (!doc)
		return -ENOMEM;
	atomic_init(&doc->refs, 1);
	for (int f = 0; f < 2; f++) {
		doc->text[f] = metrics_render(src, (enum metrics_format)f,
					      &doc->len[f]);
		if (!doc->text[f]) {
			doc_unref(doc);
			return -ENOMEM;
		}
	}
	pthread_mutex_lock(&ex->lock);
	old = ex->cur;
	ex->cur = doc;
	pthread_mutex_unlock(&ex->lock);
	doc_unref(old);
	return 0;
}

void export_stop(struct export *ex)
{
	if (!ex)
		return;
	if (ex->d)
		MHD_stop_daemon(ex->d);
	doc_unref(ex->cur);
	pthread_mutex_destroy(&ex->lock);
	free(ex);
}
