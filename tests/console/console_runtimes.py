#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The console on each of Debian's runtimes, launched with -- COMMAND in a
real terminal (tmux): Top shows the runtime's frames (or allocations,
for Ruby, whose method probes do not fire), the GC pane its collections,
and the Probes view says why a probe is silent. Python is the --demo test
of console_tmux.py."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                "integration"))
from console_tmux import PROBETOP, SESSION, keys, start, tmux, \
    wait_screen  # noqa: E402
from tap import Tap, need_root  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def quit_ok(tap, what):
    """q ends the console and the command it launched."""
    pid = int(re.search(r"pid (\d+)", wait_screen(r"pid \d+")).group(1))
    keys("q")
    s = wait_screen(r"EXITED \d+")
    tap.ok("EXITED 0" in s and not os.path.exists("/proc/%d" % pid),
           "%s: q quits with status 0 and ends the command" % what, s)


def test_ruby(tap):
    start("%s -- ruby3.1 --disable-gems -e 'class Foo; end; loop { "
          "2000.times { Foo.new }; GC.start; sleep 0.1 }'" % PROBETOP)
    try:
        s = wait_screen(r"object__creat\S* +Foo", 15)
        tap.ok(s.find("Foo") > 0, "ruby: Top shows objects created per "
                                   "class (Foo)", s)
        s = wait_screen(r"gc: \d+(\.\d)?/s", 10)
        tap.ok("pause p50" in s, "ruby: the GC pane shows collections "
                                 "and mark pauses", s)
        keys("2", "/", "ruby:method__entry", "Enter")
        s = wait_screen(r"14582")
        tap.ok("14582" in s, "ruby: Probes says why method__entry is "
                             "silent", s)
        quit_ok(tap, "ruby")
    finally:
        tmux("kill-session", "-t", SESSION)


def test_java(tap, classes):
    start("%s -- java -XX:+DTraceMethodProbes -XX:+UseSerialGC -cp %s "
          "GcWork 100000 slow" % (PROBETOP, classes))
    try:
        s = wait_screen(r"GcWork\.fire", 30)
        tap.ok("Top frames" in s and "GcWork.fire" in s,
               "java -XX:+DTraceMethodProbes: Top shows Java frames "
               "(class.method)", s)
        s = wait_screen(r"full=1 \d+(\.\d)?/s", 10)
        tap.ok("pause p50" in s, "java: the GC pane shows collections "
                                 "and pauses", s)
        quit_ok(tap, "java")
    finally:
        tmux("kill-session", "-t", SESSION)


def test_php(tap, script):
    start("USE_ZEND_DTRACE=1 %s -- php8.2 %s" % (PROBETOP, script))
    try:
        s = wait_screen(r"leaf +loop\.php:2", 15)
        tap.ok("mid" in s and "loop.php:3" in s,
               "php (USE_ZEND_DTRACE=1): Top shows PHP frames", s)
        quit_ok(tap, "php")
    finally:
        tmux("kill-session", "-t", SESSION)
    start("%s -- php8.2 %s" % (PROBETOP, script))
    try:
        keys("2", "/", "function__return", "Enter")
        s = wait_screen(r"started without USE_ZEND_DTRACE=1")
        tap.ok("will not fire: this process was started without "
               "USE_ZEND_DTRACE=1" in s,
               "php without USE_ZEND_DTRACE: Probes says so", s)
        quit_ok(tap, "php")
    finally:
        tmux("kill-session", "-t", SESSION)


def main():
    tap = Tap()
    need_root(tap)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["javac", "-d", tmp,
                        os.path.join(HERE, "..", "integration",
                                     "GcWork.java")], check=True)
        php = os.path.join(tmp, "loop.php")
        with open(php, "w") as f:
            f.write("<?php\n"
                    "function leaf($x) { return $x + 1; }\n"
                    "function mid($n) { $t = 0; for ($i = 0; $i < $n; "
                    "$i++) $t += leaf($i); return $t; }\n"
                    "for (;;) { mid(100); usleep(10000); }\n")
        os.chmod(tmp, 0o755)
        test_ruby(tap)
        test_java(tap, tmp)
        test_php(tap, php)
    tap.done()


if __name__ == "__main__":
    main()
