"""The dashboard's test server: jlbench serve started on a store, on a free
loopback port, stopped at the end (tests/test_dashboard*.py)."""
import os
import re
import subprocess
import time

from conftest import PYTHON, ROOT

SERVE = str(ROOT / "web" / "serve")


def rebuild(db, root=None):
    """The store at db made from the results dirs under root (default:
    the committed results/); db."""
    subprocess.run([PYTHON, str(ROOT / "lib" / "store" / "db"), "rebuild",
                    "--db", db, "--root", str(root or ROOT / "results")],
                   check=True, capture_output=True, text=True)
    return db


class Server:
    """`jlbench serve --db DB --port 0` as a context manager: .url is its
    base URL, .log its stderr so far."""

    def __init__(self, db, results=None, cache=None):
        self.db, self.results, self.cache = db, results, cache

    def __enter__(self):
        cmd = [PYTHON, SERVE, "--db", self.db, "--port", "0"]
        if self.results:
            cmd += ["--results", str(self.results)]
        env = dict(os.environ)
        if self.cache:
            env["JLBENCH_CACHE"] = str(self.cache)
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True,
                                     env=env)
        lines = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"on (http://127\.0\.0\.1:\d+)/", line)
            if m:
                self.url = m.group(1)
                return self
        self.proc.kill()
        raise AssertionError("jlbench serve did not start:\n" + "".join(
            lines))

    def __exit__(self, *exc):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
