"""bench/robot/mail.py: a confirmed finding of the store as a robot's mail
(an mbox a mail reader and git send-email read) and each search's triage
summary, on a synthetic store (tests/fixtures/synthdb.py)."""
import json
import mailbox
import os
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tests" / "fixtures"))
from analysis.sections import fmt  # noqa: E402
from bench.robot import mail  # noqa: E402
from lib import store  # noqa: E402
from lib.store import query  # noqa: E402
import synthdb  # noqa: E402

BRANCH = "linux-next/master"


def test_which_way_is_a_regression():
    assert mail.kind_of_change("kernel_insns_per_op", 2.0) == "regression"
    assert mail.kind_of_change("kernel_insns_per_op", -2.0) == "improvement"
    assert mail.kind_of_change("ops_per_s", 1.0) == "improvement"
    assert mail.kind_of_change("ops_per_s", -1.0) == "regression"
    assert mail.kind_of_change("max_latency_ms", 1.0) == "regression"
    assert mail.kind_of_change("no_such_metric", 1.0) == "change"


def write(db, out, branch):
    """Each confirmed finding's mail (out/REF.mbox) and each search's
    triage summary (out/triage-PATH.md), as the robot writes a range's;
    the paths written."""
    os.makedirs(out, exist_ok=True)
    searches = {s["id"]: s for s in db.query("SELECT * FROM search")}
    found = query.findings(db, state="all")
    written = []
    for f in found:
        if f["state"] == "confirmed":
            path = os.path.join(out, mail.safe(f["ref"]) + ".mbox")
            mail.write_mbox(path, [mail.message(f, searches[f["search_id"]],
                                                branch)])
            written.append(path)
    for sid, s in sorted(searches.items()):
        path = os.path.join(out, "triage-%s.md" % mail.safe(s["path"]))
        with open(path, "w") as fh:
            fh.write(mail.triage(s, [f for f in found
                                     if f["search_id"] == sid], branch))
        written.append(path)
    return written


def test_a_confirmed_finding_is_a_mail_and_each_search_a_triage(tmp_path):
    url = str(tmp_path / "s.db")
    made = synthdb.make(url, runs=60, seed=3, hostile=True)
    out = tmp_path / "mail"
    with store.connect(url) as db:
        written = write(db, str(out), BRANCH)
        found = query.findings(db, state="all")
        searches = db.query("SELECT path FROM search")
    confirmed = [f for f in found if f["state"] == "confirmed"]
    assert confirmed and len(confirmed) == sum(
        s == "confirmed" for s in made["states"].values())
    boxes = sorted(p for p in written if p.endswith(".mbox"))
    assert len(boxes) == len(confirmed)
    f = confirmed[0]
    box = mailbox.mbox(os.path.join(str(out), mail.safe(f["ref"]) +
                                    ".mbox"))
    (msg,) = list(box)
    sha, title = f["revision"].split(" ", 1)
    assert msg["Subject"] == "[%s] %s %s: %s.%s %s %s" % (
        BRANCH, sha, title, f["workload"], f["metric"],
        fmt.pct(f["pct_change"]), mail.kind_of_change(f["metric"],
                                                      f["pct_change"]))
    assert msg["From"] == mail.ROBOT and msg["Message-ID"]
    text = msg.get_payload(decode=True).decode()
    parent = f["parent"].split(" ")[0]
    assert "./jlbench bisect --git /srv/src/linux --good %s --bad %s " % (
        parent, sha) in text
    assert fmt.pct_ci(f, 3) in text
    for name, *_ in json.loads(f["top_functions"]):
        assert name in text
    assert "Reported-by: %s" % mail.ROBOT in text and "Closes: " in text
    assert f["results"] in text and f["parent_results"] in text
    triages = [p for p in written if p.endswith(".md")]
    assert len(triages) == len(searches)
    for s in searches:
        with open(os.path.join(str(out), "triage-%s.md" % mail.safe(
                s["path"]))) as fh:
            md = fh.read()
        mine = [x for x in found if x["search"] == s["path"]]
        assert md.startswith("# Triage: %s " % BRANCH)
        for x in mine:
            assert x["revision"].split(" ")[0][:12] in md
        if not mine:
            assert "No change beyond the floor." in md
