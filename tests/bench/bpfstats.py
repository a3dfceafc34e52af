# SPDX-License-Identifier: MIT
"""BPF run-time statistics of one probetop's programs, for the benches
that price a program (pyframe.py, rbframe.py)."""

import ctypes
import json
import os
import subprocess


def stats_on():
    """BPF run-time statistics on while the fd returned is open
    (BPF_ENABLE_STATS, x86-64: counted by the kernel, so another bench
    writing kernel.bpf_stats_enabled meanwhile does not turn them off)."""
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.create_string_buffer(16)  # type 0: BPF_STATS_RUN_TIME
    fd = libc.syscall(321, 32, attr, ctypes.c_uint(16))  # bpf(), ENABLE
    if fd < 0:
        raise OSError(ctypes.get_errno(), "BPF_ENABLE_STATS")
    return fd


def prog_ids(pid):
    """The ids of the BPF programs process pid holds (its fdinfo)."""
    ids = set()
    d = "/proc/%d/fdinfo" % pid
    for fd in os.listdir(d):
        try:
            with open(os.path.join(d, fd)) as f:
                for line in f:
                    if line.startswith("prog_id:"):
                        ids.add(int(line.split()[1]))
        except OSError:
            continue
    return ids


def prog_stats(name, ids):
    """(run_cnt, run_time_ns) summed over the programs called name among
    ids (bpftool prog, with BPF statistics on): only this bench's
    probetop's, whatever else runs on the machine (another probetop's
    programs come and go, and made a round's count negative)."""
    out = subprocess.run(["bpftool", "-j", "prog", "show"], check=True,
                         capture_output=True, text=True).stdout
    cnt = ns = 0
    for p in json.loads(out):
        if p.get("name") == name and p.get("id") in ids:
            cnt += p.get("run_cnt", 0)
            ns += p.get("run_time_ns", 0)
    return cnt, ns
