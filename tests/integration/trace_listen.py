# SPDX-License-Identifier: MIT
"""trace --listen 127.0.0.1:0: the fixture fires known counts and the
endpoint serves them exactly, in the text format (promtool check metrics
passes) and in OpenMetrics (same samples, # EOF), every histogram equal
to trace's own final JSON; keys from a Python file whose name holds a
quote, a backslash and a newline come out escaped; bad requests get their
status (405, 404, 414, 431; over the per-address connection limit a
connection is closed) while the tracer keeps counting exactly; and a
real Prometheus server scraping both endpoints answers its query API
with the exact count of every key, the exact _count of each latency
histogram and histogram_quantile() of the lquantize one."""

import os
import re
import socket
import tempfile
import time

from scrape import (OPENMETRICS, Prometheus, get, parse, promtool_check,
                    series, url_in, wait_intervals)
from tap import FIXTURE_DIR, Tap, Target, Trace, agg_of, need_root, run

tap = Tap()
need_root(tap)
EXE = os.path.join(FIXTURE_DIR, "sdt_target")
N = 100
MAX_PER_IP = 16  # EXPORT_MAX_PER_IP (ui/export.h)
SPECS = {
    "tick": "fixture:tick",
    "q": "fixture:ints=quantize(arg0)",
    "sum": "fixture:ints=sum(arg1)",
    "lq": "fixture:global=lquantize(arg0, 0, 60, 10)",
    "str": "fixture:str=count(str(arg0))",
    "multi": "fixture:multi=count(arg0)",
    "nest": "fixture:enter..fixture:leave=latency(arg0)",
}
# the family each spec gets (metrics.h: from its probes; the second
# spec on fixture:ints takes _2)
FAMILY = {
    "tick": "probetop_fixture_tick",
    "q": "probetop_fixture_ints",
    "sum": "probetop_fixture_ints_2",
    "lq": "probetop_fixture_global",
    "str": "probetop_fixture_str",
    "multi": "probetop_fixture_multi",
    "nest": "probetop_fixture_enter_fixture_leave_seconds",
}


def log2_index(v):
    return 0 if v < 0 else 1 if v == 0 else 1 + v.bit_length()


def log2_le(i):
    """le of log2 bucket i: its integers are below 2^(i-1) (0: below 0)"""
    return -1 if i == 0 else (1 << (i - 1)) - 1


def cumulative(values, les):
    out = {str(le): str(sum(1 for v in values if v <= le)) for le in les}
    out["+Inf"] = str(len(values))
    return out


def buckets_of(samples, name, **match):
    """{le: count} of a histogram's _bucket samples matching labels."""
    return {dict(k)["le"]: v for k, v in
            series(samples, name + "_bucket", **match).items()}


def seconds(ns):
    """ns as the exporter writes seconds: exact, no trailing zeros"""
    s = "%s%d.%09d" % ("-" if ns < 0 else "", abs(ns) // 10**9,
                       abs(ns) % 10**9)
    return s.rstrip("0").rstrip(".")


def json_histogram(row, timed):
    """The _bucket {le: cumulative} trace's JSON row implies: its buckets
    [low, count], each bucket's upper bound as the exporter writes it."""
    out, bs = {}, row["buckets"]
    # log2: the bucket of low L >= 1 holds [L, 2L), of low 0 only 0
    lows = [b[0] for b in bs]
    counts = dict((b[0], b[1]) for b in bs)
    first = log2_index(lows[0]) if lows[0] >= 0 else 0
    last = log2_index(lows[-1]) if lows[-1] >= 0 else 0
    cum = 0
    for i in range(first, last + 1):
        low = -1 if i == 0 else 0 if i == 1 else 1 << (i - 2)
        if i == 0:
            cum += sum(c for l, c in counts.items() if l < 0)
        else:
            cum += counts.get(low, 0)
        hi = 0 if i == 0 else 1 << (i - 1)
        out[seconds(hi) if timed else str(hi - 1)] = str(cum)
    out["+Inf"] = str(row["total"])
    return out


def raw_status(port, request, wait_close=True):
    """The status line of one raw HTTP exchange (b"" if closed)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        s.sendall(request)
        data = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
    except (ConnectionResetError, BrokenPipeError):
        data = b""
    finally:
        s.close()
    return data.split(b"\r\n", 1)[0].decode()


# -- a Python target whose file name needs escaping ------------------------
PY = "/usr/bin/python3.11"
PY_SPEC = "python:function__return=count(str(arg0))"
EVIL = 'e"q\\b\nv.py'
SHOWN = 'e"q\\\\b\\nv.py'  # the inert form (engine/name/inert.h)
CALLS = 7
tmp = tempfile.mkdtemp(prefix="probetop-listen-")
evil = os.path.join(tmp, EVIL)
with open(evil, "w") as f:
    f.write("import sys\ndef f(): return 1\nprint('ready', flush=True)\n"
            "sys.stdin.readline()\nfor _ in range(%d):\n    f()\n"
            "print('done', flush=True)\nsys.stdin.readline()\n" % CALLS)
py = Target([PY, evil])
pytr = Trace(["-p", str(py.pid), "-i", "0.2", "-e", PY_SPEC, "--listen",
              "127.0.0.1:0"])
py_url = url_in("".join(pytr.err))
tap.ok(py_url is not None, "trace says the URL it serves, with its port",
       "".join(pytr.err))
tap.eq(py.send("go").strip(), "done", "python target called f()")
body = wait_intervals(py_url, 2)
samples, helps, types = parse(body)
got = series(samples, "probetop_python_function_return_total")
tap.eq(got.get((("arg0", os.path.join(tmp, SHOWN)),)), str(CALLS),
       "a key with a quote, a backslash and a newline: its inert form, "
       "escaped, exact count", body)
tap.ok('\\"q\\\\\\\\b\\\\nv.py"' in body,
       "the label value on the wire escapes \\ and \" (the newline is "
       "already \\n)", body)
tap.eq(promtool_check(body), (0, ""), "promtool check metrics: python")

# -- --listen's errors ----------------------------------------------------
r = run(["trace", "-p", str(py.pid), "-e", PY_SPEC, "--listen", "99999"])
tap.eq((r.returncode, r.stderr),
       (2, "probetop: --listen: '99999' is not a port (0-65535)\n"),
       "a bad port: a usage error")
r = run(["trace", "-p", str(py.pid), "-e", PY_SPEC, "--listen",
         "[::1]9464"])
tap.eq((r.returncode, r.stderr),
       (2, "probetop: --listen: '[::1]9464' is not [IPV6]:PORT\n"),
       "a bad address: a usage error")
busy = socket.socket()
busy.bind(("127.0.0.1", 0))
busy.listen()
busy_port = busy.getsockname()[1]
r = run(["trace", "-p", str(py.pid), "-e", PY_SPEC, "-d", "1", "--listen",
         "127.0.0.1:%d" % busy_port])
busy.close()
tap.eq((r.returncode, r.stderr),
       (1, "probetop: --listen 127.0.0.1:%d: cannot listen there (in use?)\n"
        % busy_port), "a port in use: said before tracing starts, exit 1")

# -- before the first interval: the aggregations are served at once -------
early = Trace(["-p", str(py.pid), "-i", "60", "-e", PY_SPEC, "--listen",
               "127.0.0.1:0"])
early_url = url_in("".join(early.err))
status, _, body = get(early_url) if early_url else (0, "", "")
info = series(parse(body)[0], "probetop_spec_info") if status == 200 else {}
tap.ok(status == 200 and
       any(dict(k).get("spec") == PY_SPEC for k in info) and
       "# TYPE probetop_python_function_return_total counter" in body,
       "--listen before the first interval (-i 60): the first scrape "
       "already serves the spec's family and its probetop_spec_info",
       body[:2000])
early.finish()

# -- the fixture ------------------------------------------------------------
t = Target([EXE])
args = []
for s in SPECS.values():
    args += ["-e", s]
tr = Trace(["-p", str(t.pid), "-i", "0.2", "--listen", "127.0.0.1:0"] + args)
url = url_in("".join(tr.err))
tap.ok(url is not None and url.endswith("/metrics"),
       "trace --listen 127.0.0.1:0 says the port it got", "".join(tr.err))
port = int(re.search(r":(\d+)/", url).group(1))
base = url[:-len("/metrics")]
tap.eq(t.send("fire %d" % N).strip(), "fired %d" % N, "fixture fired")
body = wait_intervals(url, 2)
samples, helps, types = parse(body)
pid = str(t.pid)

tap.eq(promtool_check(body), (0, ""), "promtool check metrics finds nothing")
tap.eq(series(samples, "probetop_fixture_tick_total"), {(): str(N)},
       "count: exact", body)
tap.eq(samples.get(("probetop_fixture_tick_total", (("pid", pid),))), str(N),
       "every row has the pid label")
tap.eq(series(samples, "probetop_fixture_multi_total"),
       {(("arg0", str(i)),): "1" for i in range(N)},
       "count(arg0): every key exact (label arg0)")
tap.eq(series(samples, "probetop_fixture_str_total"),
       {(("arg0", "fixture-string"),): str(N)}, "count(str(arg0)): exact")
tap.eq((series(samples, "probetop_fixture_ints_2_total"),
        series(samples, "probetop_fixture_ints_2_events_total")),
       ({(): str(sum(range(N)))}, {(): str(N)}),
       "sum: the sum and its events as counters; a second spec on the "
       "probe gets _2")
vals = [i - 5 for i in range(N)]
idx = sorted({log2_index(v) for v in vals})
tap.eq(buckets_of(samples, "probetop_fixture_ints"),
       cumulative(vals, [log2_le(i) for i in range(idx[0], idx[-1] + 1)]),
       "quantize: cumulative le buckets (integer bounds), negatives below "
       "le=-1", body)
tap.eq((series(samples, "probetop_fixture_ints_sum"),
        series(samples, "probetop_fixture_ints_count")),
       ({(): str(sum(vals))}, {(): str(N)}), "quantize: _sum and _count")
tap.eq(buckets_of(samples, "probetop_fixture_global"),
       cumulative(list(range(N)), [9, 19, 29, 39, 49, 59]),
       "lquantize: le at each step, the >= HIGH bucket only in +Inf")
tap.eq(series(samples, "probetop_fixture_enter_fixture_leave_seconds_count"),
       {(("arg0", str(d)),): str(N) for d in (1, 2, 3)},
       "latency: a histogram in seconds, exact _count per key")
tap.eq((types.get("probetop_fixture_tick_total"),
        types.get("probetop_fixture_ints"),
        types.get("probetop_fixture_enter_fixture_leave_seconds")),
       ("counter", "histogram", "histogram"), "TYPE lines")
tap.ok("fixture:enter..fixture:leave=latency(arg0)" in
       helps.get("probetop_fixture_enter_fixture_leave_seconds", ""),
       "HELP names the spec", helps)
tap.eq(series(samples, "probetop_spec_info",
              metric="probetop_fixture_multi"),
       {(("spec", SPECS["multi"]),): "1"},
       "probetop_spec_info maps a family to its spec")
tap.eq(series(samples, "probetop_spec_drops_total",
              metric="probetop_fixture_tick"),
       {(("reason", r),): "0" for r in ("map_full", "string", "depth",
                                        "python")},
       "drops by reason, per spec")
tap.eq(series(samples, "probetop_probes_attached"), {(): "8"},
       "attached probes (the latency pair is two)")
tap.eq(series(samples, "probetop_export_series_cut"), {(): "0"},
       "nothing cut")

# OpenMetrics, when asked
st, ctype, om = get(url, accept=OPENMETRICS)
tap.eq((st, ctype), (200, "application/openmetrics-text; version=1.0.0; "
                          "charset=utf-8"), "Accept: OpenMetrics is honoured")
st, ctype, text = get(url)
tap.eq((st, ctype), (200, "text/plain; version=0.0.4; charset=utf-8"),
       "no Accept: the text format 0.0.4")
om_samples, _, om_types = parse(om)
tap.ok(om.endswith("# EOF\n") and not text.endswith("# EOF\n"),
       "OpenMetrics ends with # EOF, the text format does not")
tap.eq((om_types.get("probetop_fixture_tick"),
        om_types.get("probetop_fixture_tick_total"),
        om_types.get("probetop_spec")),
       ("counter", None, "info"),
       "OpenMetrics: a counter's TYPE names the family, _total its sample; "
       "the spec description is an info metric")
tap.eq(om_samples, parse(text)[0], "both formats carry the same samples")

# -- bad requests -------------------------------------------------------------
tap.eq(get(url, method="POST")[0], 405, "POST /metrics: 405")
tap.eq(get(url, method="DELETE")[0], 405, "DELETE /metrics: 405")
tap.eq(get(base + "/nope")[0], 404, "GET /nope: 404")
st, ctype, page = get(base + "/")
tap.ok(st == 200 and ctype.startswith("text/html") and
       'href="/metrics"' in page, "GET /: a page linking /metrics", page)
tap.eq(get(url, method="HEAD")[:2], (200, "text/plain; version=0.0.4; "
                                          "charset=utf-8"), "HEAD: 200")
tap.eq(raw_status(port, b"GET /metrics?" + b"a" * 100000 +
                  b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
       "HTTP/1.1 414 URI Too Long", "a 100 KB URL: 414")
tap.eq(raw_status(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " +
                  b"a" * 100000 + b"\r\nConnection: close\r\n\r\n"),
       "HTTP/1.1 431 Request Header Fields Too Large",
       "a 100 KB header: 431")
tap.eq(raw_status(port, b"POST /metrics HTTP/1.1\r\nHost: x\r\n"
                  b"Content-Length: 5\r\nConnection: close\r\n\r\nhello"),
       "HTTP/1.1 405 Method Not Allowed", "POST with a body: 405")

# 200 connections at once: the first MAX_PER_IP are served, the others
# are closed at once; meanwhile the fixture fires again
socks = [socket.create_connection(("127.0.0.1", port), timeout=10)
         for _ in range(200)]
tap.eq(t.send("fire %d" % N).strip(), "fired %d" % N,
       "fixture fired with 200 connections open")
time.sleep(0.5)
statuses, full = [], 0
want_len = None
for s in socks:
    try:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
                  b"Connection: close\r\n\r\n")
        data = b""
        while True:
            d = s.recv(1 << 20)
            if not d:
                break
            data += d
    except (ConnectionResetError, BrokenPipeError):
        data = b""
    s.close()
    head, _, payload = data.partition(b"\r\n\r\n")
    statuses.append(head.split(b"\r\n", 1)[0].decode())
    m = re.search(rb"Content-Length: (\d+)", head, re.I)
    if m and int(m.group(1)) == len(payload):
        full += 1
tap.eq((statuses.count("HTTP/1.1 200 OK"), statuses.count(""), full),
       (MAX_PER_IP, 200 - MAX_PER_IP, MAX_PER_IP),
       "200 connections from one address: %d served whole, the rest "
       "closed" % MAX_PER_IP, statuses[:20])
body = wait_intervals(url, 2)
samples = parse(body)[0]
tap.eq((series(samples, "probetop_fixture_tick_total"),
        series(samples, "probetop_fixture_multi_total")),
       ({(): str(2 * N)}, {(("arg0", str(i)),): "2" for i in range(N)}),
       "the tracer counted exactly through the abuse, and serves again")

# -- a real Prometheus --------------------------------------------------------
prom = Prometheus([url[len("http://"):-len("/metrics")],
                   py_url[len("http://"):-len("/metrics")]])
try:
    tap.ok(prom.ready(), "prometheus is up on its own port", prom.logs())
    got = prom.wait_query("probetop_fixture_tick_total",
                          {(("pid", pid),): str(2 * N)})
    tap.eq(got, {(("pid", pid),): str(2 * N)},
           "prometheus: the exact count", prom.logs()[-2000:])
    tap.eq(prom.query("probetop_fixture_multi_total"),
           {(("arg0", str(i)), ("pid", pid)): "2" for i in range(N)},
           "prometheus: the exact count of every key (100 keys)")
    tap.eq(prom.query("probetop_fixture_enter_fixture_leave_seconds_count"),
           {(("arg0", str(d)), ("pid", pid)): str(2 * N) for d in (1, 2, 3)},
           "prometheus: the exact _count of a latency histogram per key")
    tap.eq(prom.query("probetop_fixture_str_total"),
           {(("arg0", "fixture-string"), ("pid", pid)): str(2 * N)},
           "prometheus: a string key")
    # 0..99 twice: the median is 49 (rank 100 at the top of (39, 49])
    tap.eq(prom.query("histogram_quantile(0.5, probetop_fixture_global_bucket)"),
           {(("pid", pid),): "49"},
           "prometheus: histogram_quantile() over the lquantize buckets")
    key = (("arg0", os.path.join(tmp, SHOWN)), ("pid", str(py.pid)))
    end = time.time() + 30  # until Prometheus has scraped that target
    while (prom.query("probetop_python_function_return_total").get(key)
           is None and time.time() < end):
        time.sleep(0.3)
    tap.eq(prom.query("probetop_python_function_return_total").get(key),
           str(CALLS),
           "prometheus: the escaped label value arrives as the inert form")
    meta = prom.api("metadata", metric="probetop_spec")
    tap.eq([m["type"] for m in meta.get("data", {}).get("probetop_spec", [])],
           ["info"], "prometheus negotiated OpenMetrics (an info family)",
           meta)
    tap.eq(t.send("fire %d" % N).strip(), "fired %d" % N, "fired again")
    got = prom.wait_query("probetop_fixture_tick_total",
                          {(("pid", pid),): str(3 * N)})
    tap.eq(got, {(("pid", pid),): str(3 * N)},
           "prometheus: counters are cumulative (3N after three fires)")
    tap.eq(prom.query("count(up == 1)"), {(): "2"},
           "prometheus: both targets up")
finally:
    prom.stop()

# -- the last scrape against trace's own final summary ---------------------
body = wait_intervals(url, 2)
samples = parse(body)[0]
tr.finish()
pytr.finish()
t.stop()
py.stop()
fin = tr.final()
tap.eq(tr.rc, 0, "trace exits 0 on SIGINT")
# whether the budget sampled a spec is the machine's: where a trap is
# dear (4.4 us a hit here) the fixture's burst of latency pairs spends
# the reserve and parks that spec a while
tap.eq(series(samples, "probetop_spec_estimated"),
       {(("metric", FAMILY[k]),):
        "1" if agg_of(fin, SPECS[k]).get("estimated") else "0"
        for k in SPECS},
       "probetop_spec_estimated: 1 for the specs the budget sampled, as "
       "the final summary says, 0 for the others")
ok = True
detail = []
for k, spec in SPECS.items():
    a = agg_of(fin, spec)
    fam = FAMILY[k]
    for row in a["rows"]:
        key = {"arg0": str(row["key"][0])} if row["key"] else {}
        if "buckets" in row:
            timed = k == "nest"
            if k == "lq":
                continue  # linear buckets: checked above
            want = json_histogram(row, timed)
            got = buckets_of(samples, fam, **key)
            s = series(samples, fam + "_sum", **key).get(())
            wsum = seconds(row["sum"]) if timed else str(row["sum"])
        elif k == "sum":
            want, got = str(row["sum"]), \
                series(samples, fam + "_total", **key).get(())
            s = wsum = None
        else:
            want, got = str(row["total"]), \
                series(samples, fam + "_total", **key).get(())
            s = wsum = None
        if want != got or s != wsum:
            ok = False
            detail.append("%s %r: %r != %r (%r %r)" % (spec, key, got, want,
                                                      s, wsum))
tap.ok(ok, "every row, bucket and sum equals trace's final JSON",
       "\n".join(detail))
tap.done()
