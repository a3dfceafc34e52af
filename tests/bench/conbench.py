# SPDX-License-Identifier: MIT
"""What the console benches (tests/bench/trace.sh's 100,000 keys,
tests/bench/soak.sh) measure of a console running in tmux, from outside:

- frames: the work the console does between two reads of its keyboard,
  from one return of its main loop's poll() (the one on 4 fds) to the
  next call, timed by bpftrace on libc's poll() in that process alone:
  a step of an interval's read of the maps, or the end of a read (the
  snapshot, the views' tick) with the redraw, or a key's work and redraw;
- key response: from tmux send-keys to the pane showing what the key
  asked for (polled with capture-pane every few ms);
- RSS, from /proc."""

import os
import random
import subprocess
import threading
import time

FRAMES_BT = r"""
uprobe:%(libc)s:poll /pid == %(pid)d && arg1 == 4/ {
	if (@out[tid]) { printf("%%d\n", (nsecs - @out[tid]) / 1000); }
	@in[tid] = 1;
}
uretprobe:%(libc)s:poll /pid == %(pid)d && @in[tid]/ {
	@out[tid] = nsecs; delete(@in[tid]);
}
END { clear(@out); clear(@in); }
"""


def cpu_s(pid):
    """pid's CPU time so far in seconds, user and system, of its threads
    alive now: the scheduler's (/proc/PID/task/TID/sched, to the
    microsecond) where the kernel keeps it, else the clock ticks of
    /proc/PID/stat (10 ms)."""
    total = 0.0
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/sched" % (pid, tid)) as f:
                for line in f:
                    if line.startswith("se.sum_exec_runtime"):
                        total += float(line.split(":")[1]) / 1000.0
        return total
    except OSError:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / \
            os.sysconf("SC_CLK_TCK")


def tmux(*args):
    return subprocess.run(["tmux"] + list(args), capture_output=True,
                          text=True, check=False)


class Console:
    """probetop's console in a detached w x h tmux session."""

    def __init__(self, cmd, w=120, h=40):
        self.session = "probetop-bench-%d" % os.getpid()
        tmux("kill-session", "-t", self.session)
        r = tmux("new-session", "-d", "-s", self.session, "-x", str(w),
                 "-y", str(h), "exec " + cmd)
        assert r.returncode == 0, r.stderr
        self.pid = int(tmux("list-panes", "-t", self.session, "-F",
                            "#{pane_pid}").stdout.split()[0])
        for _ in range(100):  # until the shell has exec'd probetop
            with open("/proc/%d/cmdline" % self.pid) as f:
                if "probetop" in f.read():
                    break
            time.sleep(0.05)

    def screen(self):
        return tmux("capture-pane", "-p", "-t", self.session).stdout

    def wait_for(self, text, timeout=20):
        """Whether the pane showed text within timeout seconds."""
        end = time.time() + timeout
        while time.time() < end:
            if text in self.screen():
                return True
            time.sleep(0.1)
        return False

    def send(self, key):
        tmux("send-keys", "-t", self.session, key)

    def rss_mb(self):
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    def cpu_s(self):
        return cpu_s(self.pid)

    def close(self):
        tmux("kill-session", "-t", self.session)


class Frames:
    """bpftrace timing the console's frames (see above), in ms."""

    def __init__(self, pid):
        libc = None
        for _ in range(100):  # until the loader has mapped it
            with open("/proc/%d/maps" % pid) as f:
                libc = next((line.split()[-1] for line in f
                             if line.rstrip().endswith("/libc.so.6")), None)
            if libc:
                break
            time.sleep(0.02)
        self.ms = []
        self.p = subprocess.Popen(
            ["bpftrace", "-p", str(pid), "-e",
             FRAMES_BT % {"libc": libc, "pid": pid}],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.p.stdout.readline().startswith("Attaching")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            if line.strip().isdigit():
                self.ms.append(int(line) / 1000.0)

    def take(self):
        """The frames so far, and start again."""
        ms, self.ms = self.ms, []
        return ms

    def stop(self):
        self.p.terminate()
        self.p.wait()


def percentile(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p / 100.0))] if v else 0.0


def summary(ms):
    """'p50 A ms, p99 B ms, max C ms (N)' of a list of times in ms."""
    return "p50 %.1f ms, p99 %.1f ms, max %.1f ms (%d)" % (
        percentile(ms, 50), percentile(ms, 99), max(ms or [0]), len(ms))


def line2(screen):
    lines = screen.split("\n")
    return lines[2] if len(lines) > 2 else ""


# Keys and how the pane shows that they were done: 3 (Top, one box on
# its third line), 1 (the Dashboard: Top's and GC's boxes side by side),
# s in Top (the sort column named in the box's border: total, avg, name,
# then calls/s again).
KEYS = [("3", lambda s: "Top" in line2(s) and "\u2510\u250c" not in line2(s)),
        ("s", lambda s: "total \u25bc" in line2(s)),
        ("s", lambda s: "avg \u25bc" in line2(s)),
        ("s", lambda s: "name \u25bc" in line2(s)),
        ("s", lambda s: "calls/s \u25bc" in line2(s)),
        ("1", lambda s: "\u2510\u250c" in line2(s))]


def key_response(con, rounds, timeout=5.0):
    """Ms from send-keys to the screen showing each key of KEYS done,
    rounds times over, at random moments of the console's intervals;
    a key not done within timeout counts as timeout."""
    ms = []
    rng = random.Random(32)
    for _ in range(rounds):
        for key, done in KEYS:
            time.sleep(rng.uniform(0.1, 0.6))
            t0 = time.time()
            con.send(key)
            while not done(con.screen()) and time.time() - t0 < timeout:
                time.sleep(0.003)
            ms.append((time.time() - t0) * 1000.0)
    return ms
