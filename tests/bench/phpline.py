# SPDX-License-Identifier: MIT
"""Driver of tests/bench/phpline.sh (see there). argv[1]: the build dir."""

import os
import subprocess
import sys

BUILD = sys.argv[1]
PROBETOP = os.path.join(BUILD, "ui/probetop")
PHP = "/usr/bin/php8.2"
N = 200000
ROUNDS = 5
SPECS = [None, "fn:libc.so.6:write=count(arg0)",
         "fn:libc.so.6:write=count(phpframe)",
         "fn:libc.so.6:write=count(phpline)"]

# "calls N": N fwrite()s to /dev/null 12 frames deep; prints the seconds
# they took.
WORKLOAD = """\
<?php
$null = fopen("/dev/null", "w");
function leaf($f, $n)
{
    for ($i = 0; $i < $n; $i++)
        fwrite($f, "x");
}
function deep($d, $f, $n)
{
    $d > 0 ? deep($d - 1, $f, $n) : leaf($f, $n);
}
echo "ready\\n";
while (($line = fgets(STDIN)) !== false) {
    $t = hrtime(true);
    deep(10, $null, (int)explode(" ", trim($line))[1]);
    echo (hrtime(true) - $t) / 1e9, "\\n";
}
"""


def timed(script, spec):
    """The best of two runs of N calls, in seconds, under spec (a probetop
    trace attached first; None: bare)."""
    php = subprocess.Popen([PHP, "-n", script], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True)
    assert php.stdout.readline().strip() == "ready"
    tr = None
    if spec:
        tr = subprocess.Popen([PROBETOP, "trace", "-p", str(php.pid), "-i",
                               "60", "--budget", "off", "-e", spec],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        while "attached" not in tr.stderr.readline():
            pass
    best = None
    for _ in range(2):
        php.stdin.write("calls %d\n" % N)
        php.stdin.flush()
        s = float(php.stdout.readline())
        best = s if best is None else min(best, s)
    if tr:
        tr.terminate()
        tr.communicate(timeout=60)
    php.kill()
    php.wait()
    return best


def main():
    script = "/tmp/probetop-bench-phpline.php"
    with open(script, "w") as f:
        f.write(WORKLOAD)
    best = {}
    for _ in range(ROUNDS):
        for spec in SPECS:
            s = timed(script, spec)
            best[spec] = min(best.get(spec, s), s)
    bare = best.pop(None)
    cost = {k: (v - bare) / N * 1e9 for k, v in best.items()}
    num = cost[SPECS[1]]
    print("per event on fn:libc.so.6:write (Debian's php8.2, %d fwrite()s "
          "12 frames deep, best of %d; bare %.0f ns a call):" %
          (N, ROUNDS, bare / N * 1e9))
    for spec, ns in cost.items():
        print("  %-40s %6.0f ns  %.2fx the numeric key" %
              (spec, ns, ns / num))
    line = cost[SPECS[3]] / num
    print("goal: phpline under 2x a numeric key: %.2fx %s" %
          (line, "met" if line < 2 else "NOT met"))


main()
