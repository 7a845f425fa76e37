"""The dashboard's pages as one function of a request: App.respond(method,
target) gives (status, headers, body). web/serve puts it behind an HTTP
server; web/site calls it for every page it links and writes the bodies.

The pages (web/templates/) are rendered with Jinja2, every value escaped;
their state is their URL's query (a link reproduces the view), which the
scripts of web/static/app.js read and write. Two link styles: `serve`
(/compare?a=..&b=..) and `site` (compare--A--B.html, a file per page;
the graph's and the filters' state stays a query the script reads).

What it serves besides pages: the charts' series as JSON, the files of
results dirs the store names (never a path outside them), a run's
REPORT.md made on first request (analysis/report and plots/draw, into
the cache), and the static scripts, Chart.js from Debian's libjs-chart.js.
"""
import hashlib
import json
import math
import mimetypes
import os
import re
import subprocess
import sys
import threading
import time
from urllib.parse import parse_qs, quote, unquote, urlsplit

import jinja2
import markdown
from markdown.treeprocessors import Treeprocessor

from analysis.comparison import pathkeys, profile as profiles
from analysis.results.load import FormatError, Results
from analysis.sections import wherefrom
from lib import ROOT, hostinfo
from lib import store
from lib.format import rawfiles
from web import data

HERE = os.path.dirname(os.path.abspath(__file__))
CHART_JS = "/usr/share/javascript/chart.js/chart.min.js"
STATIC = {"app.js": os.path.join(HERE, "static", "app.js"),
          "style.css": os.path.join(HERE, "static", "style.css"),
          "chart.js": CHART_JS}
PAGES = ("overview", "graph", "compare", "findings", "run", "robot")
HEADERS = [
    ("Content-Security-Policy", "default-src 'none'; script-src 'self'; "
     "style-src 'self'; img-src 'self'; connect-src 'self'; "
     "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer")]
TOP_FUNCTIONS = 20
# answers memoized() keeps (a compare page's table takes 0.1-0.3 s)
MEMO = 512


class Response:
    def __init__(self, status, body, ctype="text/html; charset=utf-8",
                 headers=()):
        self.status = status
        self.body = body.encode() if isinstance(body, str) else body
        self.headers = [("Content-Type", ctype)] + HEADERS + list(headers)


class NotFound(Exception):
    """A 404, the message says what is missing."""


def enc(text):
    """A URL component as JavaScript's encodeURIComponent writes it."""
    return quote(str(text), safe="!*'()")


def query(items):
    """The query part of a URL of (name, value) items ('' when none)."""
    text = "&".join("%s=%s" % (k, enc(v)) for k, v in items)
    return "?" + text if text else ""


class App:
    """The dashboard over the store at url (default: the store's default)
    and the results dirs under results (default: the checkout's), its
    links in mode's style ("serve" or "site")."""

    def __init__(self, url=None, results=None, mode="serve"):
        self.url = url or store.default_url()
        self.results = os.path.realpath(results or os.path.join(
            ROOT, "results"))
        self.mode = mode
        self.reports = os.path.join(hostinfo.cache_dir(), "dashboard")
        self.local = threading.local()
        self.lock = threading.Lock()            # the memo's
        self.report_lock = threading.Lock()     # one REPORT.md at a time
        self.memo = {}
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(os.path.join(HERE, "templates")),
            autoescape=True, undefined=jinja2.StrictUndefined)
        self.env.globals.update(link=self.link, STATES=data.STATES)

    # -- links --------------------------------------------------------------

    def link(self, page, **params):
        """The URL of a page (or data, file) with its query, in this
        App's link style; a relative one in a site."""
        params = {k: v for k, v in params.items() if v not in (None, "")}
        if page == "report-files":
            return ("" if self.mode == "site" else "/") + "report-files/" + \
                params["key"]
        if self.mode == "site":
            if page == "overview":
                return "index.html"
            if page == "files":
                return "files/" + quote(params["path"])
            if page in ("graph", "findings"):     # state the script reads
                return page + ".html" + query(sorted(params.items()))
            return quote(site_name(page, params))
        if page == "overview":
            return "/"
        if page == "files":
            return "/files/" + quote(params["path"])
        return "/" + page + query(params.items())

    # -- the store ------------------------------------------------------------

    def db(self):
        """This thread's connection to the store."""
        db = getattr(self.local, "db", None)
        if db is None:
            db = self.local.db = store.connect(self.url)
        return db

    def memoized(self, name, fn):
        """fn()'s answer, kept until the store changes (data.fingerprint)."""
        key = (name, data.fingerprint(self.db()))
        with self.lock:
            if key in self.memo:
                return self.memo[key]
        value = fn()
        with self.lock:
            self.memo = {k: v for k, v in self.memo.items()
                         if k[1] == key[1]}
            while len(self.memo) >= MEMO:       # the oldest first
                del self.memo[next(iter(self.memo))]
            self.memo[key] = value
        return value

    # -- requests -------------------------------------------------------------

    def respond(self, method, target):
        """The Response to a request line's method and target."""
        if method not in ("GET", "HEAD"):
            return Response(405, "%s is refused: this server only reads "
                            "(GET, HEAD)\n" % method[:20],
                            "text/plain; charset=utf-8",
                            [("Allow", "GET, HEAD")])
        parts = urlsplit(target)
        path = unquote(parts.path)
        if "\0" in path or "\\" in path or any(
                seg in (".", "..") for seg in path.split("/")):
            return Response(400, "refused: the path has . or .. segments\n",
                            "text/plain; charset=utf-8")
        try:
            return self.route(path, parse_qs(parts.query))
        except NotFound as e:
            status, message = 404, str(e)
        except store.StoreError as e:
            status, message = 503, str(e)
        except Exception as e:      # a damaged dir or row: its page says so
            status = 404 if isinstance(e, LookupError) else 500
            message = "%s: %s" % (type(e).__name__, e)
        if path.startswith("/fragment/"):
            # a part of a page that is there: the page says why its part
            # is not (a run without profiles, a dir on another machine)
            return Response(200, self.env.from_string(
                '<p class="error">Not available: {{ m }}</p>').render(
                    m=message))
        return self.error(status, message)

    def route(self, path, q):
        one = {k: v[0] for k, v in q.items()}
        if path in ("/", "/index.html"):
            return self.page("overview", data=self.memoized(
                "overview", lambda: data.overview(self.db())))
        if path == "/graph":
            return self.page("graph", catalog=self.memoized(
                "catalog", lambda: data.catalog(self.db())),
                default=data.DEFAULT_SERIES)
        if path == "/compare":
            return self.compare(one)
        if path == "/findings":
            return self.page("findings", findings=data.findings(self.db()))
        if path == "/robot":
            return self.page("robot", robot=data.robot(self.db()))
        if path == "/run":
            return self.run(one)
        if path == "/data/series":
            return self.json(data.series(self.db(), one.get("workload", ""),
                                         one.get("metric", ""),
                                         one.get("label", "")))
        if path == "/data/search":
            return self.json(data.search_series(self.db(),
                                                one.get("path", "")))
        if path == "/fragment/compare":
            return Response(200, self.memoized(
                ("compare",) + tuple(sorted(one.items())),
                lambda: self.compare_fragment(one)))
        if path == "/fragment/profile":
            return Response(200, self.profile_fragment(one))
        if path == "/fragment/report":
            return Response(200, self.report_fragment(one.get("run", "")))
        if path == "/favicon.ico":
            return Response(204, b"", "image/x-icon")
        if path.startswith("/static/"):
            return self.static(path[len("/static/"):])
        if path.startswith("/report-files/"):
            return self.report_file(path[len("/report-files/"):])
        if path.startswith("/files/"):
            return self.file(path[len("/files/"):])
        raise NotFound("no page %s" % path)

    def nav(self):
        """[(page, link)] of the menu: Compare and Run open the newest
        run's (its first kernel against its baseline)."""
        def newest():
            run = data.newest_run(self.db())
            if run is None:
                return None
            return run["path"], run["baseline"], data.first_label(
                self.db(), run["path"])
        try:
            run = self.memoized("newest", newest)
        except store.StoreError:
            run = None
        links = {"overview": self.link("overview"),
                 "graph": self.link("graph"),
                 "findings": self.link("findings"),
                 "robot": self.link("robot"),
                 "compare": self.link("overview"),
                 "run": self.link("overview")}
        if run:
            links["run"] = self.link("run", run=run[0])
            if run[2]:
                links["compare"] = self.link("compare", run=run[0],
                                             a=run[1], b=run[2])
        return [(p, links[p]) for p in PAGES]

    def page(self, name, status=200, **values):
        config = {"mode": self.mode, "page": name}
        html = self.env.get_template(name + ".html").render(
            config=config, nav=self.nav(), current=name, **values)
        return Response(status, html)

    def error(self, status, message):
        html = self.env.get_template("error.html").render(
            config={"mode": self.mode, "page": "error"}, current="",
            nav=self.nav(), status=status, message=message)
        return Response(status, html)

    def json(self, value):
        """A JSON answer (NaN and infinities, which JSON lacks, as
        null)."""
        return Response(200, json.dumps(finite(value), default=str,
                                        allow_nan=False), "application/json")

    # -- pages ------------------------------------------------------------

    def sides(self, one):
        """(what, workloads) of a compare request: what is {"a", "b"} two
        runs, or {"run", "a", "b"} two labels of a run; workloads the
        [(workload, a's run, b's run)] they share."""
        db = self.db()
        a, b = one.get("a", ""), one.get("b", "")
        if one.get("run"):
            run = one["run"]
            labels = data.labels(db, run)
            for label in (a, b):
                if label not in labels:
                    raise NotFound("%s has no label %r: compare?run=RUN "
                                   "wants a=LABEL and b=LABEL of %s" % (
                                       run, label, ", ".join(labels)))
            return {"run": run, "a": a, "b": b}, data.shared_workloads(
                db, run, run)
        if not (a and b):
            raise NotFound("compare wants two runs, a=RUN and b=RUN, or "
                           "two labels of a run, run=RUN with a=LABEL and "
                           "b=LABEL")
        return {"a": a, "b": b}, data.shared_workloads(db, a, b)

    def compare(self, one):
        """The compare page: a section per shared workload, each filled
        by its fragment (compare_fragment) as the page loads."""
        what, shared = self.sides(one)
        title = ("%s: %s against %s" % (what["run"], what["b"], what["a"])
                 if "run" in what else "%s against %s" % (what["b"],
                                                          what["a"]))
        workloads = []
        for w, pa, pb in shared:
            if "run" in what:
                specs = ("%s:%s" % (pa, what["a"]),
                         "%s:%s" % (pb, what["b"]))
            else:       # the functions of the first kernel but the baseline
                label = data.first_label(self.db(), pb)
                specs = ("%s:%s" % (pa, label), "%s:%s" % (pb, label))
            workloads.append({
                "workload": w, "a": pa, "b": pb,
                "href": self.link("fragment/compare", workload=w,
                                  metrics="throughput", **what),
                "counters": self.link("fragment/compare", workload=w,
                                      metrics="counters", **what),
                "profile": {"a": specs[0], "b": specs[1],
                            "href": self.link("fragment/profile",
                                              a=specs[0], b=specs[1])}})
        return self.page("compare", title=title, workloads=workloads)

    def compare_fragment(self, one):
        """One workload's table of a compare page: its throughput metrics
        (metrics=throughput, loaded with the page) or its counters
        (metrics=counters, loaded when opened)."""
        what, shared = self.sides(one)
        w = one.get("workload", "")
        which = one.get("metrics", "throughput")
        if which not in ("throughput", "counters"):
            raise NotFound("metrics=%s: throughput or counters" % which)
        runs = [(pa, pb) for name, pa, pb in shared if name == w]
        if not runs:
            raise NotFound("the two share no workload %s" % w)
        (pa, pb), = runs
        if "run" in what:
            d = data.compare_labels(self.db(), pb, what["a"], what["b"], w,
                                    which)
        else:
            d = data.compare_runs(self.db(), pa, pb, w, which)
        d["which"] = which
        return self.env.get_template("compare_workload.html").render(w=d)

    def run(self, one):
        path = one.get("run", "")
        if not path:
            raise NotFound("run wants run=PATH (a results dir, as the store "
                           "names it)")
        page = data.run_page(self.db(), path)
        page["files"], page["problem"] = self.listing(path)
        return self.page("run", **page)

    def listing(self, path):
        """(files, problem) of a run's dir: its files and raw files, or
        why they cannot be listed."""
        try:
            d = self.dir_of(path)
            with open(os.path.join(d, "meta.json")) as f:
                json.load(f)
            if not os.path.isfile(os.path.join(d, "runs.csv")):
                raise FormatError("no runs.csv")
            top = sorted(n for n in os.listdir(d)
                         if os.path.isfile(os.path.join(d, n))
                         and n != rawfiles.ARCHIVE)
            raw = []
            if rawfiles.isfile(os.path.join(d, rawfiles.ARCHIVE)) or \
                    os.path.isdir(os.path.join(d, rawfiles.RAW)):
                raw = ["raw/" + n for n in rawfiles.listdir(
                    os.path.join(d, rawfiles.RAW))]
            return [(n, self.link("files", path="%s/%s" % (path, n)))
                    for n in top + raw], ""
        except Exception as e:      # a damaged dir: its own page says so
            return [], "the results dir cannot be read: %s" % e

    # -- files ------------------------------------------------------------

    def dir_of(self, path):
        """The real dir of a run path, inside the results root."""
        d = os.path.realpath(os.path.join(self.results, path))
        if not d.startswith(self.results + os.sep) or not os.path.isdir(d):
            raise NotFound("%s is not a results dir under %s" % (
                path, self.results))
        return d

    def file(self, rest):
        """A file of a results dir the store names: runs' paths are
        matched longest first, the rest is a file in that dir or its
        raw files."""
        db = self.db()
        parts = rest.split("/")
        for cut in range(len(parts) - 1, 0, -1):
            run = "/".join(parts[:cut])
            if db.scalar("SELECT count(*) FROM run WHERE path = ?", [run]):
                break
        else:
            raise NotFound("no results dir in /files/%s" % rest)
        d = self.dir_of(run)
        name = "/".join(parts[cut:])
        full = os.path.realpath(os.path.join(d, name))
        if not full.startswith(d + os.sep):
            raise NotFound("outside the results dir")
        if os.path.isfile(full):
            with open(full, "rb") as f:
                body = f.read()
        elif parts[cut] == rawfiles.RAW and rawfiles.isfile(full):
            body = rawfiles.read_bytes(full)
        else:
            raise NotFound("%s has no file %s" % (run, name))
        return Response(200, body, text_type(name), [
            ("Content-Disposition", "inline; filename=\"%s\"" % quote(
                os.path.basename(name)))])

    def static(self, name):
        if name not in STATIC:
            raise NotFound("no static file %s" % name)
        with open(STATIC[name], "rb") as f:
            body = f.read()
        return Response(200, body, "text/css" if name.endswith(".css")
                        else "text/javascript")

    # -- fragments ------------------------------------------------------------

    def profile_fragment(self, one):
        """profile-diff's table of two DIR:LABEL sides, as HTML."""
        specs = []
        for key in ("a", "b"):
            path, _, label = one.get(key, "").rpartition(":")
            specs.append((Results(self.dir_of(path)), label or None))
        try:
            d = profiles.compare(specs[0], specs[1])
        except profiles.UnknownLabel as e:
            raise NotFound(str(e))
        return render_markdown(wherefrom.text(d, TOP_FUNCTIONS) + "\n" +
                               keys_text(specs[1][0], d))

    def report_fragment(self, path):
        """A run's REPORT.md as HTML, made on first request (a few
        seconds: analysis/report and plots/draw) and kept in the cache,
        by the run's content hash."""
        db = self.db()
        row = db.query("SELECT content_hash, analysed FROM run WHERE path "
                       "= ?", [path])
        if not row:
            raise NotFound("no run %s in the store" % path)
        if not row[0]["analysed"]:
            return "<p>Not analysed: <code>jlbench analyze</code> it first."\
                   "</p>"
        key = hashlib.sha256(("%s\0%s" % (path, row[0]["content_hash"]))
                             .encode()).hexdigest()[:20]
        out = os.path.join(self.reports, key)
        report = os.path.join(out, "REPORT.md")
        with self.report_lock:      # each takes both CPUs for seconds
            if not os.path.isfile(report):
                make_report(self.dir_of(path), out)
        with open(report) as f:
            text = f.read()
        return render_markdown(text, images=self.link("report-files",
                                                      key=key))

    def report_file(self, rest):
        """A file of a REPORT.md made by report_fragment: KEY/REPORT.md
        or KEY/img/NAME."""
        key, _, name = rest.partition("/")
        folder = name.rpartition("/")[0]
        if not re.fullmatch(r"[0-9a-f]{20}", key) or \
                folder not in ("", "img"):
            raise NotFound("no report file %s" % rest)
        full = os.path.join(self.reports, key, name)
        if not os.path.isfile(full):
            raise NotFound("no report file %s" % rest)
        with open(full, "rb") as f:
            return Response(200, f.read(), text_type(name))


def finite(value):
    """value with every NaN or infinite float (in lists and dicts) None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def keys_text(res, d):
    """Markdown: the static keys the sites of the listed functions test,
    named from res's jump-label build (when it is in this machine's
    cache)."""
    keys = pathkeys.keys_at(res, [r["name"] for r in d.rows(TOP_FUNCTIONS)
                                  if r["kind"] == "function"])
    if keys is None:
        return ("The static keys on the changed path are named from the "
                "%s build's vmlinux, which is not in this machine's cache."
                % pathkeys.JUMP)
    if not keys:
        return "No listed function has static-key sites."
    return "Static keys on the changed path (the keys the listed " \
        "functions' sites test, from the %s build):\n\n" % pathkeys.JUMP + \
        "| function | static keys at its sites |\n|---|---|\n" + "".join(
            "| `%s` | %s |\n" % (name, ", ".join("`%s`" % k for k in ks))
            for name, ks in keys.items())


def site_name(page, params):
    """A page's file in a site: the page and its parameters' values, each
    encoded (`-` too), joined by `--`."""
    ext = ".json" if page.startswith("data/") else ".html"
    return "--".join([page.replace("/", "-")] + [
        enc(params[k]).replace("-", "%2D") for k in sorted(params)]) + ext


def text_type(name):
    """The Content-Type a file is served with: SVG and the formats of
    results dirs as they are, everything else as plain text or bytes
    (never HTML: a results file is never rendered as a page)."""
    if name.endswith(".svg"):
        return "image/svg+xml"
    if name.endswith(".png"):
        return "image/png"
    if name.endswith(".json"):
        return "application/json"
    guess = mimetypes.guess_type(name)[0] or ""
    if guess.startswith("text/") or name.endswith((".csv", ".log", ".md",
                                                   ".tsv", ".txt", ".sh",
                                                   ".diff", ".config")):
        return "text/plain; charset=utf-8"
    return "application/octet-stream"


def make_report(results_dir, out):
    """REPORT.md of an analysed results dir and its figures, into out
    (written to a temporary dir first: a half-made report is never
    read)."""
    tmp = out + ".tmp%d" % os.getpid()
    os.makedirs(tmp, exist_ok=True)
    img = os.path.join(tmp, "img")
    for cmd in ([os.path.join(ROOT, "plots", "draw"), "--out", img,
                 results_dir],
                [os.path.join(ROOT, "analysis", "report"), "--out",
                 os.path.join(tmp, "REPORT.md"), "--plots", img,
                 results_dir]):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise OSError("%s failed: %s" % (
                os.path.relpath(cmd[0], ROOT), p.stderr.strip()[-500:]))
    os.rename(tmp, out)


class _Links(Treeprocessor):
    """Links and images of rendered Markdown: anchors stay, figures go
    to the report's files, http(s) links stay, any other is text."""

    def __init__(self, md, images):
        super().__init__(md)
        self.images = images

    def run(self, root):
        for el in root.iter():
            if el.tag == "img":
                src = el.get("src", "")
                if self.images and src.startswith("img/") and ".." not in src:
                    el.set("src", self.images + "/" + src)
                else:
                    el.tag, el.text = "span", el.get("alt", "")
                    el.attrib.clear()
            elif el.get("style"):
                # a table's alignment (inline styles are not allowed by
                # the pages' Content-Security-Policy)
                if "right" in el.attrib.pop("style"):
                    el.set("class", "num")
            if el.tag == "a":
                href = el.get("href", "")
                if not href.startswith(("#", "https://", "http://")):
                    el.attrib.pop("href", None)


def render_markdown(text, images=""):
    """Markdown as HTML with raw HTML escaped (never passed through)."""
    md = markdown.Markdown(extensions=["tables", "toc"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    md.treeprocessors.register(_Links(md, images), "jlbench_links", 0)
    return md.convert(text)


def warn(message):
    sys.stderr.write("%s dashboard: %s\n" % (
        time.strftime("%Y-%m-%d %H:%M:%S"), message))
