# SPDX-License-Identifier: MIT
"""A PostgreSQL 15 server of a test's own (Debian's postgresql-15, which
scripts/setup installs): initdb in a temporary directory as the postgres
user, a Unix socket in that directory and no TCP port, stopped and
removed when the `with` block ends, also when a check in it failed or
raised. The cluster Debian's package creates (and its port) is never
touched."""

import os
import pwd
import shutil
import subprocess
import tempfile
import time

BIN = "/usr/lib/postgresql/15/bin"
POSTGRES = BIN + "/postgres"
USER = "postgres"
NEEDED = ("postgres", "initdb", "pg_ctl", "pgbench", "psql")


def need_postgres(tap):
    """A failed check, and the end of the test, if PostgreSQL 15 or its
    user is missing: the tests need it (no skip)."""
    missing = [p for p in NEEDED if not os.access(BIN + "/" + p, os.X_OK)]
    try:
        pwd.getpwnam(USER)
    except KeyError:
        missing.append("the user " + USER)
    if missing:
        tap.ok(False, "PostgreSQL 15 is installed (scripts/setup installs "
                      "postgresql-15)", "missing: " + ", ".join(missing))
        tap.done()


class Session:
    """psql reading queries from a pipe: one backend for as long as it
    lives. query() sends one statement and returns its unaligned
    output's first line."""

    def __init__(self, cluster):
        # without ON_ERROR_STOP: an error (said on stderr, which is
        # dropped) does not end the session
        self.p = subprocess.Popen(
            cluster.psql_argv()[:-2] + ["-A", "-t", "-q"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, user=USER,
            cwd=cluster.dir)

    def send(self, sql):
        """sql sent, its output (if any) not read."""
        self.p.stdin.write(sql + "\n")
        self.p.stdin.flush()

    def read(self):
        """The next line of output."""
        return self.p.stdout.readline().strip()

    def query(self, sql):
        self.send(sql)
        return self.read()

    def close(self):
        if self.p.poll() is None:
            self.p.stdin.close()
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()


class Cluster:
    """initdb, start; stop and remove on exit. opts: more server options
    ("-c shared_preload_libraries=pg_stat_statements")."""

    db = "postgres"

    def __init__(self, opts=""):
        self.opts = opts

    def __enter__(self):
        pw = pwd.getpwnam(USER)
        self.dir = tempfile.mkdtemp(prefix="probetop-pg.")
        os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self.data = os.path.join(self.dir, "data")
        self.log = os.path.join(self.dir, "server.log")
        self.started = False
        try:
            self.run([BIN + "/initdb", "-D", self.data, "-A", "trust",
                      "-U", USER, "--no-sync"], check=True)
            # no TCP (listen_addresses), the socket here; no autovacuum,
            # no timed checkpoint: nothing but the test runs queries or
            # checkpoints; log_checkpoints says what each one wrote
            opts = ("-c listen_addresses='' -c unix_socket_directories=%s "
                    "-c autovacuum=off -c checkpoint_timeout=1h "
                    "-c log_checkpoints=on %s" % (self.dir, self.opts))
            self.run([BIN + "/pg_ctl", "-D", self.data, "-l", self.log,
                      "-w", "-t", "60", "-o", opts, "start"], check=True)
            self.started = True
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        if self.started:
            self.run([BIN + "/pg_ctl", "-D", self.data, "-m", "immediate",
                      "-w", "stop"])
            self.started = False
        shutil.rmtree(self.dir, ignore_errors=True)
        return False

    def run(self, argv, check=False, timeout=120):
        """argv as the postgres user, in the cluster's directory."""
        return subprocess.run(argv, capture_output=True, text=True,
                              user=USER, cwd=self.dir, check=check,
                              timeout=timeout,
                              env=dict(os.environ, PGHOST=self.dir))

    def run_async(self, argv):
        """argv as the postgres user, in the cluster's directory, started:
        its Popen (text, stdout and stderr piped)."""
        return subprocess.Popen(argv, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                user=USER, cwd=self.dir,
                                env=dict(os.environ, PGHOST=self.dir))

    def psql_argv(self):
        return [BIN + "/psql", "-X", "-h", self.dir, "-d", self.db,
                "-v", "ON_ERROR_STOP=1"]

    def psql(self, sql, check=True, tuples=False):
        """psql -c sql; tuples: its rows alone, "|" between columns, no
        header (-At)."""
        return self.run(self.psql_argv() + (["-At"] if tuples else []) +
                        ["-c", sql], check=check)

    def session(self):
        return Session(self)

    def backend_pid(self, backend_type):
        """The pid of the server's process of backend_type
        ("checkpointer" ...), from pg_stat_activity."""
        r = self.run(self.psql_argv() + [
            "-A", "-t", "-c", "SELECT pid FROM pg_stat_activity WHERE "
            "backend_type = '%s';" % backend_type], check=True)
        return int(r.stdout)

    def postmaster_pid(self):
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            return int(f.readline())

    def log_size(self):
        return os.path.getsize(self.log)

    def wait_log(self, fragment, since=0, timeout=30):
        """The first line of the server's log after byte since containing
        fragment, waited for; None if none comes."""
        end = time.time() + timeout
        while time.time() < end:
            with open(self.log, errors="replace") as f:
                f.seek(since)
                for line in f:
                    if fragment in line:
                        return line.strip()
            time.sleep(0.1)
        return None
