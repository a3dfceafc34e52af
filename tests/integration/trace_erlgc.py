# SPDX-License-Identifier: MIT
"""An Erlang node's processes, and why it has no GC pane, by function
probes on Debian's OTP 25 (beam.smp without USDT; stripped, its global
functions in .dynsym), by -p under -P erlsample. The node waits, polling
for a file in a process whose heap is too big to fill (it never collects
nor receives), until probetop has attached; then counts itself, in two
nodes (two windows):

- heap: it spawns 40 processes that return, 30 that exit(because) and 20
  it kills (exit(P, kill)), and two that collect, each with a monitor,
  and waits for every 'DOWN': erlsample's processes.spawned
  (erl_create_process) and processes.exited (erts_do_exit_process) count
  exactly that many (92). Its collections, by
  erlang:statistics(garbage_collection) before and after (every minor
  and major collection of every process): every call of the static
  garbage_collect() is in one of four exported functions
  (erts_garbage_collect_nobump, erts_garbage_collect,
  erts_gc_after_bif_call_lhf, erts_garbage_collect_literals), entered
  once per collection and once more for each one moved to a dirty
  scheduler (a collector keeps a 400,000-element list live: its first
  call only schedules it, erts_execute_dirty_system_task calls again):
  entries less dirty tasks equal the node's count exactly, the entries
  alone exceed it;
- bif: a process calls binary_to_term/1 on a 1,000-element list 500
  times; most of its collections follow the BIF (erts_gc_after_bif_call
  _lhf, not erts_garbage_collect_nobump), and the entries exceed the
  count with no dirty task at all: neither one function nor the entries
  less the dirty tasks count the collections, which is why erlsample
  offers no GC pane."""

import os
import tempfile
import time

from tap import Tap, Target, Trace, agg_of, erl_module, need_root

tap = Tap()
need_root(tap)

MODULE = """\
-module(erlgc).
-export([main/1]).
stats() -> {N, _, _} = erlang:statistics(garbage_collection), N.
wait_go(Go) ->
    case prim_file:read_file_info(Go) of
        {ok, _} -> ok;
        _ -> timer:sleep(10), wait_go(Go)
    end.
churn(0, Keep) -> length(Keep);
churn(N, Keep) -> _ = lists:seq(1, 200), churn(N - 1, Keep).
work("heap") ->
    Ret = [spawn_monitor(fun() -> ok end) || _ <- lists:seq(1, 40)],
    Exit = [spawn_monitor(fun() -> exit(because) end)
            || _ <- lists:seq(1, 30)],
    Kill = [spawn_monitor(fun() -> receive never -> ok end end)
            || _ <- lists:seq(1, 20)],
    [exit(P, kill) || {P, _} <- Kill],
    Small = spawn_monitor(fun() -> churn(20000, []) end),
    Big = spawn_monitor(fun() -> churn(20000, lists:seq(1, 400000)) end),
    All = Ret ++ Exit ++ Kill ++ [Small, Big],
    [receive {'DOWN', R, process, P, _} -> ok end || {P, R} <- All],
    length(All);
work("bif") ->
    B = term_to_binary(lists:seq(1, 1000)),
    {P, R} = spawn_monitor(fun() ->
        [length(binary_to_term(B)) || _ <- lists:seq(1, 500)] end),
    receive {'DOWN', R, process, P, _} -> 1 end.
%% the result once the count holds still across writing it
settle(Out, S0, N, Last) ->
    Tmp = Out ++ ".tmp",
    ok = prim_file:write_file(Tmp, io_lib:format("~p.~n", [{S0, Last, N}])),
    case stats() of
        Last -> ok = prim_file:rename(Tmp, Out);
        Now -> settle(Out, S0, N, Now)
    end.
run(Dir, Phase) ->
    wait_go(filename:join(Dir, "go")),
    S0 = stats(),
    N = work(Phase),
    settle(filename:join(Dir, "result"), S0, N, stats()),
    receive never -> ok end.
main([Dir, Phase]) ->
    spawn_opt(fun() -> run(Dir, Phase) end, [{min_heap_size, 1000000}]),
    io:format("ready~n"),
    receive never -> ok end.
"""
SPAWNED = "fn:erl_create_process=count()"
EXITED = "fn:erts_do_exit_process=count()"
ENTRIES = ["fn:erts_garbage_collect_nobump=count()",
           "fn:erts_garbage_collect=count()",
           "fn:erts_gc_after_bif_call_lhf=count()",
           "fn:erts_garbage_collect_literals=count()"]
DIRTY = "fn:erts_execute_dirty_system_task=count()"


def total(fin, spec):
    """spec's count in the final object; None if it has no such spec."""
    a = agg_of(fin, spec)
    return sum(r["total"] for r in a["rows"]) if a else None


def wait_file(path, timeout=60):
    end = time.time() + timeout
    while time.time() < end and not os.path.exists(path):
        time.sleep(0.05)
    return os.path.exists(path)


def window(tmp, phase):
    """Run phase in a new node under trace -p -P erlsample (and the
    collector's entry points): the final trace object and the node's
    (collections before, after, processes) or None."""
    for f in ("go", "result"):
        if os.path.exists(os.path.join(tmp, f)):
            os.unlink(os.path.join(tmp, f))
    t = Target(["erl", "-noshell", "-pa", tmp, "-run", "erlgc", "main",
                tmp, phase])
    args = ["-p", str(t.pid), "-P", "erlsample", "--budget", "off",
            "-i", "60"]
    for s in ENTRIES + [DIRTY]:
        args += ["-e", s]
    tr = Trace(args)
    open(os.path.join(tmp, "go"), "w").close()
    done = wait_file(os.path.join(tmp, "result"))
    tr.finish()
    t.stop()
    if not tap.ok(done, "%s: the node did its work and said its count"
                  % phase, tr.stderr[-2000:]):
        return tr.final(), None
    with open(os.path.join(tmp, "result")) as f:
        return tr.final(), tuple(int(x) for x in
                                 f.read().strip(" {}.\n").split(","))


def check_heap(tmp):
    fin, got = window(tmp, "heap")
    if not got:
        return
    s0, s1, n = got
    tap.eq(total(fin, SPAWNED), n, "erlsample's processes.spawned "
           "(erl_create_process): every process the node spawned (%d)" % n)
    tap.eq(total(fin, EXITED), n, "erlsample's processes.exited "
           "(erts_do_exit_process): every process that ended (returned, "
           "exit/1, killed), as its monitors' 'DOWN' counted (%d)" % n)
    entries = sum(total(fin, s) or 0 for s in ENTRIES)
    dirty = total(fin, DIRTY) or 0
    gcs = s1 - s0
    tap.ok(dirty and gcs > 0, "collections moved to a dirty scheduler "
           "(%s of the node's %d)" % (dirty, gcs), (entries, dirty, gcs))
    tap.eq(entries - dirty, gcs, "heap-full collections: the collector's "
           "entry points less the dirty tasks are the node's own count "
           "exactly (%d entries, %d dirty)" % (entries, dirty))
    tap.ok(entries > gcs, "the entries alone exceed it (%d > %d)"
           % (entries, gcs))


def check_bif(tmp):
    fin, got = window(tmp, "bif")
    if not got:
        return
    s0, s1, _ = got
    entries = sum(total(fin, s) or 0 for s in ENTRIES)
    dirty = total(fin, DIRTY) or 0
    heapfull = total(fin, ENTRIES[0])
    tap.ok(heapfull is not None and heapfull < s1 - s0,
           "erts_garbage_collect_nobump alone sees some of them (%s of %d; "
           "the rest after the BIF, erts_gc_after_bif_call_lhf)"
           % (heapfull, s1 - s0))
    tap.ok(entries - dirty > s1 - s0, "collections after binary_to_term/1 "
           "(a BIF): the entries exceed the node's count even less the "
           "dirty tasks (%d - %d > %d): no spec counts the collections, so "
           "erlsample has no GC pane" % (entries, dirty, s1 - s0))


with tempfile.TemporaryDirectory() as tmp:
    erl_module(tap, tmp, "erlgc", MODULE)
    check_heap(tmp)
    check_bif(tmp)
tap.done()
