"""The dashboard in a real browser: headless Chromium (Debian's chromium
and chromium-driver, through python3-selenium) against jlbench serve on
the committed results' store and on a synthetic one (tests/fixtures/
synthdb.py, with strings made to break out of HTML).

Each page is loaded and its figures found in the DOM; a graph's points
and a finding are clicked through to their compare pages; a URL with
state is reloaded; any JavaScript console error fails the test. Every
page's screenshot is kept: in $JLBENCH_SCREENSHOTS when set (docs/
dashboard.md's come from `tests/dashboard-screenshots`), else in the
test's tmp dir."""
import json
import os
import sys
import time
import urllib.request
from urllib.parse import quote

import pytest

from conftest import ROOT
import webserver

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
import synthdb  # noqa: E402

# one worker: the committed store is made once for both dashboard modules
pytestmark = pytest.mark.xdist_group("dashboard")
RUN = "20261206T223428Z-7bf1103"
OLDER = "20261206T082056Z-7ade8bb"
CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"
WAIT = 60


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    path = os.environ.get("JLBENCH_SCREENSHOTS") or str(
        tmp_path_factory.mktemp("screenshots"))
    os.makedirs(path, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium that keeps its console's messages."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.skip("no %s or %s: lib/deps installs chromium and "
                    "chromium-driver" % (CHROMIUM, DRIVER))
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    opts = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--window-size=1280,1000",
                "--disable-extensions"):
        opts.add_argument(arg)
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    driver.set_page_load_timeout(WAIT)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def committed(committed_store, tmp_path_factory):
    """jlbench serve on the committed results' store, with a cache of its
    own (the run page's REPORT.md is made in it)."""
    tmp = tmp_path_factory.mktemp("committed-cache")
    with webserver.Server(committed_store, cache=tmp) as srv:
        yield srv


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """jlbench serve on a synthetic store with findings and hostile
    strings; .made is what synthdb.make() says it made."""
    tmp = tmp_path_factory.mktemp("synthetic")
    db = str(tmp / "s.db")
    made = synthdb.make(db, runs=400, seed=7, hostile=True)
    with webserver.Server(db, results=tmp, cache=tmp / "cache") as srv:
        srv.made = made
        yield srv


def console_errors(driver):
    """The console's errors since the last call."""
    return [e["message"] for e in driver.get_log("browser")
            if e["level"] == "SEVERE"]


def wait_for(driver, script, what, timeout=WAIT):
    """The first truthy answer of a JavaScript expression (a return
    statement), polled; fails naming what it waited for."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("waited %d s for %s on %s" % (
        timeout, what, driver.current_url))


def load(driver, url, shots=None, name=None):
    """Open url; fail on a console error; keep a screenshot as name."""
    driver.get(url)
    wait_for(driver, "return document.readyState === 'complete'", "the page")
    return page_done(driver, shots, name)


def page_done(driver, shots=None, name=None):
    """Fail on a console error; keep a screenshot as name (a PNG)."""
    if shots and name:
        path = os.path.join(shots, name + ".png")
        assert driver.save_screenshot(path)
        with open(path, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    errors = console_errors(driver)
    assert not errors, errors


def text(driver, selector):
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); "
        "return e ? e.textContent : null", selector)


def report_change(label):
    """REPORT.md's change of label against atomic-read (its first
    table)."""
    with open(ROOT / "REPORT.md") as f:
        for line in f:
            if line.startswith("| `%s` |" % label):
                return line.split(" | ")[4].strip()
    raise AssertionError("REPORT.md has no row of %s" % label)


def chart_points(driver, canvas="graph-chart"):
    """[[dataset, index, x, y]] of a chart's drawn points (canvas pixels)."""
    return driver.execute_script(
        "const c = Chart.getChart(document.getElementById(arguments[0]));"
        "if (!c) return null; const out = [];"
        "c.data.datasets.forEach((d, i) => c.getDatasetMeta(i).data.forEach("
        "(p, j) => out.push([i, j, p.x, p.y]))); return out;", canvas)


def click_canvas(driver, canvas_id, x, y):
    """A real click at (x, y) of a canvas (its pixels from the top left)."""
    from selenium.webdriver.common.action_chains import ActionChains
    canvas = driver.find_element("id", canvas_id)
    size = canvas.size
    ActionChains(driver).move_to_element_with_offset(
        canvas, int(x - size["width"] / 2), int(y - size["height"] / 2)) \
        .click().perform()


def test_each_page_shows_the_store_figures(browser, committed, shots):
    base = committed.url
    load(browser, base + "/", shots, "overview")
    row = text(browser, '#kernels tr[data-label="jump-label"] .change')
    assert row == report_change("jump-label")
    points = wait_for(browser, "return window.Chart && Chart.getChart("
                      "document.getElementById('across-chart')) && "
                      "Chart.getChart(document.getElementById("
                      "'across-chart')).data.datasets.length",
                      "the across chart")
    assert points == 2
    load(browser, base + "/graph?s=tbench:ops_per_s:jump-label")
    n = wait_for(browser, "return document.querySelectorAll("
                 "'#points tbody tr').length", "the graph's points")
    with urllib.request.urlopen(base + "/data/series?workload=tbench&"
                                "metric=ops_per_s&label=jump-label") as r:
        series = json.load(r)
    assert n == len([r for r in series if r["pct_change"] is not None])
    assert RUN in text(browser, "#points")
    page_done(browser, shots, "graph")
    load(browser, base + "/compare?a=%s&b=%s" % (OLDER, RUN))
    wait_for(browser, "return document.body.dataset.loaded",
             "every workload's table")
    assert "ops_per_s (headline)" in text(browser, "section.workload")
    page_done(browser, shots, "compare")
    load(browser, base + "/run?run=" + RUN)
    wait_for(browser, "return document.querySelector('#report h1')",
             "REPORT.md", timeout=180)
    assert report_change("jump-label") in text(browser, "#report")
    # The figures load after the fragment is in the page: wait for each
    # to finish, then ask whether it drew (a broken one completes too)
    wait_for(browser, "return [...document.querySelectorAll('#report img')]"
             ".every((i) => i.complete)", "the report's figures")
    assert browser.execute_script(
        "const imgs = [...document.querySelectorAll('#report img')]; "
        "return imgs.length > 0 && imgs.every((i) => i.naturalWidth > 0)")
    page_done(browser, shots, "run")


def test_two_graph_points_open_their_compare_page(browser, committed):
    load(browser, committed.url + "/graph?s=tbench:ops_per_s:jump-label")
    points = wait_for(browser, "return document.querySelectorAll("
                      "'#points tbody tr').length && 1", "the points")
    points = chart_points(browser)
    assert len(points) >= 2
    (_, _, x1, y1), (_, _, x2, y2) = points[-2], points[-1]
    click_canvas(browser, "graph-chart", x1, y1)
    wait_for(browser, "return document.getElementById('selection')"
             ".textContent", "the first point's selection")
    click_canvas(browser, "graph-chart", x2, y2)
    wait_for(browser, "return location.pathname === '/compare'",
             "the compare page")
    assert "a=" in browser.current_url and "b=" in browser.current_url
    wait_for(browser, "return document.body.dataset.loaded", "its tables")
    assert "ops_per_s (headline)" in text(browser, "section.workload")
    page_done(browser)


def test_a_finding_opens_its_compare_page(browser, synthetic, shots):
    load(browser, synthetic.url + "/findings", shots, "findings")
    rows = browser.find_elements("css selector", "#findings tbody tr")
    assert len(rows) == len(synthetic.made["finding_ids"])
    link = browser.find_element("css selector", "a.to-compare")
    link.click()
    wait_for(browser, "return location.pathname === '/compare'",
             "the compare page")
    wait_for(browser, "return document.body.dataset.loaded", "its tables")
    assert browser.find_elements("css selector", "table.compare tbody tr")
    page_done(browser)


def test_a_url_with_state_shows_the_same_view_again(browser, committed):
    url = (committed.url + "/graph?s=tbench:ops_per_s:jump-label&"
           "s=tbench:ops_per_s:plain-read&hide=tbench:ops_per_s:plain-read"
           "&y=value")

    def view():
        wait_for(browser, "return document.querySelectorAll("
                 "'#points tbody tr').length", "the points")
        return browser.execute_script(
            "const c = Chart.getChart(document.getElementById("
            "'graph-chart'));"
            "return [location.search, c.data.datasets.map((d) => d.label),"
            "[...document.querySelectorAll('#series-list input')].map("
            "(b) => b.checked), document.getElementById('yaxis').value,"
            "document.querySelector('#points tbody').textContent]")
    load(browser, url)
    first = view()
    assert first[1] == ["tbench:ops_per_s:jump-label"]
    assert first[2] == [True, False] and first[3] == "value"
    browser.refresh()
    assert view() == first
    page_done(browser)
    # the compare page's non-relevant rows, shown by the URL
    load(browser, committed.url + "/compare?a=%s&b=%s&all=1" % (OLDER, RUN))
    wait_for(browser, "return document.body.dataset.loaded", "the tables")
    assert browser.execute_script(
        "return document.getElementById('show-all').checked && "
        "[...document.querySelectorAll('tr.irrelevant')].every("
        "(r) => !r.hidden)")
    page_done(browser)


def test_findings_filters_live_in_the_url(browser, synthetic):
    load(browser, synthetic.url + "/findings?state=confirmed")
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#findings tbody tr')]"
        ".filter((r) => !r.hidden).map((r) => r.dataset.state)")
    assert shown and set(shown) == {"confirmed"}
    browser.refresh()
    assert browser.execute_script(
        "return document.querySelector('#filters [name=state]').value") \
        == "confirmed"
    page_done(browser)


def test_strings_from_data_stay_text(browser, synthetic):
    """A host, a commit subject, a label and a note made of markup show
    as text: no alert, no element of theirs in the DOM."""
    from selenium.common.exceptions import NoAlertPresentException
    hostile = synthetic.made["hostile"]
    strings = hostile["strings"]
    run = hostile["label_runs"][-1]
    for target, shown in (
            ("/findings", [strings["script"], strings["note"]]),
            ("/run?run=" + run, [strings["label"], strings["script"]]),
            ("/compare?run=%s&a=atomic-read&b=%s" % (
                run, quote(strings["label"], safe="")), [strings["label"]]),
            ("/graph?s=" + quote("tbench:ops_per_s:" + strings["label"],
                                 safe=""), [strings["label"]])):
        load(browser, synthetic.url + target)
        wait_for(browser, "return document.body.dataset.loaded",
                 "the page's data")
        with pytest.raises(NoAlertPresentException):
            browser.switch_to.alert.text
        assert not browser.find_elements("css selector", "img[src='x']")
        assert not browser.find_elements("css selector", "main b")
        body = browser.find_element("tag name", "body").text
        for text in shown:
            assert text in body, (target, text)
        page_done(browser)
