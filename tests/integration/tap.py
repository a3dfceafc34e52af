# SPDX-License-Identifier: MIT
"""Helpers for probetop's integration tests: TAP output, running probetop,
starting targets, and reading `readelf -n` as the reference."""

import json
import os
import re
import signal
import struct
import subprocess
import sys
import threading
import time
import zlib

PROBETOP = os.environ.get("PROBETOP", "probetop")
FIXTURE_DIR = os.environ.get("FIXTURE_DIR", ".")


class Tap:
    """Minimal TAP producer: one `ok`/`not ok` line per check."""

    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, what, detail=""):
        self.n += 1
        print(("ok" if cond else "not ok") + " %d - %s" % (self.n, what))
        if not cond:
            self.failed += 1
            for line in str(detail).splitlines()[:40]:
                print("#   " + line)
        sys.stdout.flush()
        return cond

    def eq(self, got, want, what, detail=""):
        return self.ok(got == want, what,
                       "got:  %r\nwant: %r\n%s" % (got, want, detail))

    def todo(self, cond, what, why):
        """A check known not to hold yet, for the reason why: `not ok ...
        # TODO why` (meson: an expected failure, not a failed test), or
        `ok ... # TODO why` once it holds."""
        self.n += 1
        print("%s %d - %s # TODO %s" % ("ok" if cond else "not ok", self.n,
                                        what, why))
        sys.stdout.flush()
        return cond

    def skip(self, what, why):
        """One check not made: an `ok ... # SKIP why` line."""
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, what, why))
        sys.stdout.flush()

    def skip_all(self, why):
        print("1..0 # SKIP " + why)
        sys.exit(0)

    def done(self):
        print("1..%d" % self.n)
        sys.exit(1 if self.failed else 0)


def need_root(tap):
    if os.geteuid() != 0:
        tap.skip_all("needs root")


def run(args, **kw):
    """Run probetop with args; returns CompletedProcess (text)."""
    return subprocess.run([PROBETOP] + args, capture_output=True, text=True,
                          timeout=kw.pop("timeout", 60), **kw)


NOTE_RE = re.compile(r"Provider: (\S+)\s+Name: (\S+)\s+"
                     r"Location: (0x[0-9a-f]+), Base: 0x[0-9a-f]+, "
                     r"Semaphore: (0x[0-9a-f]+)\s+Arguments: ?([^\n]*)")


def readelf_probes(path):
    """Every stapsdt note of path as a sorted list of
    (provider, name, address, semaphore, args) tuples, from readelf -n."""
    out = subprocess.run(["readelf", "-n", path], capture_output=True,
                         text=True, check=True).stdout
    return sorted((m.group(1), m.group(2), int(m.group(3), 16),
                   int(m.group(4), 16), m.group(5).strip())
                  for m in NOTE_RE.finditer(out))


def file_offset(path, vaddr):
    """The file offset of link-time address vaddr of path, by its PT_LOAD
    segments (readelf -lW)."""
    out = subprocess.run(["readelf", "-lW", path], capture_output=True,
                         text=True, check=True).stdout
    for l in out.splitlines():
        p = l.split()
        if p and p[0] == "LOAD":
            off, va, filesz = int(p[1], 16), int(p[2], 16), int(p[4], 16)
            if va <= vaddr < va + filesz:
                return vaddr - va + off
    return None


def json_locations(entries, obj=None):
    """probetop list --json entries flattened to the readelf tuples."""
    out = []
    for e in entries:
        if obj is not None and e["object"] != obj:
            continue
        for loc in e["locations"]:
            sem = e["semaphore"]
            out.append((e["provider"], e["name"], int(loc["address"], 16),
                        int(sem, 16) if sem else 0, loc["args"]))
    return sorted(out)


class Target:
    """A process started with pipes; waits for its 'ready' line when asked."""

    def __init__(self, argv, ready=True, env=None):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True,
                                  env=env)
        self.pid = self.p.pid
        if ready:
            line = self.p.stdout.readline()
            assert line.startswith("ready"), line

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return self.p.stdout.readline()

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()


def cpu_s(pid):
    """The CPU time pid's threads have had so far, in seconds (schedstat:
    in ns, not in ticks): what profile:HZ samples, on a shared machine
    too. A thread that ends meanwhile is left out."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total / 1e9


def erl_module(tap, tmp, name, text):
    """Compile the Erlang module name (its source text) into directory
    tmp with erlc; without erlc, every check is skipped (1..0)."""
    if subprocess.run(["which", "erlc"], capture_output=True).returncode:
        tap.skip_all("erlc not installed (erlang-base, scripts/setup)")
    src = os.path.join(tmp, name + ".erl")
    with open(src, "w") as f:
        f.write(text)
    subprocess.run(["erlc", "-o", tmp, src], check=True)


def java_class(tmp, name, text):
    """Compile the Java class name (its source text) into directory tmp
    with javac."""
    src = os.path.join(tmp, name + ".java")
    with open(src, "w") as f:
        f.write(text)
    subprocess.run(["javac", "-d", tmp, src], check=True)


def wait_mapped(pid, fragment, timeout=60):
    """Wait until /proc/PID/maps maps a file whose path contains fragment;
    returns that path or None."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            with open("/proc/%d/maps" % pid) as f:
                for line in f:
                    parts = line.split(None, 5)
                    if len(parts) == 6 and fragment in parts[5]:
                        return parts[5].strip()
        except FileNotFoundError:
            return None
        time.sleep(0.1)
    return None


class Trace:
    """probetop trace --json in the background: waits for its 'attached'
    line on stderr; finish() stops it (SIGINT unless it ends by itself)
    and returns its JSON objects. Both pipes are read by threads from the
    start: a readline() on the pipe followed by communicate() loses what
    the first read buffered past the line (the lines probetop prints
    right after 'attached', when they arrive together)."""

    def __init__(self, args, json_out=True, env=None, preexec_fn=None):
        argv = [PROBETOP, "trace"] + (["--json"] if json_out else []) + args
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=env,
                                  preexec_fn=preexec_fn)
        self.err = []
        self.out = []
        self.attached = None
        seen = threading.Event()

        def drain_err():
            for line in self.p.stderr:
                self.err.append(line)
                if self.attached is None and "probetop: attached" in line:
                    self.attached = line.strip()
                    seen.set()
            seen.set()

        self.readers = [threading.Thread(target=drain_err, daemon=True),
                        threading.Thread(target=lambda: self.out.extend(
                            self.p.stdout), daemon=True)]
        for r in self.readers:
            r.start()
        seen.wait()

    def finish(self, sig=signal.SIGINT, timeout=30):
        if sig is not None and self.p.poll() is None:
            self.p.send_signal(sig)
        self.p.wait(timeout=timeout)
        for r in self.readers:
            r.join(timeout)
        self.stdout = "".join(self.out)
        self.stderr = "".join(self.err)
        self.rc = self.p.returncode
        self.objs = [json.loads(l) for l in self.stdout.splitlines()
                     if l.startswith("{")]
        return self.objs

    def final(self):
        finals = [o for o in self.objs if o.get("final")]
        return finals[-1] if finals else None


def price_err(lines):
    """The share probetop's prices are known to, from its debug lines
    (PROBETOP_DEBUG's "cost: a hit costs ... prices known to N%"): 0.15,
    or 0.5 where a trap is dear (engine/collect/cost.h); None if it did
    not say."""
    for line in lines:
        m = re.search(r"prices known to (\d+)%", line)
        if m:
            return int(m.group(1)) / 100
    return None


def dear(lines):
    """Whether probetop said its prices are known to more than 15% (a
    machine where a trap is dear: docs/testing.md): there an estimate's
    promise is the guess within its error, not 15%."""
    return (price_err(lines) or 0) > 0.15


def guess_of(row):
    """(estimate, relative error) a row of trace --json's final object
    gives: its estimate and 0.15 ("estimated": within 15%), its bound's
    estimate ("estimate", "error"), or None (a bound without one)."""
    if row.get("lower_bound"):
        if row.get("estimate") is None:
            return None
        return row["estimate"], row["error"]
    return row["total"], 0.15


def agg_of(obj, spec):
    """The aggregation of spec in one trace --json object (or None)."""
    for a in obj["aggs"]:
        if a["spec"] == spec:
            return a
    return None


def rows_by_key(agg, field="count"):
    """{tuple(key): row[field]} of an aggregation."""
    return {tuple(r["key"]): r[field] for r in agg["rows"]}


def fd_infos(pid):
    """The /proc/PID/fdinfo entries of process pid, each as a dict of its
    "key:\tvalue" lines (fds closed meanwhile are left out)."""
    d = "/proc/%d/fdinfo" % pid
    for fd in os.listdir(d):
        try:
            with open(os.path.join(d, fd)) as f:
                yield dict(l.rstrip("\n").split(":\t", 1) for l in f
                           if ":\t" in l)
        except OSError:
            continue


def held_links(pid):
    """The BPF links process pid holds open, from /proc/PID/fdinfo, as
    dicts {id, type, prog_id, path, cnt}: path and cnt (its uprobe count)
    for uprobe_multi links only. Only pid's own links, whatever else
    runs."""
    return [{"id": int(info["link_id"]),
             "type": info.get("link_type"),
             "prog_id": int(info["prog_id"]),
             "path": info.get("path"),
             "cnt": int(info.get("uprobe_cnt", 1))}
            for info in fd_infos(pid) if "link_id" in info]


def held_progs(pid):
    """The names of the BPF programs process pid holds open (its fds:
    /proc/PID/fdinfo's prog_id, named by bpftool prog show)."""
    names = set()
    for info in fd_infos(pid):
        if "prog_id" not in info or "link_id" in info:
            continue
        r = subprocess.run(["bpftool", "prog", "show", "id",
                            info["prog_id"], "--json"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            names.add(json.loads(r.stdout).get("name") or "?")
    return names


def links_left(ids):
    """Those of the BPF link ids that still exist (bpftool link show id N
    succeeds): given the ids a process held, what it left behind once it
    ended. Ids are not reused soon, so no other process's link is
    mistaken for one of them."""
    return {i for i in ids if subprocess.run(
        ["bpftool", "link", "show", "id", str(i)],
        capture_output=True).returncode == 0}


def read_u16(pid, addr):
    """The 16-bit value at addr in pid's memory (a semaphore)."""
    with open("/proc/%d/mem" % pid, "rb") as f:
        f.seek(addr)
        return int.from_bytes(f.read(2), "little")


def load_bias(pid, path):
    """Start of the first mapping of path (offset 0): the load bias of a
    PIE whose first segment is at address 0."""
    real = os.path.realpath(path)
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].strip() == real and \
                    int(parts[2], 16) == 0:
                return int(parts[0].split("-")[0], 16)
    return None


def trace_wait_err(tr, fragment, timeout=60):
    """Wait for a line of tr's stderr containing fragment; that line, or
    None if the output ends (or timeout seconds pass) without one."""
    deadline = time.time() + timeout
    while True:
        done = not tr.readers[0].is_alive()
        for line in list(tr.err):
            if fragment in line:
                return line.strip()
        if done or time.time() > deadline:
            return None
        time.sleep(0.02)


def held_maps(pid):
    """The BPF maps process pid holds open, as bpftool shows them (id,
    name, max_entries, bytes_memlock ...), each once: the ids come from
    /proc/PID/fdinfo, so these are one probetop's own maps whatever other
    instances run (bpftool is only asked to name them)."""
    ids = {int(info["map_id"]) for info in fd_infos(pid)
           if "map_id" in info}
    if not ids:
        return []
    out = subprocess.run(["bpftool", "map", "show", "--json"],
                         capture_output=True, text=True).stdout
    return [m for m in json.loads(out or "[]") if m["id"] in ids]


def own_maps(pid):
    """{name: id} of the BPF maps process pid holds open (held_maps)."""
    return {m["name"]: m["id"] for m in held_maps(pid) if "name" in m}


def _bpf(cmd, attr):
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    r = libc.syscall(321, cmd, ctypes.byref(attr), ctypes.sizeof(attr))
    return r, ctypes.get_errno()


def map_keys(map_id, key_size):
    """Every key (bytes) of BPF hash map map_id, by BPF_MAP_GET_NEXT_KEY
    (the values are not read)."""
    import ctypes

    class IdAttr(ctypes.Structure):
        _fields_ = [("id", ctypes.c_uint32), ("next_id", ctypes.c_uint32),
                    ("open_flags", ctypes.c_uint32)]

    class KeyAttr(ctypes.Structure):
        _fields_ = [("map_fd", ctypes.c_uint32), ("pad", ctypes.c_uint32),
                    ("key", ctypes.c_uint64), ("next_key", ctypes.c_uint64)]

    fd, err = _bpf(14, IdAttr(map_id, 0, 0))  # BPF_MAP_GET_FD_BY_ID
    if fd < 0:
        raise OSError(err, "map %d: %s" % (map_id, os.strerror(err)))
    keys = []
    try:
        cur = ctypes.create_string_buffer(key_size)
        nxt = ctypes.create_string_buffer(key_size)
        prev = 0
        while True:
            a = KeyAttr(fd, 0, prev, ctypes.addressof(nxt))
            r, _ = _bpf(4, a)  # BPF_MAP_GET_NEXT_KEY
            if r < 0:
                break
            keys.append(nxt.raw)
            ctypes.memmove(cur, nxt, key_size)
            prev = ctypes.addressof(cur)
    finally:
        os.close(fd)
    return keys


def dlopen_script(path, lib, then=""):
    """Write a python script at path that says 'ready', dlopen()s lib (as
    `lib`) at its first line of stdin and says 'loaded', then waits for a
    line and runs the python lines `then`."""
    with open(path, "w") as f:
        f.write("import ctypes, sys\n"
                "print('ready', flush=True)\n"
                "sys.stdin.readline()\n"
                "lib = ctypes.CDLL(%r)\n"
                "print('loaded', flush=True)\n"
                "sys.stdin.readline()\n" % lib + then)


def record_uv(b, i):
    """The varint at b[i]: (value, next index)."""
    v = shift = 0
    while True:
        v |= (b[i] & 0x7f) << shift
        shift += 7
        i += 1
        if not b[i - 1] & 0x80:
            return v, i


def record_probe_list(body):
    """A 'P' body (docs/record-format.md) as a sorted list of (object,
    provider, name, args, nargs, semaphore, locations); None if bytes
    follow its last probe."""
    n, i = record_uv(body, 0)
    out = []
    for _ in range(n):
        strs = []
        for _ in range(4):
            ln, i = record_uv(body, i)
            strs.append(body[i:i + ln].decode())
            i += ln
        nargs, i = record_uv(body, i)
        sem = bool(body[i])
        nlocs, i = record_uv(body, i + 1)
        out.append(tuple(strs) + (nargs, sem, nlocs))
    return sorted(out) if i == len(body) else None


def listed_probes(probes):
    """`list --json`'s probes as record_probe_list() gives them."""
    return sorted((p["object"], p["provider"], p["name"], p["args"],
                   len(p["locations"][0]["decoded"]),
                   p["semaphore"] is not None, len(p["locations"]))
                  for p in probes)


def record_frames(path):
    """(offset, type, body) of each whole frame of a recording
    (docs/record-format.md), bodies uncompressed."""
    with open(path, "rb") as f:
        data = f.read()
    out, at = [], 16
    while at + 20 <= len(data):
        clen = struct.unpack_from("<I", data, at + 4)[0]
        if at + 20 + clen > len(data):
            break
        out.append((at, chr(data[at]),
                    zlib.decompress(data[at + 20:at + 20 + clen])))
        at += 20 + clen
    return out
