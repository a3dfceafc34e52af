# SPDX-License-Identifier: MIT
"""The engine's PHP layouts (engine/name/phplayout.c) are the headers' own:
for every PHP's headers under /usr/include/php/API/ (Debian's php8.2-dev,
which scripts/setup installs: /usr/include/php/20220829) and in the
trixie root scripts/setup --runtimes builds (php8.4-dev: 20240924),
tests/tools/phplayout_probe.c is compiled against them and what it prints
(offsetof, the module API number, the function types) must equal what
phplayout_dump prints of the table of that major.minor. Debian's
/usr/bin/php8.2 must carry the same module API in its build ID (what
engine/name/phpframe.c picks a table by) and export executor_globals.
8.0, 8.1 and 8.3 have tables derived from published copies of their
structs (engine/name/phplayout.c), no headers of theirs to check them
against here: they are only checked to exist; 7.4 and 8.5 have none.

Usage: phplayout_headers.py PHPLAYOUT_DUMP PHPLAYOUT_PROBE_C"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from tap import Tap

tap = Tap()
DUMP, PROBE_C = sys.argv[1:3]
PHP = "/usr/bin/php8.2"
TRIXIE = os.environ.get("PROBETOP_ROOTS",
                        "/var/cache/probetop/roots") + "/trixie"


def table(version):
    """phplayout_dump's JSON of major.minor (None when it has none)."""
    out = subprocess.run([DUMP, version], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def probe(inc, tmp):
    """phplayout_probe.c compiled against the headers in inc and run: its
    JSON, or (None, the compiler's or the probe's complaint)."""
    exe = os.path.join(tmp, "probe")
    cc = subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror"] +
                        [a for d in ("", "main", "Zend", "TSRM")
                         for a in ("-isystem", os.path.join(inc, d))] +
                        [PROBE_C, "-o", exe], capture_output=True, text=True)
    if cc.returncode != 0:
        return None, cc.stderr
    run = subprocess.run([exe], capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr
    return json.loads(run.stdout), ""


incs = sorted(d for d in glob.glob("/usr/include/php/*") +
              glob.glob(TRIXIE + "/usr/include/php/*")
              if os.path.isfile(os.path.join(d, "Zend", "zend.h")))
tap.ok("/usr/include/php/20220829" in incs, "Debian's php8.2-dev headers "
       "installed (scripts/setup)", incs)
tap.ok(TRIXIE + "/usr/include/php/20240924" in incs, "trixie's php8.4-dev "
       "headers in its root (scripts/setup --runtimes)", incs)
apis = {}
for inc in incs:
    with tempfile.TemporaryDirectory() as tmp:
        got, err = probe(inc, tmp)
    if not tap.ok(got is not None, inc + ": phplayout_probe.c compiles "
                  "and runs", err):
        continue
    version = "%d.%d" % (got["major"], got["minor"])
    want = table(version)
    apis[got["api"]] = version
    tap.eq(got, want, inc + ": headers agree with phplayout_find(%s)"
           % version, "\n".join("%s: headers %r, table %r"
                                % (k, got.get(k), (want or {}).get(k))
                                for k in sorted(got)
                                if got.get(k) != (want or {}).get(k)))

if os.path.exists(PHP):
    with open(PHP, "rb") as f:
        ids = set(re.findall(rb"API(\d{8}),(NTS|TS)\b", f.read()))
    tap.eq(ids, {(b"20220829", b"NTS")}, PHP + ": its build ID names "
           "module API 20220829, non-ZTS (the 8.2 table's)")
    nm = subprocess.run(["nm", "-D", PHP], capture_output=True, text=True)
    tap.ok(re.search(r" B executor_globals$", nm.stdout, re.M),
           PHP + ": exports executor_globals (stripped as it is)")
else:
    tap.ok(False, PHP + " installed (php8.2-cli, scripts/setup)")

for version in ("8.0", "8.1", "8.3"):
    tap.ok(table(version) is not None and version not in apis.values(),
           "phplayout_find(%s): a table, derived (no headers of it here)"
           % version)
for version in ("7.4", "8.5"):
    tap.eq(table(version), None, "phplayout_find(%s) is NULL: no table"
           % version)

tap.done()
