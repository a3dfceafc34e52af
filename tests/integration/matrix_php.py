# SPDX-License-Identifier: MIT
"""PHP 8.4 (issue 47), Debian trixie's php8.4-cli, in the root `scripts/
setup --runtimes` builds, run as a container runs it (matrixroot.py).
probetop, on the host, by -p and the host's pid:

- profile:99=count(phpframe) on a loop that does 3 units of work in
  heavy() for 1 in light() (each round's size at random), 10 s:
  heavy()'s share of their samples (some 1,000: 5 points are 3.6
  standard deviations) within 5 points of its share of their time by
  the workload's own clock (hrtime), every sample of the two named
  (function, file as the container sees it, first line);
- profile:99=count(phpline): each function's samples on its own body's
  lines;
- profile:99=count(phpstack): every stack that ends in heavy() or
  light() has its caller, spin(), above it.

Before, 8.4 had no table: "phpframe, phpline and phpstack read PHP 8.0
to 8.3" (its zend_op_array's filename moved to 168)."""

from matrixroot import Container, check_runtime, present
from tap import Tap, need_root

tap = Tap()
need_root(tap)

SCRIPT = """\
<?php
function heavy($n)
{
    $s = 0;
    for ($i = 0; $i < $n; $i++) {
        $s += $i % 7;
    }
    return $s;
}
function light($n)
{
    $s = 0;
    for ($i = 0; $i < $n; $i++) {
        $s += $i % 7;
    }
    return $s;
}
function spin($secs)
{
    $end = hrtime(true) + $secs * 1e9;
    $h = $l = 0;
    while (hrtime(true) < $end) {
        $n = (int)(20000 * (0.5 + mt_rand() / mt_getrandmax()));
        $a = hrtime(true);
        heavy(3 * $n);
        $b = hrtime(true);
        light($n);
        $h += $b - $a;
        $l += hrtime(true) - $b;
    }
    return [$h, $l];
}
echo "ready\\n";
while (($line = fgets(STDIN)) !== false) {
    [$h, $l] = spin((float)explode(" ", trim($line))[1]);
    echo "done $h $l\\n";
}
"""
if not present(tap, "trixie", "/usr/bin/php8.4"):
    tap.done()
check_runtime(tap, Container("trixie", ["php8.4", "-n"], "spin.php", SCRIPT),
              "php", SCRIPT, "function ", "PHP 8.4")
tap.done()
