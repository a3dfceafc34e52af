# SPDX-License-Identifier: MIT
"""The postgresql probeset on Debian's PostgreSQL 15, with a server of
its own (pgcluster.py: initdb in a temporary directory, a Unix socket
only, removed after, also when a check fails): `trace -b postgres -P
postgresql` follows every backend, one that was there before it attached
and the ones pgbench starts after: `pgbench -S -M simple -c 2 -t 250`
gives exactly 500 queries `SELECT abalance FROM pgbench_accounts WHERE
aid = N` over the two client backends (250 each), each with its commits,
and the buffer reads of pgbench_accounts and its index, found or read,
exactly as PostgreSQL's own statistics (pg_statio) count them,
its PID and its role in COMMAND; an error is one abort; CHECKPOINT is one
checkpoint with the flags of a requested one and the buffers the server's
own log says it wrote; a SELECT that waits for a table's lock is one
wait of mode AccessShare on a relation, as long as the lock was held.
`-p` on one backend counts its queries alone, by shape (literals $1,
$2 ...), a shape over 63 bytes cut there with "...". Under pgbench's
TPC-B-like script (simple protocol), every statement's shape is counted
exactly as often as pg_stat_statements' own `calls` for it, and the
UPDATE with its literals is one row however many values it had; the
texts as sent stay reachable with str(arg0). The probeset's Top is one
row a statement over every backend (allpids). Under the default budget
with every role attached, 8 clients: each statement's calls within 15%
of pg_stat_statements', estimates (Top's role is spent on first). A
missing postgres, and a
server that has stopped, are one-line errors."""

import os
import time

from pgcluster import BIN, POSTGRES, USER, Cluster, need_postgres
from tap import Tap, Trace, agg_of, guess_of, need_root, price_err, run

tap = Tap()
need_root(tap)
need_postgres(tap)

# sql() keeps a statement as pg_stat_statements does: no ';' after it
PGBENCH_QUERY = "SELECT abalance FROM pgbench_accounts WHERE aid = $1"
PRESENT_QUERY = "SELECT 'from a backend that was there before' AS present;"
PRESENT_SHAPE = "SELECT $1 AS present"
CALLS = "postgresql:query__done=count(sql(arg0))"
LATENCY = "postgresql:query__start..postgresql:query__done=latency(sql(arg0))"
# the probeset's: one row a statement over every backend, every
# protocol's, each counted once where PortalRun runs it
TOP_CALLS = ("postgresql:query__execute__done@PortalRun="
             "count(sql(`debug_query_string), allpids)")
TOP_LATENCY = ("postgresql:query__execute__start@PortalRun.."
               "postgresql:query__execute__done@PortalRun="
               "latency(sql(`debug_query_string), allpids)")
# ... and a simple query's whole time, parse to commit ([phases])
STATEMENT = ("postgresql:query__start..postgresql:query__done="
             "latency(sql(arg0), allpids)")
RAW = "postgresql:query__done=count(str(arg0))"
STATEMENTS = ("SELECT calls, mean_exec_time, query FROM pg_stat_statements "
              "WHERE calls > 1;")
COMMITS = "postgresql:transaction__commit=count()"
ABORTS = "postgresql:transaction__abort=count()"
CKPT = ("postgresql:checkpoint__start..postgresql:checkpoint__done="
        "latency(arg0)")
CKPT_WRITTEN = "postgresql:checkpoint__done=sum(arg0)"
LOCK_WAIT = ("postgresql:lock__wait__start..postgresql:lock__wait__done="
             "latency(arg5,arg4)")
DEADLOCKS = "postgresql:deadlock__found=count()"
LOCK_HELD_S = 0.3
WAL = "postgresql:wal__insert=count(arg0)"
BUFFER_READS = ("postgresql:buffer__read__done="
                "count(arg3,arg4,arg7, allpids)")
# pgbench_accounts' heap and index: blocks read and found in
# shared_buffers, by PostgreSQL's own statistics (cumulative)
STATIO = ("SELECT c.relfilenode, s.heap_blks_read, s.heap_blks_hit "
          "FROM pg_class c JOIN pg_statio_all_tables s ON s.relid = c.oid "
          "WHERE c.relname = 'pgbench_accounts' UNION ALL "
          "SELECT c.relfilenode, s.idx_blks_read, s.idx_blks_hit "
          "FROM pg_class c JOIN pg_statio_all_indexes s "
          "ON s.indexrelid = c.oid "
          "WHERE c.relname = 'pgbench_accounts_pkey';")
RM_XLOG_ID = 0  # the resource manager of a checkpoint's WAL record
# CHECKPOINT asks for CHECKPOINT_IMMEDIATE | CHECKPOINT_FORCE |
# CHECKPOINT_WAIT, and the checkpointer adds CHECKPOINT_REQUESTED
# (access/xlog.h: 0x4 | 0x8 | 0x20 | 0x40)
CKPT_FLAGS = 0x4 | 0x8 | 0x20 | 0x40


def rows(final, spec):
    """The rows of spec in the final summary ([] if absent)."""
    a = agg_of(final, spec)
    return a["rows"] if a else []


def by_pid(final, spec, field="total"):
    """{pid: field summed over the rows of spec}."""
    out = {}
    for r in rows(final, spec):
        out[r["pid"]] = out.get(r["pid"], 0) + r[field]
    return out


def statio(pg):
    """{(database oid, relfilenode, found): blocks} of pgbench_accounts
    and its primary key, from pg_statio (cumulative)."""
    db = int(pg.psql("SELECT oid FROM pg_database WHERE datname = "
                     "current_database();", tuples=True).stdout)
    out = {}
    for line in pg.psql(STATIO, tuples=True).stdout.split():
        rel, read, hit = (int(x) for x in line.split("|"))
        out[(db, rel, 0)] = read
        out[(db, rel, 1)] = hit
    return out


def traced_workload(pg):
    """trace -b postgres -P postgresql around: a query from a backend
    that was there before attach, pgbench's run, an error, CHECKPOINT.
    Returns (final summary, trace, the pre-existing backend's pid, the
    server log's line on the checkpoint, the checkpointer's pid)."""
    present = pg.session()
    present_pid = int(present.query("SELECT pg_backend_pid();"))
    pg.psql("CREATE TABLE locked (x int);")
    locker, waiter = pg.session(), pg.session()
    waiter_pid = int(waiter.query("SELECT pg_backend_pid();"))
    # --budget off: the checks are exact counts, and pgbench runs as fast
    # as the server answers. Here the specs cost about 1% of a CPU, under
    # the default budget of 5%, but the cost is measured, and on a loaded
    # machine a sampled spec would print estimates instead of counts.
    before = statio(pg)
    tr = Trace(["-b", POSTGRES, "-P", "postgresql", "--budget", "off",
                "-i", "60", "-e", CALLS, "-e", LATENCY])
    try:
        present.query(PRESENT_QUERY)
        # a lock wait of a known mode and length: the waiter's SELECT
        # (AccessShareLock, 1) waits for the locker's AccessExclusiveLock
        # on the relation (LOCKTAG_RELATION, 0) until it commits
        locker.send("BEGIN;")
        locker.send("LOCK TABLE locked IN ACCESS EXCLUSIVE MODE;")
        tap.eq(locker.query("SELECT 'locked';"), "locked", "table locked")
        waiter.send("SELECT count(*) FROM locked;")
        time.sleep(LOCK_HELD_S)
        locker.send("COMMIT;")
        tap.eq(waiter.read(), "0",
               "the waiter's SELECT ran once the lock was released")
        bench = pg.run([BIN + "/pgbench", "-S", "-M", "simple", "-c", "2",
                        "-t", "250", pg.db])
        tap.eq(bench.returncode, 0, "pgbench -S -M simple -c 2 -t 250 ran",
               bench.stderr)
        present.send("SELECT 1/0;")
        tap.eq(present.query("SELECT 'after the error';"), "after the error",
               "SELECT 1/0 failed, and the session went on")
        since = pg.log_size()
        pg.psql("CHECKPOINT;")
        logged = pg.wait_log("checkpoint complete: wrote ", since)
        checkpointer = pg.backend_pid("checkpointer")
    finally:
        for sess in (present, locker, waiter):
            sess.close()
        tr.finish()
    after = statio(pg)
    return (tr.final(), tr, present_pid, logged, checkpointer,
            waiter_pid, {k: after[k] - before.get(k, 0) for k in after})


def check_queries(final, tr):
    q = [r for r in rows(final, CALLS) if r["key"][0] == PGBENCH_QUERY]
    per_pid = {}
    for r in q:
        per_pid[r["pid"]] = per_pid.get(r["pid"], 0) + r["total"]
    tap.eq(sum(r["total"] for r in q), 500,
           "pgbench's SELECT counted exactly 500 times across backends",
           tr.stderr[-2000:])
    tap.eq(sorted(per_pid.values()), [250, 250],
           "by two client backends, 250 each (one per pgbench client)")
    tap.eq(len(q), 2, "one row a backend: the query's shape, aid as $1",
           [r["key"] for r in rows(final, CALLS)][:10])
    lat = [r for r in rows(final, LATENCY) if r["key"][0] == PGBENCH_QUERY]
    tap.eq(sum(r["total"] for r in lat), 500,
           "and its latency from query__start to query__done 500 times")
    tap.ok(all(r["command"].startswith("postgres: %s %s [local]" %
                                       (USER, Cluster.db)) for r in q),
           "COMMAND is the backend's role: postgres: USER DB [local] ...",
           sorted({r["command"] for r in q}))
    top = [(r["pid"], r["total"]) for r in rows(final, TOP_CALLS)
           if r["key"][0] == PGBENCH_QUERY]
    top_lat = [(r["pid"], r["total"]) for r in rows(final, TOP_LATENCY)
               if r["key"][0] == PGBENCH_QUERY]
    tap.eq((top, top_lat), ([(None, 500)], [(None, 500)]),
           "the probeset's Top: one row for the statement over every "
           "backend (allpids, pid null), 500 calls and 500 latencies")
    return per_pid


def check_transactions(final, per_pid, present_pid):
    commits = by_pid(final, COMMITS)
    # a backend commits once as it starts (InitPostgres reads the catalogs
    # in a transaction of its own), then once per query: pgbench's -S
    # script is one SELECT per transaction
    tap.eq({p: commits.get(p) for p in per_pid},
           {p: n + 1 for p, n in per_pid.items()},
           "commits of each client backend: its 250 queries and its start")
    tap.eq([(r["pid"], r["total"]) for r in rows(final, CALLS)
            if r["key"] == [PRESENT_SHAPE]], [(present_pid, 1)],
           "a backend that was there before attach: its query in Top")
    tap.eq(commits.get(present_pid), 2,
           "and its commits: that query's and the one after SELECT 1/0",
           commits)
    aborts = by_pid(final, ABORTS)
    tap.eq({p: aborts.get(p, 0) for p in list(per_pid) + [present_pid]},
           dict([(p, 0) for p in per_pid] + [(present_pid, 1)]),
           "SELECT 1/0 is the one abort, in its backend")


def check_io(final, stats):
    """The [io] section's buffer reads of pgbench's table and index
    against PostgreSQL's own count of the same reads."""
    got = {}
    for r in rows(final, BUFFER_READS):
        k = tuple(r["key"])
        if k in stats:
            got[k] = got.get(k, 0) + r["total"]
    tap.eq({k: got.get(k, 0) for k in stats}, stats,
           "buffer reads of pgbench_accounts and its index by (database, "
           "relfilenode, found): exactly pg_statio's blocks read and hit",
           rows(final, BUFFER_READS)[:10])
    tap.ok(sum(stats.values()) >= 500, "pgbench read at least one block a "
           "query", stats)


def check_checkpoint(final, logged, checkpointer):
    # the server's own checkpointer: another server on the machine (such
    # as Debian's 15/main, if it runs) has checkpoints of its own
    ck = [r for r in rows(final, CKPT) if r["pid"] == checkpointer]
    tap.eq([(r["key"], r["total"]) for r in ck], [([CKPT_FLAGS], 1)],
           "CHECKPOINT: one checkpoint, flags immediate|force|wait|requested")
    tap.ok(ck and ck[0]["command"] == "postgres: checkpointer ",
           "in the checkpointer", ck)
    written = int(logged.split("wrote ")[1].split()[0]) if logged else None
    tap.eq(sum(r["sum_total"] for r in rows(final, CKPT_WRITTEN)
               if r["pid"] == checkpointer), written,
           "buffers it wrote: as many as the server's log says", logged)
    tap.eq([r["total"] for r in rows(final, WAL)
            if r["pid"] == checkpointer and r["key"] == [RM_XLOG_ID]], [1],
           "its WAL: one record of the XLOG resource manager (the "
           "checkpoint record)")


LONG_QUERY = ("SELECT relname, relnamespace, reltype, relowner FROM pg_class "
              "WHERE relkind = 'r' AND relname = 'pg_class' AND "
              "reltuples > 5;")
LONG_SHAPE = ("SELECT relname, relnamespace, reltype, relowner FROM pg_class "
              "WHERE relkind = $1 AND relname = $2 AND reltuples > $3;")


def check_locks(final, waiter_pid):
    w = [r for r in rows(final, LOCK_WAIT) if r["pid"] == waiter_pid]
    tap.eq([(r["key"], r["total"]) for r in w], [([1, 0], 1)],
           "one lock wait in the waiter: mode 1 (AccessShare), locktag "
           "type 0 (relation)")
    tap.ok(w and w[0]["min"] >= LOCK_HELD_S * 1e9,
           "it lasted as long as the lock was held, at least", w)
    tap.eq(rows(final, DEADLOCKS), [], "no deadlock")


def check_one_backend(pg):
    """-p PID: that backend alone, by shape; a shape over 63 bytes is its
    first 63 and "..." (trace_out's JSON: inert, and the same in text)."""
    one, other = pg.session(), pg.session()
    try:
        pid = int(one.query("SELECT pg_backend_pid();"))
        tr = Trace(["-p", str(pid), "-P", "postgresql", "--budget", "off",
                    "-i", "60"])
        try:
            for i in range(5):
                one.query("SELECT %d;" % i)
            other.query("SELECT 'another backend';")
            one.query(LONG_QUERY)
        finally:
            tr.finish()
    finally:
        one.close()
        other.close()
    final = tr.final()
    got = {tuple(r["key"]): r["total"] for r in rows(final, TOP_CALLS)}
    want = {("SELECT $1",): 5, (LONG_SHAPE[:63] + "...",): 1}
    tap.eq(got, want, "-p one backend: its queries alone, by shape (five "
                      "SELECT N one row); a shape over 63 bytes cut there, "
                      "then '...'", tr.stderr)
    tap.eq(sum(r["total"] for r in rows(final, COMMITS)), 6,
           "-p one backend: its six commits")


def check_failed_statements(pg):
    """A backend whose statements fail leaves their starts without ends
    (query__start, no query__done): 40 of them, then 50 that complete.
    The latency pair keeps a thread's newest 32 starts, so the 50 are
    timed, every one, and the failed ones lost past 32 are counted as
    depth drops (9: 8 as they were pushed, 1 to make room), where every
    later pair was dropped once 32 were under way."""
    s = pg.session()
    pid = int(s.query("SELECT pg_backend_pid();"))
    tr = Trace(["-p", str(pid), "--budget", "off", "-i", "60", "-e",
                LATENCY])
    try:
        for _ in range(40):
            s.send("SELECT 1/0;")
        for i in range(50):
            tap.eq(s.query("SELECT %d;" % i), str(i), "SELECT %d" % i) \
                if i == 49 else s.query("SELECT %d;" % i)
    finally:
        tr.finish()
        s.close()
    final = tr.final()
    a = agg_of(final, LATENCY) if final else None
    got = {r["key"][0]: r["total"] for r in a["rows"]} if a else None
    tap.eq((got, a and a["drops_by"]["depth"]), ({"SELECT $1": 50}, 9),
           "40 failed statements, then 50: each of the 50 timed, 9 starts "
           "lost (depth)", tr.stderr[-2000:])


def check_attach_under_load(pg):
    """-b attached to backends already under pgbench -M prepared: every
    statement's latency pairs from then on, no start lost. A pair's ends
    are attached before its starts, so no start begins with its end not
    there to come (ends without their starts, of statements under way,
    are counted as unmatched)."""
    bench = pg.run_async([BIN + "/pgbench", "-M", "prepared", "-c", "2",
                          "-j", "1", "-T", "8", pg.db])
    try:
        time.sleep(2)
        tr = Trace(["-b", POSTGRES, "--budget", "off", "-i", "60", "-e",
                    TOP_LATENCY])
        time.sleep(3)
        tr.finish()
    finally:
        bench.communicate(timeout=60)
    final = tr.final()
    a = agg_of(final, TOP_LATENCY) if final else None
    got = sorted(r["key"][0].split()[0] for r in a["rows"]
                 if r["total"] > 100) if a else None
    tap.eq((got, a and a["drops_by"]["depth"]),
           (sorted(["BEGIN", "END", "INSERT", "SELECT", "UPDATE", "UPDATE",
                    "UPDATE"]), 0),
           "attached under load: the 7 statements timed, no start lost",
           tr.stderr[-2000:])


def traced_pgbench(pg, args, bench_args, what, mode="simple"):
    """pgbench -M mode (TPC-B) with bench_args, traced by `trace -b
    postgres` with args, pg_stat_statements reset before: (the final
    summary, or None said; pg_stat_statements' rows as pgss() reads them;
    the share probetop's prices are known to, tap.price_err())."""
    pg.psql("SELECT pg_stat_statements_reset();")
    tr = Trace(["-b", POSTGRES, "-i", "60"] + args,
               env=dict(os.environ, PROBETOP_DEBUG="1"))
    try:
        bench = pg.run([BIN + "/pgbench", "-M", mode] + bench_args +
                       [pg.db])
        tap.eq(bench.returncode, 0, "%s: pgbench -M %s %s (TPC-B)"
               % (what, mode, " ".join(bench_args)), bench.stderr)
        stats = pgss(pg.psql(STATEMENTS, tuples=True).stdout)
    finally:
        tr.finish()
    final = tr.final()
    if final is None:
        tap.ok(False, "%s: a final summary" % what, tr.stderr[-2000:])
    return final, stats, price_err(tr.err)


def pgss(out):
    """STATEMENTS' output as {query: [calls, mean_exec_time in ns]}, rows
    of one text summed (pg_stat_statements keeps statements whose trees
    differ, by the types of their constants, apart)."""
    stats = {}
    for line in out.splitlines():
        calls, mean, query = line.split("|", 2)
        c, t = stats.get(query, [0, 0.0])
        n = c + int(calls)
        stats[query] = [n, (c * t + int(calls) * float(mean) * 1e6) / n]
    return stats


def cut(query):
    """query as a key keeps it: its first 63 bytes and "..." if longer."""
    return query if len(query) <= 63 else query[:63] + "..."


def summed(final, spec, field="total"):
    """{key's first part: field summed over its rows} of spec."""
    out = {}
    for r in rows(final, spec):
        out[r["key"][0]] = out.get(r["key"][0], 0) + r[field]
    return out


def check_shapes(pg):
    """pgbench's TPC-B-like script, simple protocol, two clients under -b:
    each shape of sql(arg0) at query__done counted as often as
    pg_stat_statements' calls say; the literal texts with str(arg0), one
    row a text."""
    final, stats, _ = traced_pgbench(
        pg, ["--budget", "off", "-e", CALLS, "-e", LATENCY, "-e", RAW],
        ["-c", "2", "-j", "1", "-t", "300"], "shapes")
    if final is None:
        return
    ours, lat = summed(final, CALLS), summed(final, LATENCY)
    want = {cut(q): n for q, (n, _) in stats.items() if n >= 300}
    got = {q: n for q, n in ours.items()
           if n >= 300 and not q.startswith("SELECT pg_stat_statements")}
    tap.eq(got, want, "shapes: every statement of the script counted as "
           "often as pg_stat_statements' calls, under its text")
    update = "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE " \
        "aid = $2"
    tap.eq(ours.get(cut(update)), 600,
           "shapes: the UPDATE is one shape, 600 calls over its values")
    tap.eq({q: n for q, n in lat.items() if n >= 300}, got,
           "shapes: their latency pairs, as many")
    raw = [r for r in rows(final, RAW)
           if r["key"][0].startswith("UPDATE pgbench_accounts")]
    tap.ok(len(raw) > 100 and sum(r["total"] for r in raw) == 600,
           "str(arg0): the texts as sent, one row a text (%d), 600 in all"
           % len(raw))


# pgbench's script: 300 transactions a client, 2 clients
PGBENCH_TX = 600


def check_protocols(pg):
    """The probeset's Top (-P postgresql, --budget off) under pgbench's
    TPC-B-like script by each protocol: simple (one query a statement),
    extended (parse, bind and execute each time) and prepared (parsed
    once, executed by name). Each statement one row over every backend,
    under pg_stat_statements' text, its calls exactly pg_stat_statements'
    (BEGIN's and END's the transactions': pg_stat_statements 1.10 counts
    a prepared utility statement at its first run only, its queryId
    zeroed after), and its latency pairs as many. Their mean is
    PortalRun's, which holds the executor's run and finish that
    pg_stat_statements' mean_exec_time times: at least as long, less the
    probes' price's error; by the simple protocol at most the whole
    query's (query__start..query__done, which holds PortalRun)."""
    for mode in ("simple", "extended", "prepared"):
        final, stats, err = traced_pgbench(
            pg, ["--budget", "off", "-P", "postgresql"],
            ["-c", "2", "-j", "1", "-t", str(PGBENCH_TX // 2)], mode, mode)
        if final is None:
            continue
        calls = summed(final, TOP_CALLS)
        lat = summed(final, TOP_LATENCY)
        lat_ns = summed(final, TOP_LATENCY, "sum")
        script = {cut(q): (n, t) for q, (n, t) in stats.items()
                  if n >= PGBENCH_TX or q in ("BEGIN", "END")}
        want = {q: PGBENCH_TX if q in ("BEGIN", "END") else n
                for q, (n, _) in script.items()}
        tap.eq({q: calls.get(q) for q in want}, want,
               "%s: Top's calls of pgbench's 7 statements, each under "
               "pg_stat_statements' text, exactly its calls" % mode,
               (calls, stats))
        tap.eq({q: lat.get(q) for q in want}, want,
               "%s: their latency pairs, as many" % mode)
        slack = 0.1 + (err or 0)
        short = ["%s: %.0f ns, pg_stat_statements %.0f" % (
            q, lat_ns.get(q, 0) / want[q], t)
            for q, (n, t) in script.items()
            if q not in ("BEGIN", "END") and
            lat_ns.get(q, 0) / want[q] < t * (1 - slack) - 2000]
        tap.eq(short, [], "%s: each DML's and the SELECT's mean from "
               "PortalRun at least pg_stat_statements' mean_exec_time "
               "(less %.0f%% and 2 us: the probes' price's error)"
               % (mode, 100 * slack))
        print("# %s: latency, PortalRun / mean_exec_time: %s" % (
            mode, ", ".join("%s %.2f" % (q[:16], lat_ns.get(q, 0) /
                                         want[q] / t)
                            for q, (n, t) in sorted(script.items())
                            if t > 0)))
        if mode != "simple":
            continue
        whole = summed(final, STATEMENT, "sum")
        long = ["%s: %.0f ns, the whole query %.0f" % (
            q, lat_ns.get(q, 0) / n, whole.get(q, 0) / n)
            for q, n in want.items()
            if lat_ns.get(q, 0) > whole.get(q, 0) * 1.05 + 1000 * n]
        tap.eq(long, [], "simple: each statement's mean from PortalRun at "
               "most the whole query's, parse to commit (5% and 1 us: two "
               "pairs' probes)")


# Awkward statements whose texts sql() must give as pg_stat_statements
# does (its query for each): quotes and escapes, $$ quotes, string
# prefixes (E, B, X; N'' stays N$1), signs and exponents, casts, IN
# lists, UTF-8, blanks and ';' about them, a prepared statement's own
# $N. Each alone in its query string (psql -c).
CORPUS = [
    "SELECT 1;", "  SELECT 2  ;  ", "SELECT\n  7\n;",
    "SELECT E'new\\nline', e'esc';", "SELECT $$dollar'single$$;",
    "SELECT 'a' || 'b', -5, 1.5e3;", "SELECT x'1F', b'101', N'nat';",
    "SELECT 1::int, '2'::text, CAST('3' AS int);",
    "SELECT 10 - 5, 3-2, (4)-1, - 6;",
    "SELECT count(*) FROM generate_series(1, 3) g WHERE g IN (1, 2, 3);",
    "SELECT 'ünïcode', 'é' AS e;", "SELECT 'it''s', '';",
    "SELECT .5, 5., 1e-3, 2.5E+3, -0.5;",
    "SELECT length('x') > 0 AND 2 < 3;",
    "SELECT -1, CASE WHEN 1 > 0 THEN - 1 ELSE 2 END;",
    "SELECT E'it\\'s', 3;", "SELECT $$$$, $$$5$$;",
]
# ... and prepared statements whose literals come before and after their
# own parameter (pgbench -M prepared makes :x $1): $N after the highest
# the statement has
PREPARED = "\\set x 3\nSELECT 5 + :x::int;\nSELECT :x::int - 7, 'lit';\n"
# in hex: a text may hold a newline
PGSS_QUERIES = ("SELECT encode(convert_to(query, 'UTF8'), 'hex') FROM "
                "pg_stat_statements WHERE query NOT LIKE "
                "'%pg_stat_statements%';")


def inert(text):
    """text as probetop prints a key (engine/name/inert.h), for the
    bytes CORPUS has: a backslash doubled, a newline, tab or carriage
    return as \\n, \\t, \\r."""
    for raw, shown in (("\\", "\\\\"), ("\n", "\\n"), ("\t", "\\t"),
                       ("\r", "\\r")):
        text = text.replace(raw, shown)
    return text


def check_corpus(pg):
    """Each statement of CORPUS run alone: the text Top shows for it
    (sql() in the kernel) equal to pg_stat_statements' query for it,
    every one (texts over 63 bytes cut there, as keys are)."""
    want = []
    tr = Trace(["-b", POSTGRES, "--budget", "off", "-i", "60", "-e",
                TOP_CALLS])
    try:
        for q in CORPUS + [None]:
            pg.psql("SELECT pg_stat_statements_reset();")
            if q:
                pg.psql(q)
            else:
                script = os.path.join(pg.dir, "prepared.sql")
                with open(script, "w") as f:
                    f.write(PREPARED)
                os.chmod(script, 0o644)
                bench = pg.run([BIN + "/pgbench", "-n", "-M", "prepared",
                                "-f", script, "-t", "1", pg.db])
                tap.eq(bench.returncode, 0, "pgbench -M prepared ran a "
                       "script of two statements", bench.stderr)
            want += [inert(cut(bytes.fromhex(t).decode())) for t in
                     pg.psql(PGSS_QUERIES, tuples=True).stdout.split()]
    finally:
        tr.finish()
    final = tr.final()
    got = sorted(q for q, n in summed(final, TOP_CALLS).items()
                 for _ in range(n) if "pg_stat_statements" not in q and
                 not q.startswith("SELECT encode(convert_to(query")) \
        if final else None
    tap.eq(got, sorted(want), "sql(): %d awkward statements and 2 prepared "
           "ones, each text as pg_stat_statements' query" % len(CORPUS),
           tr.stderr[-2000:])


def summed_guess(rs):
    """(estimate, error) of the sum of rows rs (tap.guess_of(): their
    estimates, their largest error), or None if one has none."""
    gs = [guess_of(r) for r in rs]
    if not gs or None in gs:
        return None
    return sum(g[0] for g in gs), max(g[1] for g in gs)


def held(rs, truth, loose):
    """Whether rows rs summed keep the promise against truth: within 15%,
    each an estimate (~) or exact; where prices are known to more than
    15% (loose: a trap is dear, docs/testing.md), the estimate of their
    sum within its error, or, a row a bound without one, their sum at
    most the truth."""
    total = sum(r["total"] for r in rs)
    if not loose:
        return abs(total / truth - 1) <= 0.15 and \
            {mark(r) for r in rs} <= {"~", ""}
    g = summed_guess(rs)
    if g is None:
        return bool(rs) and total <= truth
    return abs(g[0] - truth) <= g[1] * g[0] + 1


def mark(row):
    """A JSON row's mark: "~" an estimate, ">=" a lower bound, "" exact."""
    return ("~" if row.get("estimated") else
            ">=" if row.get("lower_bound") else "")


def check_reads_budget(final, stats, err):
    """Under the default budget: the buffer reads of stats' keys (see
    statio()) each within 15% of PostgreSQL's count, an estimate (~) or
    exact in total; where prices are known to err > 15%, their estimate
    within its error (held())."""
    got, marks, by_key = {}, {}, {}
    for r in rows(final, BUFFER_READS):
        k = tuple(r["key"])
        got[k] = got.get(k, 0) + r["total"]
        marks.setdefault(k, set()).add(mark(r))
        by_key.setdefault(k, []).append(r)
    want = {k: n for k, n in stats.items() if n >= 1000}
    bad = ["%s: %d, pg_statio %d, marks %s, estimate %s" % (
        k, got.get(k, 0), n, sorted(marks.get(k, ())),
        summed_guess(by_key.get(k, [])))
        for k, n in want.items()
        if not held(by_key.get(k, []), n, err > 0.15)]
    spec = agg_of(final, BUFFER_READS) or {}
    print("# budget: buffer reads, probetop / pg_statio: %s" % ", ".join(
        "%s %.3f %s" % (k, got.get(k, 0) / n, "".join(sorted(marks.get(
            k, ())))) for k, n in sorted(want.items())))
    tap.ok(want and not bad,
           "budget: buffer reads of pgbench_accounts and its index, each "
           "%s of pg_statio's (%d keys, %d reads)"
           % ("within 15%, estimates" if err <= 0.15 else
              "estimated within its error or a bound (prices known to "
              "%.0f%%)" % (100 * err), len(want), sum(want.values())),
           ["duty %s, cost %s%% of a CPU" % (spec.get("duty"),
                                             spec.get("cost_pct"))] +
           (bad or [want, got]))


def check_shapes_budget(pg):
    """pgbench's TPC-B-like script, 8 clients for 10 s under the default
    budget with every role of -P postgresql attached: Top's calls (the
    [frames] role, which the budget spends on first), one row a
    statement over every backend, within 15% of pg_stat_statements'
    calls, each total an estimate (~) or exact, never a bound; and the
    [io] section's buffer reads of pgbench_accounts and its index
    within 15% of pg_statio's, estimates too."""
    before = statio(pg)
    final, stats, err = traced_pgbench(pg, ["-P", "postgresql"],
                                       ["-c", "8", "-j", "2", "-T", "10"],
                                       "budget")
    after = statio(pg)
    if final is None:
        return
    err = err or 0.15
    check_reads_budget(final, {k: after[k] - before.get(k, 0)
                               for k in after}, err)
    # the script's, not the set-up's
    theirs = {cut(q): n for q, (n, _) in stats.items() if n >= 1000}
    ours, marks, by_q = {}, {}, {}
    for r in rows(final, TOP_CALLS):
        q = r["key"][0]
        ours[q] = ours.get(q, 0) + r["total"]
        marks.setdefault(q, set()).add(mark(r))
        by_q.setdefault(q, []).append(r)
    bad = ["%s: %d, pg_stat_statements %d, marks %s, estimate %s" % (
        q, ours.get(q, 0), n, sorted(marks.get(q, ())),
        summed_guess(by_q.get(q, [])))
        for q, n in theirs.items()
        if not held(by_q.get(q, []), n, err > 0.15)]
    spec = agg_of(final, TOP_CALLS) or {}
    tap.ok(len(theirs) == 7 and not bad,
           "budget: pgbench's 7 statements, each %s of "
           "pg_stat_statements' calls (%d statements)"
           % ("within 15%, estimates" if err <= 0.15 else
              "estimated within its error or a bound (prices known to "
              "%.0f%%)" % (100 * err), len(theirs)),
           ["duty %s, cost %s%% of a CPU" % (
               spec.get("duty"), spec.get("cost_pct"))] + (bad or [theirs]))


def main():
    with Cluster("-c shared_preload_libraries=pg_stat_statements") as pg:
        pg.psql("CREATE EXTENSION pg_stat_statements;")
        init = pg.run([BIN + "/pgbench", "-i", "-q", pg.db])
        tap.eq(init.returncode, 0, "pgbench -i", init.stderr)
        final, tr, present_pid, logged, ckpt_pid, waiter_pid, stats = \
            traced_workload(pg)
        tap.eq(tr.rc, 0, "trace exits 0", tr.stderr[-2000:])
        tap.ok(final is not None, "a final summary")
        if final is None:
            return
        tap.eq({a["spec"]: a["drops"] for a in final["aggs"]
                if a["drops"]},
               {}, "no spec dropped an event")
        per_pid = check_queries(final, tr)
        check_transactions(final, per_pid, present_pid)
        check_checkpoint(final, logged, ckpt_pid)
        check_locks(final, waiter_pid)
        check_io(final, stats)
        check_one_backend(pg)
        check_failed_statements(pg)
        check_attach_under_load(pg)
        check_shapes(pg)
        check_protocols(pg)
        check_corpus(pg)
        check_shapes_budget(pg)
        postmaster = pg.postmaster_pid()
    tap.ok(not os.path.exists(pg.dir), "the server's directory is removed")
    for _ in range(100):  # pg_ctl stop -w: its pid file is gone
        if not os.path.exists("/proc/%d" % postmaster):
            break
        time.sleep(0.1)
    gone = run(["trace", "-p", str(postmaster), "-P", "postgresql",
                "-d", "1"])
    tap.eq((gone.returncode, gone.stderr.strip()),
           (1, "probetop: no such process: %d" % postmaster),
           "a server that has stopped: no such process")
    missing = run(["trace", "-b", "/usr/lib/postgresql/0/bin/postgres",
                   "-P", "postgresql", "-d", "1"])
    tap.eq((missing.returncode, missing.stderr.strip()),
           (1, "probetop: /usr/lib/postgresql/0/bin/postgres: "
               "No such file or directory"),
           "no postgres there: the path and why")


main()
tap.done()
