"""The dashboard (web/): its pages over the committed results' store, the
figures they show against REPORT.md's and analysis/compare's, and what
makes it safe to expose: loopback, GET and HEAD only, no path out of the
results dirs, a bounded number of threads, a damaged dir confined to its
own page. The browser's view is tests/test_dashboard_browser.py's."""
import json
import os
import shutil
import socket
import sys
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import unquote

import pytest

from conftest import PYTHON, ROOT, run
import webserver

sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "analysis"))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from analysis.comparison import runs as two_runs  # noqa: E402
from analysis.results.load import Results  # noqa: E402
from analysis.stats import calibrate  # noqa: E402
from lib import store  # noqa: E402
from web import app, data, server  # noqa: E402
from web.stored import StoredRun  # noqa: E402
import synth  # noqa: E402
import synthdb  # noqa: E402

pytestmark = pytest.mark.xdist_group("dashboard")
RUN = "20261206T223428Z-7bf1103"
OLDER = "20261206T082056Z-7ade8bb"


@pytest.fixture(scope="module")
def committed(committed_store):
    return committed_store


@pytest.fixture(scope="module")
def dashboard(committed):
    return app.App(committed)


def get(dashboard, target):
    r = dashboard.respond("GET", target)
    assert r.status == 200, (target, r.status, r.body[-2000:])
    return r.body.decode()


def report_cell(label, column):
    """A cell of REPORT.md's first table (the 2011 table)."""
    with open(ROOT / "REPORT.md") as f:
        for line in f:
            if line.startswith("| `%s` |" % label):
                return line.split(" | ")[column].strip()
    raise AssertionError("REPORT.md has no row of %s" % label)


def test_overview_answers_as_report_md(dashboard):
    body = get(dashboard, "/")
    for label in ("jump-label", "plain-read"):
        change = report_cell(label, 4)          # here vs atomic [95% CI]
        row = body.split('data-label="%s"' % label)[1].split("</tr>")[0]
        assert change in row, (label, change, row)
    assert "815.6" in body and "+1.94%" in body
    assert "atomic-read.aa" in body
    across = json.loads(body.split('id="across-data">')[1].split(
        "</script>")[0])
    assert {r["workload"] for r in across} >= {"tbench", "fault", "pipe"}
    assert all(r["pct_ci_lo"] <= r["pct_change"] <= r["pct_ci_hi"]
               for r in across if r["pct_ci_lo"] is not None)


def test_a_stored_run_compares_as_its_dir(committed):
    """Two runs compared from the store's rows give analysis/compare's
    rows from the dirs, figure for figure."""
    with store.connect(committed) as db:
        stored = [StoredRun(db, p) for p in (OLDER, RUN)]
    dirs = [Results(str(ROOT / "results" / p)) for p in (OLDER, RUN)]
    cal = calibrate.for_run(dirs[1].meta)
    want = [(r.name, r.label, r.c["pct_change"], r.c["pct_ci_lo"], r.mark)
            for r in two_runs.rows(*dirs, cal)]
    got = [(r.name, r.label, r.c["pct_change"], r.c["pct_ci_lo"], r.mark)
           for r in two_runs.rows(*stored, cal)]
    assert len(got) > 20
    assert got == want
    assert two_runs.differences(*stored) == two_runs.differences(*dirs)


def test_every_page_answers(dashboard):
    assert "ops_per_s" in get(dashboard, "/graph")
    series = json.loads(get(dashboard, "/data/series?workload=tbench&"
                            "metric=ops_per_s&label=jump-label"))
    assert RUN in [s["run"] for s in series]
    page = get(dashboard, "/compare?a=%s&b=%s" % (OLDER, RUN))
    assert page.count('class="workload"') >= 15
    table = get(dashboard, "/fragment/compare?a=%s&b=%s&workload=tbench"
                % (OLDER, RUN))
    assert "ops_per_s (headline)" in table and "what differs:" in table
    assert "kernel_insns/op" not in table
    counters = get(dashboard, "/fragment/compare?a=%s&b=%s&workload=tbench&"
                   "metrics=counters" % (OLDER, RUN))
    assert "kernel_insns/op" in counters and "headline" not in counters
    labels = get(dashboard, "/fragment/compare?run=%s&a=atomic-read&"
                 "b=jump-label&workload=tbench" % RUN)
    assert report_cell("jump-label", 4) in labels
    functions = get(dashboard, "/fragment/profile?a=%s:atomic-read&"
                    "b=%s:jump-label" % (RUN, RUN))
    assert "paired median" in functions and "TOTAL, kernel" in functions
    assert "Static keys on the changed path" in functions or \
        "not in this machine's cache" in functions
    run_page = get(dashboard, "/run?run=%s" % RUN)
    assert "raw/001-" in run_page and "fragment/report" in run_page
    assert "No finding" in get(dashboard, "/findings")
    assert dashboard.respond("GET", "/run?run=nothing").status == 404


def test_the_graph_catalog_is_every_distinct_value(committed):
    with store.connect(committed) as db:
        cat = data.catalog(db)

        def column(sql):
            return sorted(r[0] for r in db.execute(sql).fetchall())
        assert cat["metrics"] == column("SELECT DISTINCT metric FROM "
                                        "comparison")
        assert cat["labels"] == column("SELECT DISTINCT label FROM "
                                       "comparison")
        assert cat["workloads"] == column("SELECT DISTINCT workload FROM "
                                          "run")


def test_pages_over_a_postgresql_store(pg_server):
    """The same pages over a PostgreSQL store (a synthetic one)."""
    url = pg_server.new_database()
    made = synthdb.make(url, runs=60, seed=3)
    dashboard = app.App(url)
    a, b = made["pair"]
    assert b in get(dashboard, "/")
    assert "ops_per_s (headline)" in get(
        dashboard, "/fragment/compare?a=%s&b=%s&workload=tbench" % (a, b))
    series = json.loads(get(dashboard, "/data/series?workload=tbench&"
                            "metric=ops_per_s&label=jump-label"))
    assert b in [s["run"] for s in series]
    findings = get(dashboard, "/findings")
    assert findings.count("data-state=") == len(made["finding_ids"])


def test_a_file_of_a_run_and_its_packed_raw_files(dashboard):
    r = dashboard.respond("GET", "/files/%s/meta.json" % RUN)
    assert r.status == 200 and json.loads(r.body)["created_utc"]
    names = [n for n in get(dashboard, "/run?run=%s" % RUN).split('"')
             if n.startswith("/files/%s/raw/" % RUN)]
    assert names
    r = dashboard.respond("GET", names[0])
    assert r.status == 200 and r.body
    assert dict(r.headers)["Content-Type"] != "text/html; charset=utf-8"


TRAVERSALS = [
    "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
    "/files/%2e%2e%2f%2e%2e%2fetc/passwd", "/files/..%2f..%2fetc%2fpasswd",
    "/files/" + RUN + "/../../../../etc/passwd",
    "/files/" + RUN + "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/files//etc/passwd", "/files/%2fetc%2fpasswd",
    "/static/..%2f..%2f..%2fetc%2fpasswd", "/static/%2e%2e/app.py",
    "/report-files/..%2f..%2f..%2fetc%2fpasswd",
    "/files/" + RUN + "/raw/..%5c..%5c..%5cetc%5cpasswd",
    "/files/%252e%252e/%252e%252e/etc/passwd", "/files/%00/etc/passwd"]


def raw_request(url, line):
    """The status line and body of one request sent as written (a client
    library would normalise the path first)."""
    host, port = url.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(("%s HTTP/1.0\r\nHost: x\r\n\r\n" % line).encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), body


@pytest.fixture(scope="module")
def served(committed):
    with webserver.Server(committed) as srv:
        yield srv


def test_paths_outside_the_results_dirs_are_refused(served):
    for target in TRAVERSALS:
        status, body = raw_request(served.url, "GET " + target)
        assert status.split()[1] in ("400", "404"), (target, status)
        assert b"root:" not in body, target
    status, body = raw_request(served.url, "GET /files/%s/meta.json" % RUN)
    assert status.split()[1] == "200" and b"created_utc" in body


def test_only_get_and_head_are_answered(served):
    for method in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS"):
        status, body = raw_request(served.url, method + " /")
        assert status.split()[1] == "405", (method, status)
        assert b"refused" in body
    status, body = raw_request(served.url, "HEAD /")
    assert status.split()[1] == "200" and body == b""


def test_it_binds_to_loopback_unless_told(served):
    assert served.url.startswith("http://127.0.0.1:")
    p = run([PYTHON, webserver.SERVE, "--help"])
    assert "default: 127.0.0.1" in p.stdout


def test_two_hundred_requests_at_once_are_all_answered(served):
    pid = served.proc.pid
    targets = ["/", "/graph", "/findings", "/run?run=" + RUN,
               "/data/series?workload=tbench&metric=ops_per_s&"
               "label=jump-label"] * 40
    threads = []

    def one(target):
        status, body = raw_request(served.url, "GET " + target)
        threads.append(len(os.listdir("/proc/%d/task" % pid)))
        return status.split()[1], len(body)
    with ThreadPoolExecutor(max_workers=200) as pool:
        answers = list(pool.map(one, targets, timeout=300))
    assert [s for s, _ in answers] == ["200"] * 200
    assert all(n > 1000 for _, n in answers)
    # the main thread and the pool's workers, never a thread a request
    assert max(threads) <= server.WORKERS + 2, max(threads)


def test_strings_from_data_are_text_not_markup(tmp_path):
    """A commit subject and a variant that are markup show as text."""
    root = tmp_path / "results"
    evil = '"><img src=x onerror=alert(1)>'
    synth.make_results(str(root), {"jump-label": [1.0, 1.02, 1.01],
                                   "atomic-read": [1.0, 0.99, 1.0],
                                   evil: [1.0, 1.01, 1.0]},
                       variant_of={evil: "jump-label"})
    db = webserver.rebuild(str(tmp_path / "s.db"), root)
    with store.connect(db) as s:
        s.write(lambda w: w.execute(
            "UPDATE harness SET git_commit = ?",
            ["<script>alert(1)</script>"]))
    dashboard = app.App(db, str(root))
    name = os.listdir(root)[0]
    for target in ("/", "/run?run=" + name, "/graph",
                   "/fragment/compare?run=%s&a=atomic-read&b=%s&workload="
                   "tbench" % (name, app.enc(evil))):
        body = get(dashboard, target)
        assert "<img src=x" not in body and "<script>alert" not in body
    assert "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in get(
        dashboard, "/run?run=" + name)


def test_a_damaged_dir_shows_its_error_on_its_own_pages(tmp_path):
    root = tmp_path / "results"
    good = synth.make_results(str(root), {"jump-label": [1.0, 1.02, 1.01],
                                          "atomic-read": [1.0, 0.99, 1.0]},
                              name="20261201T000000Z-abc1234")
    bad = synth.make_results(str(root), {"jump-label": [1.0, 1.02, 1.01],
                                         "atomic-read": [1.0, 0.99, 1.0]},
                             name="20261202T000000Z-abc1234")
    db = webserver.rebuild(str(tmp_path / "s.db"), root)
    shutil.rmtree(bad)
    os.makedirs(bad)
    with open(os.path.join(bad, "meta.json"), "w") as f:
        f.write('{"created_utc": ')      # half written
    dashboard = app.App(db, str(root))
    page = get(dashboard, "/run?run=" + os.path.basename(bad))
    assert 'id="run-error"' in page and "cannot be read" in page
    assert get(dashboard, "/run?run=" + os.path.basename(good))
    assert get(dashboard, "/")
    # a damaged row: its part of a page says so, the page answers
    with store.connect(db) as s:
        s.write(lambda w: w.execute("UPDATE run SET protocol = '{' WHERE "
                                    "path = ?", [os.path.basename(bad)]))
    part = get(dashboard, "/fragment/compare?a=%s&b=%s&workload=tbench" % (
        os.path.basename(good), os.path.basename(bad)))
    assert "Not available: JSONDecodeError" in part
    assert dashboard.respond("GET", "/compare?a=%s&b=%s" % (
        os.path.basename(good), os.path.basename(bad))).status == 200


def test_site_writes_every_linked_page(tmp_path):
    root = tmp_path / "results"
    for name in ("20261201T000000Z-abc1234", "20261202T000000Z-abc1234"):
        path = synth.make_results(str(root), VALUES, name=name)
        run([PYTHON, str(ROOT / "analysis" / "analyze"), "--no-history",
             path])
    db = webserver.rebuild(str(tmp_path / "s.db"), root)
    out = tmp_path / "site"
    run([PYTHON, str(ROOT / "web" / "site"), "--db", db, "--results",
         str(root), "--out", str(out), "--no-reports"])
    names = set(os.listdir(out))
    assert {"index.html", "graph.html", "findings.html"} <= names
    serve = get(app.App(db, str(root)), "/")
    index = (out / "index.html").read_text()
    # the same page, its links a site's
    assert serve.split("<main>")[1].split("<a ")[0] == \
        index.split("<main>")[1].split("<a ")[0]
    hrefs = set()
    for name in names:
        if name.endswith(".html"):
            hrefs |= {h.split('"')[0].split("?")[0] for h in (
                out / name).read_text().split('href="')[1:]}
    # (--no-reports: the run pages say REPORT.md is not there)
    local = [h for h in hrefs if not h.startswith((
        "#", "http", "fragment-report"))]
    assert any(h.startswith("compare--") for h in local)
    assert any(h.startswith("files/") for h in local)
    for href in local:
        assert (out / unquote(href)).is_file(), href
    with store.connect(db) as s:
        series = s.scalar("SELECT count(*) FROM (SELECT DISTINCT "
                          "c.metric, c.label FROM comparison c) AS x")
    assert series > 10
    assert sum(n.startswith("data-series--") for n in names) == series


VALUES = {"jump-label": [1.0, 1.02, 1.01, 1.02, 1.015],
          "atomic-read": [1.0, 0.99, 1.0, 0.995, 1.0]}


def test_robot_page_shows_robots_queue_and_ranges(tmp_path, dashboard):
    """/robot: each robot's heartbeat and step in flight, the queue and
    the ranges done, escaped; a store without a robot says so."""
    from lib.store import robot as ledger
    assert "No robot has run on this store." in get(dashboard, "/robot")
    url = str(tmp_path / "s.db")
    with store.connect(url) as db:
        ledger.beat(db, "host:1", "main/range-2: measuring c0123 (x), ETA "
                    "2026-12-07T10:00:00Z <b>")
        ledger.queue(db, "/r", "main", None, "b" * 40, "a" * 40)
        ledger.queue(db, "/r", "main", "b" * 40, "c" * 40, "b" * 40,
                     "force-pushed: <i>")
        r = ledger.take_range(db, "host:1")
        ledger.set_range(db, r["id"], state="done", note="1 confirmed")
    page = get(app.App(url), "/robot")
    assert "measuring c0123 (x), ETA 2026-12-07T10:00:00Z &lt;b&gt;" in page
    assert "<code>aaaaaaaaaaaa..bbbbbbbbbbbb</code>" in page
    assert "1 confirmed" in page
    assert "<code>bbbbbbbbbbbb..cccccccccccc</code>" in page and \
        "force-pushed: &lt;i&gt;" in page and ">queued<" in page
