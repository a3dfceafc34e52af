# SPDX-License-Identifier: MIT
"""The truth harness's checker (issue 31): every row of every aggregation
probetop printed, held against what the workload counted itself.

A row's number is one of (the contract the budget's estimator follows):
  exact        no mark                      must equal the truth
  an estimate  "estimated": true  (~ text)  within 15% of the truth
  a bound      "lower_bound": true (>= text) at most the truth
The numbers of a row: its total (events since attach); a sum's
sum_total; a histogram's sum and each of its buckets (a bucket missing
is 0); for an exact histogram also min, max and p50/p90/p99, for a
marked one min and max inside the true range (values it saw are real).
A latency row's durations are not known to the workload: its count is
checked, and that its buckets add up to it.

Truth is given per aggregation as {key tuple: Truth}. A key the
workload never produced has a truth of 0. A row of the truth that
probetop did not print is a failure when nothing of its aggregation is
marked (it claims to be exact), and passes as a bound of 0 when the
aggregation was sampled (a key never hit in a window cannot be shown).
An aggregation of the output with no truth fails, unless the case names
it as unknowable with a reason; rows outside a case's scope (a JVM's own
classes, say) are listed and counted, not checked.

check() also sums every interval's rows ("count", and "sum" for sums)
and holds the sum to the truth by the marks it was made of: all exact,
exact; estimates (and exact), within 15%; bounds (and exact), at most
the truth; estimates and bounds mixed, at most 15% above it."""

import math
import re

TOLERANCE = 0.15
EXACT, ESTIMATE, BOUND = "", "~", "\u2265"


def mark_of(row):
    """The row's mark: EXACT, ESTIMATE or BOUND."""
    if row.get("lower_bound"):
        return BOUND
    if row.get("estimated"):
        return ESTIMATE
    return EXACT


def holds(printed, truth, mark):
    """Whether one printed number keeps the rule of its mark; mark
    ("guess", e): a lower bound's estimate, within its error e (relative,
    0.4: 40%) of the truth, give or take its rounding."""
    if isinstance(mark, tuple) and mark[0] == "guess":
        return abs(printed - truth) <= mark[1] * printed + 1
    if mark == EXACT:
        return printed == truth
    if mark == ESTIMATE:
        return abs(printed - truth) <= TOLERANCE * truth
    if mark == BOUND:
        return printed <= truth
    if mark == "mixed":  # a sum of estimates and bounds
        return printed <= (1 + TOLERANCE) * truth
    raise ValueError(mark)


def ratio(printed, truth):
    if truth == 0:
        return "-" if printed == 0 else "inf"
    return "%.2f" % (printed / truth)


# -- truths ------------------------------------------------------------------

def log2_low(v):
    """probetop's log2 bucket of value v, by its low (docs/probetop.1):
    negatives together, 0 alone, then [2^k, 2^(k+1))."""
    if v < 0:
        return "neg"
    if v == 0:
        return 0
    return 1 << (v.bit_length() - 1)


class Truth:
    """What a row should hold. count: events; sum (sum and histogram
    aggregations); values ({value: events}, histograms: buckets, min,
    max and percentiles follow); timed (latency: durations unknown)."""

    def __init__(self, count, sum=None, values=None, timed=False):
        self.count = count
        self.sum = sum
        self.values = values
        self.timed = timed
        self.buckets = None
        if values is not None:
            values = {v: n for v, n in values.items() if n}
            self.sum = sum if sum is not None else \
                sum_of(v * n for v, n in values.items())
            self.min = min(values) if values else None
            self.max = max(values) if values else None
            b = {}
            for v, n in values.items():
                b[log2_low(v)] = b.get(log2_low(v), 0) + n
            if "neg" in b:
                b[self.min] = b.pop("neg")
            self.buckets = b
            self.pct = {}
            lows = sorted(b)
            for name, p in (("p50", 50), ("p90", 90), ("p99", 99)):
                want = max(1, math.ceil(count * p / 100 - 1e-9))
                run = 0
                for low in lows:
                    run += b[low]
                    if run >= want:
                        self.pct[name] = low
                        break


def sum_of(it):
    t = 0
    for x in it:
        t += x
    return t


def count(n):
    return Truth(n)


def summed(n, s):
    return Truth(n, sum=s)


def histogram(values):
    """values: {value: events}"""
    return Truth(sum_of(values.values()), values=values)


def latency(n):
    return Truth(n, timed=True)


ZERO = Truth(0)


# -- the check ---------------------------------------------------------------

def short(spec, width=44):
    return spec if len(spec) <= width else spec[:width - 3] + "..."


def keytext(key):
    """A key as the table shows it: its parts joined by ",", a path by
    its file name."""
    if not key:
        return "-"
    return ",".join(k.rsplit("/", 1)[-1] if isinstance(k, str) and
                    k.startswith("/") else str(k)
                    for k in key)


class Checker:
    """Checks for one run; table rows (dicts) for the report."""

    def __init__(self, tap, case):
        self.tap = tap
        self.case = case
        self.table = []

    def _numbers(self, row, t, kind):
        """[(what, printed, truth, mark)] of one row against its truth."""
        m = mark_of(row)
        out = [("total", row["total"], t.count, m)]
        if m == BOUND and "estimate" in row:  # its estimate, and error
            out.append(("estimate", row["estimate"], t.count,
                        ("guess", row["error"])))
        if kind == "sum":
            out.append(("sum", row["sum_total"], t.sum or 0, m))
        if kind in ("quantize", "lquantize") and t.buckets is not None:
            out.append(("sum", row["sum"], t.sum, m))
            got = {b[0]: b[1] for b in row["buckets"]}
            for low in sorted(set(got) | set(t.buckets)):
                out.append(("bucket %s" % low, got.get(low, 0),
                            t.buckets.get(low, 0), m))
            if m == EXACT:
                out.append(("min", row["min"], t.min, EXACT))
                out.append(("max", row["max"], t.max, EXACT))
                for p in ("p50", "p90", "p99"):
                    out.append((p, row.get(p), t.pct.get(p), EXACT))
            else:
                out.append(("min in range", row["min"] >= t.min, True,
                            EXACT))
                out.append(("max in range", row["max"] <= t.max, True,
                            EXACT))
        if kind == "latency" or t.timed:
            out.append(("buckets add up", sum(b[1] for b in row["buckets"]),
                        row["total"], EXACT))
        return out

    def aggregations(self, fin, expect, unknowable=None, scope=None,
                     keyfns=None):
        """Check the final block. expect: {spec: {key tuple: Truth}};
        unknowable: {spec: reason}; scope(spec, key): whether a row is
        the workload's to know (default: all); keyfns: {spec: f}, f(key)
        the truth's key of a printed key (a Python function's row without
        its line, say: two rows of one truth key are a failure). Returns
        {spec: [(key, mark, printed, truth)]} of the rows checked."""
        unknowable = unknowable or {}
        keyfns = keyfns or {}
        seen = {}
        for a in fin["aggs"]:
            spec = a["spec"]
            if spec in unknowable:
                n = len(a["rows"])
                self.tap.ok(True, "%s: %s: not checked (%s); %d rows"
                            % (self.case, short(spec), unknowable[spec], n))
                continue
            if spec not in expect:
                self.tap.ok(False, "%s: %s: an aggregation the case has no "
                            "truth for" % (self.case, short(spec)),
                            [r["key"] for r in a["rows"]][:10])
                continue
            seen[spec] = self._one(a, expect[spec], scope,
                                   keyfns.get(spec))
        for spec in expect:
            if spec not in seen:
                self.tap.ok(False, "%s: %s: missing from probetop's output"
                            % (self.case, short(spec)))
        return seen

    def _one(self, a, truth, scope, keyfn):
        spec, kind = a["spec"], a["kind"]
        duty = a.get("duty")
        sampled = bool(a.get("estimated") or duty is not None or
                       any(mark_of(r) != EXACT for r in a["rows"]))
        bad, checked, outside = [], [], []
        keyfn = keyfn or (lambda k: k)
        rows = set()
        marks = {EXACT: 0, ESTIMATE: 0, BOUND: 0}
        for r in a["rows"]:
            key = keyfn(tuple(r["key"]))
            if scope is not None and not scope(spec, key):
                outside.append((key, r["total"]))
                continue
            if key in rows:
                bad.append("%s: printed in more than one row" %
                           keytext(key))
            rows.add(key)
            t = truth.get(key, ZERO)
            m = mark_of(r)
            marks[m] += 1
            n_bad = len(bad)
            for what, printed, want, mk in self._numbers(r, t, kind):
                if not holds(printed, want, mk):
                    bad.append("%s %s: printed %s%s, truth %s" % (
                        keytext(key), what, mk, printed, want))
            checked.append((key, m, r["total"], t.count))
            self.table.append({
                "case": self.case, "spec": spec, "key": keytext(key),
                "duty": duty if duty is not None else 1.0,
                "printed": r["total"], "truth": t.count,
                "ratio": ratio(r["total"], t.count), "mark": m,
                "ok": len(bad) == n_bad})
        for key, t in truth.items():
            if key in rows or (scope is not None and not scope(spec, key)):
                continue
            if t.count == 0:
                continue
            if not sampled:
                bad.append("%s: not printed, truth %d (the aggregation "
                           "claims to be exact)" % (keytext(key), t.count))
            self.table.append({
                "case": self.case, "spec": spec, "key": keytext(key),
                "duty": duty if duty is not None else 1.0,
                "printed": 0, "truth": t.count, "ratio": ratio(0, t.count),
                "mark": "absent", "ok": sampled})
        what = "%s: %s: every row true (%d rows: %d exact, %d ~, %d \u2265" \
            % (self.case, short(spec), len(checked), marks[EXACT],
               marks[ESTIMATE], marks[BOUND])
        if outside:
            what += "; %d rows, %d events outside the workload's own" % (
                len(outside), sum(n for _, n in outside))
        self.tap.ok(not bad, what + ")", "\n".join(bad[:30]))
        return checked

    def intervals(self, objs, expect, scope=None, keyfns=None):
        """The sum of every interval's rows against the truth, per spec
        and key (one check per spec)."""
        keyfns = keyfns or {}
        ivs = [o for o in objs if "interval" in o]
        if not ivs:
            self.tap.ok(False, "%s: intervals printed" % self.case)
            return
        for spec, truth in expect.items():
            sums, marks = {}, {}
            for o in ivs:
                a = next((x for x in o["aggs"] if x["spec"] == spec), None)
                if a is None:
                    continue
                for r in a["rows"]:
                    key = keyfns.get(spec, lambda k: k)(tuple(r["key"]))
                    if scope is not None and not scope(spec, key):
                        continue
                    if not r["count"]:
                        continue
                    n, s = sums.get(key, (0, 0))
                    sums[key] = (n + r["count"],
                                 s + (r.get("sum") or 0))
                    marks.setdefault(key, set()).add(mark_of(r))
            bad = []
            kind = "sum" if spec.split("=")[-1].startswith("sum(") else ""
            for key in set(sums) | set(truth):
                t = truth.get(key, ZERO)
                n, s = sums.get(key, (0, 0))
                ms = marks.get(key, {EXACT}) - {EXACT}
                m = EXACT if not ms else ms.pop() if len(ms) == 1 \
                    else "mixed"
                if key not in sums and t.count:
                    m = BOUND  # never printed: a bound of 0, if sampled
                    if not any(mark_of(r) != EXACT or x.get("estimated")
                               for o in ivs for x in o["aggs"]
                               if x["spec"] == spec for r in x["rows"]):
                        m = EXACT
                nums = [("count", n, t.count)]
                if kind == "sum":
                    nums.append(("sum", s, t.sum or 0))
                for what, printed, want in nums:
                    if not holds(printed, want, m):
                        bad.append("%s %s: intervals add up to %s%s, truth "
                                   "%s" % (keytext(key), what, m, printed,
                                           want))
            self.tap.ok(not bad, "%s: %s: the %d intervals add up to the "
                        "truth" % (self.case, short(spec), len(ivs)),
                        "\n".join(bad[:30]))


def text_number(tok):
    """(mark, value) of a number as trace's text prints it: ~N, ≥N
    or N."""
    for m in (ESTIMATE, BOUND):
        if tok.startswith(m):
            return m, int(tok[len(m):])
    return EXACT, int(tok)


def parse_text_final(text):
    """trace's text output, its final block, as {spec: {"duty": the
    share "attached N% of the time" or None, "rows": [(key text,
    {"total": (mark, n), "sum": (mark, n), "buckets": {low: (mark,
    n)}, "guess": (n, error) or None})]}}: count and sum tables (a KEY
    column when keyed), histograms (a key line when keyed, "count N ...
    count since attach N", the distribution); a lower bound's estimate
    ends its line, "(~N±E%)".
    None without a final block."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines)
                  if l.startswith("=== final")), None)
    if start is None:
        return None
    out, spec, hist, keyed, key, cur = {}, None, False, False, "-", None
    for line in lines[start + 1:]:
        if not line.strip() or line.startswith("overhead"):
            spec = None
            continue
        if not line.startswith(" "):
            spec = line.split("  (")[0]
            agg = spec.split("=", 1)[1] if "=" in spec else "count("
            hist = ".." in spec or agg.startswith(
                ("quantize(", "lquantize(", "latency("))
            duty = re.search(r"attached (\d+(?:\.\d+)?)% of the time", line)
            out[spec] = {"duty": float(duty.group(1)) / 100 if duty
                         else None, "rows": []}
            keyed, key, cur = False, "-", None
            continue
        if spec is None:
            continue
        f = line.split()
        guess = None
        if f and f[-1].startswith("(~"):  # a lower bound's estimate
            g = re.fullmatch(r"\(~(\d+)\u00b1(\d+)%\)", f.pop())
            guess = (int(g.group(1)), int(g.group(2)) / 100) if g else None
        if not hist:
            if "TOTAL" in f:
                keyed = f[0] == "KEY"
                continue
            vals = f[1:] if keyed else f
            row = {"total": text_number(vals[0]), "guess": guess}
            if len(vals) > 1:
                row["sum"] = text_number(vals[1])
            out[spec]["rows"].append((f[0] if keyed else "-", row))
        elif f[0] == "count" and "attach" in f:
            cur = {"total": text_number(f[f.index("attach") + 1]),
                   "buckets": {}, "guess": guess}
            out[spec]["rows"].append((key, cur))
        elif "Distribution" in line:
            continue
        elif "|" in line and cur is not None:
            label, _, rest = line.partition("|")
            label = label.strip()
            low = "neg" if label.startswith("<") else \
                int(label.lstrip(">= "))
            cur["buckets"][low] = text_number(rest.split()[-1])
        else:
            key, cur = line.strip(), None
    return out


def diag_table(rows, out):
    """The rows as a table, each line prefixed "# " (TAP diagnostics)."""
    if not rows:
        return
    w = max(len(r["case"]) for r in rows)
    ws = min(max(len(short(r["spec"], 40)) for r in rows), 40)
    wk = min(max(len(r["key"]) for r in rows), 48)
    out("# %-*s  %-*s  %-*s  %6s  %12s  %12s  %6s  %-6s" % (
        w, "case", ws, "spec", wk, "key", "duty", "printed", "truth",
        "ratio", "mark"))
    for r in rows:
        out("# %-*s  %-*s  %-*s  %6.3f  %12d  %12d  %6s  %-6s%s" % (
            w, r["case"], ws, short(r["spec"], 40), wk, r["key"][:48],
            r["duty"], r["printed"], r["truth"], r["ratio"],
            r["mark"] or "exact", "" if r["ok"] else "  FALSE"))
