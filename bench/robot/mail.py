"""A finding as kernel developers receive a robot's report: a mail in an
mbox file, ready for `git send-email` or sendmail (jlbench never sends
one), and a range's triage summary in Markdown.

The mail follows 0-day's: a Subject naming the branch, the commit's short
hash and subject, workload.metric and the change; the change with its
interval and the headline's; the functions that changed most and the
static keys their sites test; how to reproduce (the bisection of the
commit against its parent, and the results dirs); Reported-by and
Closes trailers with placeholders for the sender to fill. Everything
comes from the store's finding and search rows (lib/store), so a mail
can be written again at any time.
"""
import email.message
import email.utils
import json
import mailbox
import os

from analysis.sections import fmt
from lib.format import schema

ROBOT = "jlbench robot <jlbench-robot@localhost>"
# what the sender fills in before sending
TO = "<maintainer@example.org>"
CLOSES = "<the URL of this report once archived>"


def better(metric):
    """"lower" or "higher": which way metric improves (None: neither)."""
    for m in schema.METRICS:
        if m.name == metric:
            return m.better
    column = metric[:-len("_per_op")] if metric.endswith("_per_op") \
        else metric
    try:
        return schema.counter(column).better
    except KeyError:
        return None


def kind_of_change(metric, pct):
    """"regression", "improvement" or "change" of a % change of metric."""
    way = better(metric)
    if way is None or pct is None or pct == 0:
        return "change"
    worse = pct > 0 if way == "lower" else pct < 0
    return "regression" if worse else "improvement"


def commit_of(revision):
    """(hash, subject) of a revision as the store writes it: `HASH
    subject`."""
    sha, _, subject = (revision or "").partition(" ")
    return sha, subject


def subject(finding, branch):
    """The mail's Subject, in 0-day's form."""
    sha, title = commit_of(finding["revision"])
    return "[%s] %s %s: %s.%s %s %s" % (
        branch or "jlbench", sha[:12], title, finding["workload"],
        finding["metric"], fmt.pct(finding["pct_change"]),
        kind_of_change(finding["metric"], finding["pct_change"]))


def body(finding, search, branch):
    """The mail's text."""
    source = json.loads(search["source"] or "{}")
    sha, title = commit_of(finding["revision"])
    parent, _ = commit_of(finding["parent"])
    change = kind_of_change(finding["metric"], finding["pct_change"])
    out = [
        "Hello,", "",
        "the jlbench robot noticed a %s %s of %s.%s on:" % (
            fmt.pct(finding["pct_change"]), change, finding["workload"],
            finding["metric"]), "",
        "commit: %s (\"%s\")" % (sha, title),
        "parent: %s" % finding["parent"],
        "branch: %s" % (branch or "(none given)"),
        "repository: %s" % source.get("repo", "?"),
        "", "in testcase: %s, %s kernels (%s config), %d seeds against the "
        "parent, under QEMU icount (a deterministic instruction-path "
        "model, not hardware)" % (
            finding["workload"], source.get("on", "?"),
            search["config"] or "?", finding["n"] or 0),
        "", "%s: %s (95%% interval of the paired median; the floor is "
        "%.2f points)" % (finding["metric"], fmt.pct_ci(finding, 3),
                          search["floor_pct"] or 0.0)]
    if finding.get("state") in ("confirmed", "not-confirmed") and \
            finding.get("state_note"):
        out.append("%s: %s" % (finding["state"], finding["state_note"]))
    if finding.get("headline_pct") is not None:
        out.append("ops_per_s (the headline): %s" % fmt.pct(
            finding["headline_pct"]))
    top = json.loads(finding["top_functions"] or "[]")
    if top:
        out += ["", "The functions that changed most against the parent "
                "(kernel instructions per op, paired median [95%]):"]
        out += ["  %-40s %+10.2f [%+.2f, %+.2f]" % tuple(t[:4]) for t in top]
    keys = json.loads(finding["static_keys"] or "{}")
    if keys:
        out += ["", "Static keys whose sites are in those functions:"]
        out += ["  %s: %s" % (f, ", ".join(k)) for f, k in sorted(
            keys.items())]
    out += ["", "How to reproduce:", "",
            "  git clone <jlbench> && cd jlbench && ./jlbench deps",
            "  ./jlbench bisect --git %s --good %s --bad %s --metric %s "
            "--workload %s --config %s --seeds %d --out bisect-%s" % (
                source.get("repo", "REPO"), parent or "PARENT", sha,
                finding["metric"], finding["workload"],
                search["config"] or "full", search["seeds"] or 6, sha[:12]),
            "", "The figures above are in the results dirs %s (this commit) "
            "and %s (its parent), under the %s %s; `jlbench compare` "
            "sets them side by side." % (
                finding["results"] or "(none)",
                finding["parent_results"] or "(none)", search["kind"],
                search["path"]),
            "", "When a patch of its own fixes this, please credit the "
            "report with these trailers:",
            "  Reported-by: %s" % ROBOT,
            "  Closes: %s" % CLOSES, "",
            "--", "the jlbench robot (%s %s, finding %s)" % (
                search["kind"], search["path"], finding["ref"])]
    return "\n".join(out) + "\n"


def message(finding, search, branch="", date=None):
    """The mail of a finding (a store finding row) of a search (its
    search row), as an email.message.EmailMessage."""
    msg = email.message.EmailMessage()
    msg["From"] = ROBOT
    msg["To"] = TO
    msg["Subject"] = subject(finding, branch)
    msg["Date"] = date or email.utils.formatdate(localtime=False)
    msg["Message-ID"] = "<%s@jlbench-robot>" % "".join(
        c if c.isalnum() or c in ".-" else "." for c in finding["ref"])
    # plain text as mail readers and git am take it, not quoted-printable
    msg.set_content(body(finding, search, branch), cte="8bit")
    return msg


def write_mbox(path, messages):
    """Write messages to a new mbox file at path (replacing one)."""
    if os.path.exists(path):
        os.remove(path)
    box = mailbox.mbox(path, create=True)
    try:
        box.lock()
        for m in messages:
            m = mailbox.mboxMessage(m)
            m.set_from(ROBOT.split("<")[1].rstrip(">"), True)
            box.add(m)
        box.flush()
    finally:
        box.unlock()
        box.close()


def triage(search, findings, branch=""):
    """A range's triage summary in Markdown (rustc-perf's weekly triage
    is the model): the range, then every finding with its change, state
    and subject, regressions first."""
    source = json.loads(search["source"] or "{}")
    order = {"regression": 0, "change": 1, "improvement": 2}
    rows = sorted(findings, key=lambda f: (
        order[kind_of_change(f["metric"], f["pct_change"])],
        -abs(f["pct_change"] or 0)))
    out = ["# Triage: %s %s..%s" % (branch or search["path"],
                                    source.get("good", "?")[:12],
                                    source.get("bad", "?")[:12]), "",
           "%s `%s` of %s, %s; %d finding(s)." % (
               search["kind"], search["path"], search["workload"],
               search["metric"], len(rows)), ""]
    if rows:
        out += ["| commit | subject | change [95% CI] | | state |",
                "|---|---|--:|---|---|"]
        for f in rows:
            sha, title = commit_of(f["revision"])
            state = f.get("state", "new")
            if state in ("fix", "fixed", "not-confirmed") and \
                    f.get("state_note"):
                # what it fixes or was fixed by, or the second figure
                state += ": " + f["state_note"].split(" (finding")[0]
            out.append("| `%s` | %s | %s | %s | %s |" % (
                sha[:12], title.replace("|", "\\|"), fmt.pct_ci(f, 3),
                kind_of_change(f["metric"], f["pct_change"]),
                state.replace("|", "\\|")))
    else:
        out.append("No change beyond the floor.")
    return "\n".join(out) + "\n"


def safe(name):
    """A file name of a ref or path."""
    return "".join(c if c.isalnum() or c in ".-_" else "_" for c in name)
