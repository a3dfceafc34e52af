<?php
// SPDX-License-Identifier: MIT
// The truth harness's PHP workload (trace_truth.py, -P php, run with
// USE_ZEND_DTRACE=1): the service-like loop of work311.py. "ready PID",
// then after a line on stdin, N times: 500 calls of a one-line function,
// a loop of 2,000, a loop of 20,000 every 20th, an exception thrown and
// caught every 100th, 2 ms asleep (usleep). Then its counts as JSON and,
// after another line, exit. Only user functions fire function__return;
// the internal ones it calls (fgets, usleep, json_encode) do not.
function one($x) { return $x + 1; }
function loop2k($n) {
    $t = 0;
    for ($i = 0; $i < $n; $i++) $t += $i;
    return $t;
}
function loop20k($n) {
    $t = 0;
    for ($i = 0; $i < $n; $i++) $t += $i;
    return $t;
}
function run($n) {
    $c = ['one' => 0, 'loop2k' => 0, 'loop20k' => 0, 'thrown' => 0];
    for ($it = 0; $it < $n; $it++) {
        for ($i = 0; $i < 500; $i++) {
            one($i);
            $c['one']++;
        }
        loop2k(2000);
        $c['loop2k']++;
        if ($it % 20 == 19) {
            loop20k(20000);
            $c['loop20k']++;
        }
        if ($it % 100 == 99) {
            try { throw new RuntimeException('x'); } catch (Exception $e) { $c['thrown']++; }
        }
        usleep(2000);
    }
    return $c;
}
echo "ready " . getmypid() . "\n";
fgets(STDIN);
$t0 = hrtime(true);
$c = run((int)$argv[1]);
$c['run'] = 1;
$c['elapsed_s'] = (hrtime(true) - $t0) / 1e9;
echo json_encode($c) . "\n";
fgets(STDIN);
exit(0);
