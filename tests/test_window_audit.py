"""Each workload's window holds its own path (issue 54): the audit of
analysis/comparison/composition.py on the committed suite run finds no
family of the guest's environment (RNG extraction, tty and serial output,
printk's console) above its bound in any window, and finds them in the
suite run made before the guest's RNG was seeded and its output kept off
the console, so that it can fail; docs/workloads.md's table of what each
window is made of is that of the committed suite run."""
import gzip
import subprocess
import sys

import pytest

from conftest import ROOT, PYTHON, SUITE_RUN

sys.path.insert(0, str(ROOT))
from analysis.comparison import composition  # noqa: E402
from analysis.comparison.profile import ok_runs  # noqa: E402
from analysis.documents import window  # noqa: E402
from analysis.results import suite  # noqa: E402
from analysis.results.load import Results  # noqa: E402

# The suite run before the guest's crng was seeded (issue 54's evidence).
UNSEEDED = ROOT / "results" / "20261206T082056Z-7ade8bb"
PROFILE_TOP = str(ROOT / "analysis" / "profile-top")


def runs_of(path):
    return {name: Results(d) for name, d in suite.members(str(path))}


@pytest.fixture(scope="module")
def committed():
    return runs_of(SUITE_RUN)


def test_every_window_of_the_committed_suite_run_holds_its_own_path(
        committed):
    for name, res in committed.items():
        breaches, read = composition.audit(res)
        assert read == len(ok_runs(res)), name  # every try profiled
        assert not breaches, (name, breaches)


def test_the_audit_finds_the_unseeded_rng_and_the_console_chatter():
    runs = runs_of(UNSEEDED)
    worst = {}
    for name in ("fault", "open", "rename", "tbench"):
        for b in composition.audit(runs[name])[0]:
            key = (name, b.family)
            worst[key] = max(worst.get(key, 0), b.share_pct)
    # blake2s was fault's largest kernel function; open echoed ~3,000
    # lines of stress-ng's output to the serial console inside its window
    assert worst[("fault", "rng")] > 15
    assert worst[("open", "rng")] > 10 and worst[("open", "tty")] > 2
    assert worst[("rename", "rng")] > 5
    assert not [k for k in worst if k[0] == "tbench"]


def test_profile_top_audit_exits_1_on_a_breach_and_0_without():
    (fault,) = (UNSEEDED / "suite" / "fault").glob("2*")
    bad = subprocess.run([PYTHON, PROFILE_TOP, "--audit", "--results",
                          str(fault)], capture_output=True, text=True)
    assert bad.returncode == 1, bad.stderr
    assert "rng" in bad.stdout and "over a bound" in bad.stdout
    (pipe,) = (SUITE_RUN / "suite" / "pipe").glob("2*")
    good = subprocess.run([PYTHON, PROFILE_TOP, "--audit", "--results",
                           str(pipe), "--top", "3"], capture_output=True,
                          text=True)
    assert good.returncode == 0, good.stdout + good.stderr
    assert ", 0 over a bound" in good.stdout


def test_docs_table_is_the_committed_suite_runs(committed):
    table = window.suite_table([(n, composition.first_window(r, "atomic-read"))
                                for n, r in committed.items()])
    docs = (ROOT / "docs" / "workloads.md").read_text()
    assert table in docs, "regenerate it: analysis/profile-top --suite " \
        "--results %s" % SUITE_RUN.relative_to(ROOT)


def write_profile(path, rows):
    with gzip.open(str(path), "wt") as f:
        f.write("format=1\nwindow=1\nwindows=1\ncolumns=insns,site_execs\n"
                "functions=%d\n" % len(rows))
        for addr, name, n in rows:
            f.write("%x %s %d 0\n" % (addr, name, n))


def test_shares_families_and_suffixes(tmp_path):
    k = 0xffffffff81000000
    write_profile(tmp_path / "p.gz", [
        (0x401000, "[user]", 5000), (k, "blake2s_compress", 600),
        (k + 0x100, "extract_entropy.constprop.0", 100),
        (k + 0x200, "serial8250_tx_chars", 50), (k + 0x300, "tcp_ack", 9000),
        (k + 0x400, "vsnprintf", 200), (k + 0x500, "chacha_permute", 50)])
    w = composition.of_profile(str(tmp_path / "p.gz"))
    assert w.total == 10000  # the kernel's only: [user] is apart
    assert [f.name for f in w.functions[:2]] == ["tcp_ack",
                                                 "blake2s_compress"]
    assert w.families["rng"][:2] == (700, 7.0)
    assert w.families["tty"][1] == 0.5 and w.families["printk"][0] == 0
    assert w.own_pct == pytest.approx(92.5)
    # ChaCha is a seeded crng's own path, vsnprintf the workloads' too
    for name in ("chacha_permute", "vsnprintf", "tcp_ack"):
        assert composition.family_of(name) is None
    assert composition.family_of("n_tty_write").name == "tty"
    assert composition.family_of("vprintk_emit").name == "printk"
