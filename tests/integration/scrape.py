# SPDX-License-Identifier: MIT
"""Helpers for the --listen tests: finding the port probetop bound,
scraping it, parsing the exposition formats, promtool, and a real
Prometheus server (Debian's /usr/bin/prometheus) started on a free
loopback port with its own config and data folder."""

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

OPENMETRICS = "application/openmetrics-text; version=1.0.0"
URL_RE = re.compile(r"serving metrics on (http://127\.0\.0\.1:(\d+)/metrics)")


def url_in(text):
    """The metrics URL probetop said it serves in text, or None."""
    m = URL_RE.search(text)
    return m.group(1) if m else None


def get(url, accept=None, method="GET", timeout=10):
    """(status, content type, body text) of one request."""
    req = urllib.request.Request(url, method=method)
    if accept:
        req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers.get("Content-Type"), \
                r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), e.read().decode()


LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


def unescape(v):
    return re.sub(r'\\[\\"n]', lambda m: UNESCAPE[m.group(0)], v)


def parse(text):
    """{(name, ((label, value), ...) sorted): value as text} of every
    sample; HELP and TYPE lines as {name: text} in the second and third
    results."""
    samples, helps, types = {}, {}, {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name, _, h = line[7:].partition(" ")
            helps[name] = h
            continue
        if line.startswith("# TYPE "):
            name, _, t = line[7:].partition(" ")
            types[name] = t
            continue
        if not line or line.startswith("#"):
            continue
        if "{" in line:
            name, rest = line.split("{", 1)
            body, _, value = rest.rpartition("} ")
            labels = tuple(sorted((k, unescape(v))
                                  for k, v in LABEL_RE.findall(body)))
        else:
            name, value = line.split(" ", 1)
            labels = ()
        samples[(name, labels)] = value
    return samples, helps, types


def series(samples, name, /, **match):
    """{labels dict minus pid and match keys, as a sorted tuple: value}
    of samples of name whose labels include match."""
    out = {}
    for (n, labels), v in samples.items():
        d = dict(labels)
        if n != name or any(d.get(k) != str(w) for k, w in match.items()):
            continue
        key = tuple(sorted((k, x) for k, x in d.items()
                           if k not in match and k != "pid"))
        out[key] = v
    return out


def wait_intervals(url, more, timeout=30):
    """Scrape until probetop_intervals_total has grown by `more` since the
    first scrape; the last body (text format)."""
    end = time.time() + timeout
    first = None
    body = ""
    while time.time() < end:
        _, _, body = get(url)
        m = re.search(r"^probetop_intervals_total (\d+)$", body, re.M)
        n = int(m.group(1)) if m else 0
        if first is None:
            first = n
        elif n >= first + more:
            return body
        time.sleep(0.05)
    return body


def promtool_check(text):
    """(returncode, output) of `promtool check metrics` on text."""
    r = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True, timeout=60)
    return r.returncode, (r.stdout + r.stderr).strip()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Prometheus:
    """A Prometheus server scraping targets every `interval` seconds, on
    a free loopback port, with its own config and data folder (removed by
    stop())."""

    def __init__(self, targets, interval="1s"):
        self.dir = tempfile.mkdtemp(prefix="probetop-prom-")
        self.port = free_port()
        cfg = os.path.join(self.dir, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: %s\n"
                    "  scrape_timeout: %s\n"
                    "scrape_configs:\n  - job_name: probetop\n"
                    "    static_configs:\n      - targets: [%s]\n"
                    % (interval, interval,
                       ", ".join("'%s'" % t for t in targets)))
        self.log = open(os.path.join(self.dir, "log"), "w")
        self.p = subprocess.Popen(
            ["prometheus", "--config.file=" + cfg,
             "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
             "--web.listen-address=127.0.0.1:%d" % self.port],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.base = "http://127.0.0.1:%d" % self.port

    def ready(self, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            try:
                if get(self.base + "/-/ready", timeout=2)[0] == 200:
                    return True
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if self.p.poll() is not None:
                return False
            time.sleep(0.2)
        return False

    def api(self, path, **params):
        q = urllib.parse.urlencode(params)
        _, _, body = get("%s/api/v1/%s?%s" % (self.base, path, q))
        return json.loads(body)

    def query(self, expr):
        """{labels minus __name__, job, instance, as a sorted tuple:
        value text} of an instant query."""
        r = self.api("query", query=expr)
        out = {}
        for s in r.get("data", {}).get("result", []):
            labels = tuple(sorted((k, v) for k, v in s["metric"].items()
                                  if k not in ("__name__", "job",
                                               "instance")))
            out[labels] = s["value"][1]
        return out

    def wait_query(self, expr, want, timeout=30):
        """Query until the result is want (or timeout); the last result."""
        end = time.time() + timeout
        got = None
        while time.time() < end:
            got = self.query(expr)
            if got == want:
                break
            time.sleep(0.3)
        return got

    def logs(self):
        self.log.flush()
        with open(os.path.join(self.dir, "log")) as f:
            return f.read()

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)
