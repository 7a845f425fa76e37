"""A PostgreSQL server of the tests' own: initdb and pg_ctl of Debian's
postgresql package in a temporary dir, listening on a unix socket in that
dir only (no TCP port), trusting local connections, without fsync. As
root it runs as nobody (the server refuses to run as root). .ci/run starts
one for the suite (`tests/pgserver.py start`, its dir in
$JLBENCH_TEST_PG) and stops it when the suite ends; without one,
conftest.py's pg_server fixture starts one per test session and stops it
at its end.
"""
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

BIN = "/usr/lib/postgresql/15/bin"
USER = "jlbench"            # the server's superuser
RUN_AS = "nobody"


def missing():
    """Why no server can be started here, or None."""
    for tool in ("initdb", "pg_ctl", "postgres"):
        if not os.access(os.path.join(BIN, tool), os.X_OK):
            return "no %s/%s: lib/deps installs postgresql" % (BIN, tool)
    if os.geteuid() == 0 and not shutil.which("runuser"):
        return "running as root without runuser to run the server as %s" \
            % RUN_AS
    try:
        import psycopg2  # noqa: F401
    except ImportError:
        return "no psycopg2: lib/deps installs python3-psycopg2"
    return None


class Server:
    """One server; start() it, url(db) a database's URL, stop() it. With
    path, the server another process started in that dir (.ci/run's):
    used, never stopped."""

    def __init__(self, path=None):
        self.external = path is not None
        self.dir = path or tempfile.mkdtemp(prefix="jlbench-pg-")
        self.data = os.path.join(self.dir, "data")
        self.log = os.path.join(self.dir, "server.log")
        self.started = self.external
        self.made = 0

    def _run(self, args):
        cmd = [os.path.join(BIN, args[0])] + args[1:]
        if os.geteuid() == 0:
            cmd = ["runuser", "-u", RUN_AS, "--"] + cmd
        p = subprocess.run(cmd, capture_output=True, text=True,
                           cwd=self.dir)
        if p.returncode != 0:
            log = ""
            if os.path.isfile(self.log):
                with open(self.log) as f:
                    log = f.read()[-2000:]
            raise RuntimeError("%s exited %d: %s%s\n%s" % (
                " ".join(args[:2]), p.returncode, p.stdout[-2000:],
                p.stderr[-2000:], log))
        return p

    def start(self):
        if os.geteuid() == 0:
            pw = pwd.getpwnam(RUN_AS)
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self._run(["initdb", "-D", self.data, "-U", USER, "--auth=trust",
                   "--no-sync", "-E", "UTF8", "--locale=C"])
        self._run(["pg_ctl", "start", "-w", "-D", self.data, "-l",
                   self.log, "-o", "-k %s -c listen_addresses='' -F"
                   % self.dir])
        self.started = True
        return self

    def url(self, db="postgres"):
        return "postgresql:///%s?host=%s&user=%s" % (db, self.dir, USER)

    def new_database(self):
        """The URL of a new empty database."""
        import psycopg2
        self.made += 1
        # unique across the processes that share a server
        name = "t%d_%d" % (os.getpid(), self.made)
        conn = psycopg2.connect(self.url())
        try:
            conn.autocommit = True
            conn.cursor().execute("CREATE DATABASE %s" % name)
        finally:
            conn.close()
        return self.url(name)

    def stop(self):
        if self.external:
            return
        try:
            if self.started:
                self._run(["pg_ctl", "stop", "-w", "-m", "fast", "-D",
                           self.data])
        finally:
            self.started = False
            shutil.rmtree(self.dir, ignore_errors=True)


def main(argv):
    """start: start a server, print its dir; stop DIR: stop that one."""
    if argv == ["start"]:
        why = missing()
        if why:
            print("tests/pgserver.py: cannot start PostgreSQL: %s" % why,
                  file=sys.stderr)
            return 1
        print(Server().start().dir)
        return 0
    if len(argv) == 2 and argv[0] == "stop":
        server = Server(argv[1])
        server.external = False
        server.stop()
        return 0
    print("usage: tests/pgserver.py start | stop DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
