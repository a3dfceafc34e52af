/* SPDX-License-Identifier: MIT */
/*
 * export — `--listen [ADDR:]PORT`: an HTTP endpoint (libmicrohttpd)
 * serving the last snapshot's metrics (metrics.h) to Prometheus.
 *
 * GET /metrics answers in the text format 0.0.4, or in OpenMetrics 1.0
 * when the Accept header asks for it; GET / is a page linking there;
 * another path is 404, another method than GET or HEAD 405. The
 * endpoint reads, never controls.
 *
 * The server never blocks the tracer: its own thread (libmicrohttpd's
 * polling thread, epoll) answers from a published document, rendered
 * by the loop that owns the snapshot (export_publish(), once per
 * interval) in both formats. A document is reference-counted: publishing
 * swaps the current one under a mutex held only for the swap, and a
 * response being sent keeps the document it started with. Bounds:
 * EXPORT_MAX_CONNS connections, EXPORT_MAX_PER_IP from one address (over
 * them a connection is closed at once), EXPORT_TIMEOUT_S idle seconds,
 * EXPORT_MEMORY_LIMIT bytes of request per connection (a longer request
 * line or header is answered 414/431 by the library).
 *
 * Call order: export_start → export_publish (any number of times, one
 * thread) → export_stop.
 */
#ifndef PROBETOP_EXPORT_H
#define PROBETOP_EXPORT_H

#include <stddef.h>
#include <sys/socket.h>

#include "metrics.h"

#define EXPORT_DEFAULT_ADDR "127.0.0.1"
#define EXPORT_MAX_CONNS 64
#define EXPORT_MAX_PER_IP 16
#define EXPORT_TIMEOUT_S 10
#define EXPORT_MEMORY_LIMIT 16384

struct export;

/*
 * Parse [ADDR:]PORT ("9464", "0.0.0.0:9464", "[::1]:0", "localhost:0";
 * no ADDR: EXPORT_DEFAULT_ADDR; PORT 0: a free port) into *ss and *len.
 * 0, or -EINVAL with the reason in err[0..n).
 */
int export_parse(const char *arg, struct sockaddr_storage *ss, socklen_t *len,
		 char *err, size_t n);

/*
 * Listen on arg ([ADDR:]PORT) and serve an empty document until the first
 * export_publish(). NULL with the reason in err[0..n) (errno set).
 */
struct export *export_start(const char *arg, char *err, size_t n);

/* "http://ADDR:PORT/metrics", with the port actually bound. */
const char *export_url(const struct export *ex);

/* The port bound (what port 0 picked). */
int export_port(const struct export *ex);

/*
 * Render src in both formats and make it what scrapes get from now on.
 * src and what it points to are only used during the call. Returns 0, or
 * -ENOMEM (the previous document stays).
 */
int export_publish(struct export *ex, const struct metrics_src *src);

/* Stop serving (waits for the server thread) and free; NULL is a no-op. */
void export_stop(struct export *ex);

#endif
