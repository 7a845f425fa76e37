"""jlbench, the front door: its help lists every subcommand, each
subcommand keeps the exit-code convention (docs/usage.md: --help exits 0,
an unknown option exits 2 with one line naming it), every old path still
answers --help, and the bash completion completes subcommands and their
options."""
import os
import subprocess

import pytest

from conftest import ROOT, front_door, run

JLBENCH = str(ROOT / "jlbench")
COMMANDS = list(front_door().items())


def test_help_lists_every_command_by_group():
    out = run([JLBENCH, "help"]).stdout
    groups = [ln[:-1] for ln in out.splitlines() if ln.endswith(":")
              and not ln.startswith(" ")]
    assert groups == ["run", "analyse", "build", "cache"], out
    names = [n for n, _ in COMMANDS]
    assert len(names) == len(set(names))
    for want in ("run", "bisect", "scan", "selftest", "analyze", "report",
                 "compare", "profile-diff", "calibrate", "kernels", "image",
                 "plugin", "cache"):
        assert want in names, out
    for _, path in COMMANDS:
        assert (ROOT / path).is_file(), path
    # the help lists each with its path, in the same order
    rows = [ln.split() for ln in out.splitlines() if ln.startswith("  ")]
    assert [(r[0], r[-1].strip("()")) for r in rows] == COMMANDS


@pytest.mark.parametrize("name,path", COMMANDS, ids=[n for n, _ in COMMANDS])
def test_each_command_keeps_the_exit_codes(name, path):
    p = run([JLBENCH, name, "--help"])
    assert p.stdout.strip(), "%s --help printed nothing" % name
    # the old path answers the same
    assert run([str(ROOT / path), "--help"]).stdout == p.stdout
    p = run([JLBENCH, name, "--no-such-option"], check=False)
    assert p.returncode == 2, (name, p.returncode, p.stderr[-2000:])
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "--no-such-option" in lines[0], \
        (name, p.stderr[-2000:])


def test_usage_errors_of_the_front_door():
    for args, said in (([], "no command given"),
                       (["nope"], "unknown command 'nope'")):
        p = run([JLBENCH] + args, check=False)
        assert p.returncode == 2 and said in p.stderr, p.stderr
    # help NAME is NAME's own help
    assert run([JLBENCH, "help", "scan"]).stdout == \
        run([JLBENCH, "scan", "--help"]).stdout


def complete(*words):
    """What lib/completion.bash offers for the command line words (the
    last one being completed)."""
    script = ('. lib/completion.bash; COMP_WORDS=(%s); COMP_CWORD=%d; '
              '_jlbench; printf "%%s\\n" "${COMPREPLY[@]}"'
              % (" ".join(["./jlbench"] + ["'%s'" % w for w in words]),
                 len(words)))
    return subprocess.run(["bash", "-c", script], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout.split()


def test_completion_offers_subcommands_and_their_options():
    assert complete("sc") == ["scan"]
    assert "profile-diff" in complete("pro")
    opts = complete("scan", "--po")
    assert opts == ["--points"], opts


def test_a_reader_that_goes_away_is_no_error(tmp_path):
    """`jlbench cache status | true`: the closed pipe ends the output
    quietly (it printed a BrokenPipeError traceback), and the status is
    the command's own. (An empty cache: the machine's takes seconds to
    size.)"""
    p = subprocess.run(["bash", "-c", "set -o pipefail; ./jlbench cache "
                        "status | true"], cwd=ROOT,
                       capture_output=True, text=True,
                       env=dict(os.environ, JLBENCH_CACHE=str(tmp_path)))
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
