# SPDX-License-Identifier: MIT
"""An Erlang node without probes (Debian's OTP 25: beam.smp has no USDT
probes) by CPU samples, by -p, its module compiled here with erlc:

- started with +JPperf true (the BEAM's JIT then writes a perf map and
  keeps frame pointers): profile:99=count(jitframe) in a loop that does
  3 units of work in heavy/1 for 1 in light/1 shows heavy/1 at 75% +- 7
  points of the two (the issue's goal), its Erlang functions named as
  the BEAM names them ($work:heavy/1, a function's CodeInfoPrologue
  line in its row), some 99 samples a CPU second (within 35%: the
  machine may be shared); =count(ustack): the Erlang frames in the
  native stack named, every heavy/1 under loop/0, no Erlang frame an
  address (spin/1, between them, is missing from most: heavy/1 makes no
  frame of its own, and a walk by frame pointers then steps from heavy/1
  to spin/1's caller);
- erlang:localtime() called 123 times from one function and 45 from
  another: libc's localtime_r counted exactly 168 times (a function
  probe in a BEAM process);
- picked by itself: trace -p PID with no -e or -P attaches the erlsample
  probeset (detected by beam.smp's erts_atom_table);
- started plainly (no perf map, no flag): the same split over 6 s of
  samples (some 600), named by the BEAM's own JIT tables (its GDB JIT
  list, read from its memory) as the BEAM names them (work:heavy/1, no
  "$"), at least 90% of sampled frames named, ustack's Erlang frames
  named, and no hint about +JPperf."""

import tempfile

from tap import Tap, Target, Trace, agg_of, cpu_s, erl_module, need_root

tap = Tap()
need_root(tap)

MODULE = """\
-module(work).
-export([main/0]).
heavy(0) -> ok; heavy(N) -> heavy(N - 1).
light(0) -> ok; light(N) -> light(N - 1).
spin(Until) ->
    heavy(300000), light(100000),
    case erlang:monotonic_time(millisecond) < Until of
        true -> spin(Until);
        false -> ok
    end.
caller_a(0) -> ok; caller_a(N) -> erlang:localtime(), caller_a(N - 1).
caller_b(0) -> ok; caller_b(N) -> erlang:localtime(), caller_b(N - 1).
run(["spin", S]) ->
    spin(erlang:monotonic_time(millisecond) + list_to_integer(S) * 1000);
run(["time", A, B]) ->
    caller_a(list_to_integer(A)), caller_b(list_to_integer(B)).
main() -> io:format("ready~n"), loop().
loop() ->
    case io:get_line("") of
        eof -> halt(0);
        Line ->
            run(string:tokens(string:trim(Line), " ")),
            io:format("done~n"),
            loop()
    end.
"""
FRAME = "profile:99=count(jitframe)"
STACK = "profile:99=count(ustack)"
LOCALTIME = "fn:libc.so.6:localtime_r=count()"
HINT = "writes no perf map"


def erl(tmp, *flags):
    """A node running work:main/0, its stdin and stdout ours."""
    return Target(["erl"] + list(flags) +
                  ["-noshell", "-pa", tmp, "-s", "work", "main"])


def of(rows, fn):
    """Samples of Erlang function fn in jitframe rows (its prologue's
    line taken as the function)."""
    return rows.get("$work:%s" % fn, 0)


def check_named(tmp):
    t = erl(tmp, "+JPperf", "true")
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", FRAME, "-e", STACK,
                "-e", LOCALTIME])
    tap.eq(t.send("time 123 45").strip(), "done", "localtime ran")
    was = cpu_s(t.pid)
    tap.eq(t.send("spin 6").strip(), "done", "spin ran")
    spent = cpu_s(t.pid) - was
    tr.finish()
    t.stop()
    fin = tr.final()
    frames = {r["key"][0]: r["total"] for r in agg_of(fin, FRAME)["rows"]}
    hv, lt = of(frames, "heavy/1"), of(frames, "light/1")
    tap.ok(lt and 0.68 <= hv / (hv + lt) <= 0.82,
           "heavy/1 at 75%% +- 7 points of heavy and light (%d:%d)"
           % (hv, lt), frames)
    total = sum(frames.values())
    tap.ok(spent > 1 and 0.65 <= total / (99 * spent) <= 1.35,
           "99 samples a CPU second (%.2f s: %d)" % (spent, total), frames)
    stacks = [(r["key"][0], r["total"]) for r in agg_of(fin, STACK)["rows"]]
    in_heavy = [(k, v) for k, v in stacks if k[-1] == "$work:heavy/1"]
    looped = sum(v for k, v in in_heavy if "$work:loop/0" in k)
    tap.ok(in_heavy and looped == sum(v for _, v in in_heavy),
           "ustack: the Erlang frames named, every heavy/1 under loop/0 "
           "(%d)" % looped, stacks[:5])
    unnamed = [k for k, _ in stacks if any(f.startswith("$work") for f in k)
               and any(f.startswith("0x") for f in k)]
    tap.eq(unnamed, [], "no stack through Erlang code has a frame left an "
           "address")
    tap.eq(sum(r["total"] for r in agg_of(fin, LOCALTIME)["rows"]), 168,
           "localtime_r counted exactly: 123 + 45 calls")
    tap.ok(HINT not in tr.stderr, "a node with a perf map: no hint",
           tr.stderr)


def check_detected(tmp):
    t = erl(tmp, "+JPperf", "true")
    tr = Trace(["-p", str(t.pid), "-i", "60"])
    tap.eq(t.send("spin 1").strip(), "done", "detected: spin ran")
    tr.finish()
    t.stop()
    a = agg_of(tr.final(), FRAME)
    rows = {r["key"][0]: r["total"] for r in a["rows"]} if a else {}
    tap.ok(of(rows, "heavy/1") > 0,
           "trace -p alone: erlsample picked, its frames named", rows)


def unnamed(frame):
    """Whether a frame's name is an address (0x..., beam.smp+0x...)."""
    return frame.startswith("0x") or "+0x" in frame


def check_plain(tmp):
    t = erl(tmp)
    tr = Trace(["-p", str(t.pid), "-i", "60", "-e", FRAME, "-e", STACK])
    tap.eq(t.send("spin 6").strip(), "done", "plain: spin ran")
    tr.finish()
    t.stop()
    fin = tr.final()
    frames = {r["key"][0]: r["total"] for r in agg_of(fin, FRAME)["rows"]}
    hv, lt = frames.get("work:heavy/1", 0), frames.get("work:light/1", 0)
    tap.ok(lt and hv + lt >= 300 and 0.67 <= hv / (hv + lt) <= 0.83,
           "plain: named by the BEAM's JIT tables, heavy/1 at 75%% +- 8 "
           "points of heavy and light (%d:%d)" % (hv, lt), frames)
    total = sum(frames.values())
    named = sum(v for k, v in frames.items() if not unnamed(k))
    tap.ok(total and named >= 0.9 * total,
           "plain: at least 90%% of sampled frames named (%d of %d)"
           % (named, total), frames)
    stacks = [(r["key"][0], r["total"]) for r in agg_of(fin, STACK)["rows"]]
    erl_stacks = [k for k, _ in stacks if any(f.startswith("work:")
                                              for f in k)]
    tap.ok(erl_stacks and not [k for k in erl_stacks
                               if any(unnamed(f) for f in k)],
           "plain: ustack's Erlang frames named, no frame of a stack "
           "through them an address", stacks[:5])
    tap.ok(HINT not in tr.stderr, "plain: its frames named, no hint",
           tr.stderr)


with tempfile.TemporaryDirectory() as tmp:
    erl_module(tap, tmp, "work", MODULE)
    check_named(tmp)
    check_detected(tmp)
    check_plain(tmp)
tap.done()
