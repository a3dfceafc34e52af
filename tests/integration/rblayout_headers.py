# SPDX-License-Identifier: MIT
"""The engine's Ruby layouts (engine/name/rblayout.c) are the headers' own:
for every Ruby whose VM structures are installed
(/usr/include/*/ruby-X.Y.0/rb_mjit_min_header-*.h: Debian's ruby3.1-dev,
which scripts/setup installs), tests/tools/rblayout_probe.c is compiled
against that header and what it prints (offsetof, the flags, the frame
magics) must equal what rblayout_dump prints of the table of that
major.minor. The one field the header leaves out, the offset of ids in
symbol.c's struct symbols, is checked in Debian's libruby itself:
rb_id2str() jumps to the lookup, which compares the serial with the
table's last_id and loads its ids that many bytes further. Debian's
libruby must export ruby_current_vm_ptr and ruby_version (what
engine/name/rbframe.c finds a Ruby by). 3.0, 3.2 and 3.3 have tables
derived from other sources (engine/name/rblayout.c), which no header here
can check: their presence is all this test says of them; 2.7 and 3.4
have none.

Usage: rblayout_headers.py RBLAYOUT_DUMP RBLAYOUT_PROBE_C"""

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
LIBRUBY = "/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1"


def table(version):
    """rblayout_dump's JSON of major.minor (None when it has none)."""
    out = subprocess.run([DUMP, version], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def probe(header, tmp):
    """rblayout_probe.c compiled against header and run: its JSON, or
    (None, the compiler's or the probe's complaint)."""
    exe = os.path.join(tmp, "probe")
    inc = os.path.dirname(header)
    common = os.path.join("/usr/include", os.path.basename(inc))
    cc = subprocess.run(["gcc", "-O2", "-w", "-I" + inc, "-I" + common,
                         '-DRB_HEADER="%s"' % os.path.basename(header),
                         PROBE_C, "-o", exe],
                        capture_output=True, text=True)
    if cc.returncode != 0:
        return None, cc.stderr
    run = subprocess.run([exe], capture_output=True, text=True)
    if run.returncode != 0:
        return None, run.stderr
    return json.loads(run.stdout), ""


def id2str_ids(lib):
    """The distance from last_id to ids in the global symbol table, as
    rb_id2str()'s lookup in lib reads them (objdump), or None."""
    dump = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib],
                          capture_output=True, text=True).stdout
    m = re.search(r"<rb_id2str@@Base>:\n(.*?)\n\n", dump, re.S)
    jump = m and re.search(r"\sjmp\s+([0-9a-f]+)", m.group(1))
    if not jump:
        return None
    at = dump.find("\n  %s:" % jump.group(1))
    body = dump[at:at + 2000]
    last = re.search(r"cmp\s+%e\w+,0x\w+\(%rip\)\s+# ([0-9a-f]+)", body)
    load = re.search(r"mov\s+0x\w+\(%rip\),%r\w+\s+# ([0-9a-f]+)",
                     body[last.end():] if last else "")
    if not last or not load:
        return None
    return int(load.group(1), 16) - int(last.group(1), 16)


headers = sorted(glob.glob("/usr/include/*/ruby-*/rb_mjit_min_header-*.h"))
tap.ok(any("ruby-3.1.0" in h for h in headers), "Debian's ruby3.1-dev "
       "header of the VM's structures installed (scripts/setup)", headers)
for header in headers:
    with tempfile.TemporaryDirectory() as tmp:
        got, err = probe(header, tmp)
    if not tap.ok(got is not None, header + ": rblayout_probe.c compiles "
                  "and runs", err):
        continue
    version = "%d.%d" % (got["major"], got["minor"])
    want = table(version)
    syms_ids = want.pop("syms_ids", None) if want else None
    tap.eq(got, want, header + ": the header agrees with rblayout_find(%s)"
           % version, "\n".join("%s: header %r, table %r"
                                % (k, got.get(k), (want or {}).get(k))
                                for k in sorted(got)
                                if got.get(k) != (want or {}).get(k)))
    if version == "3.1":
        tap.eq(id2str_ids(LIBRUBY), syms_ids, LIBRUBY + ": rb_id2str() "
               "reads the symbol table's ids syms_ids bytes past last_id")

if os.path.exists(LIBRUBY):
    nm = subprocess.run(["nm", "-D", LIBRUBY], capture_output=True,
                        text=True).stdout
    tap.ok(re.search(r" B ruby_current_vm_ptr$", nm, re.M) and
           re.search(r" R ruby_version$", nm, re.M) and
           re.search(r" T rb_id2str$", nm, re.M),
           LIBRUBY + ": exports ruby_current_vm_ptr, ruby_version and "
           "rb_id2str (stripped as it is)")
else:
    tap.ok(False, LIBRUBY + " installed (libruby3.1, scripts/setup)")

for version in ("3.0", "3.2", "3.3"):
    got = table(version)
    tap.ok(got is not None and "%(major)d.%(minor)d" % got == version,
           "rblayout_find(%s): a derived table (no header to check it "
           "against)" % version)
for version in ("2.7", "3.4"):
    tap.eq(table(version), None, "rblayout_find(%s) is NULL" % version)

tap.done()
