"""lib/format/rawfiles.py: a results dir's raw/ packed into raw.tar.xz is
read in place, as raw/ was: the same names, bytes, manifests and analysis;
unpacking gives raw/ back byte for byte."""
import filecmp
import os
import shutil

import pytest

from conftest import PYTHON, ROOT, run
from lib.format import rawfiles, rawtry, results

# a committed run with profiles and manifests, and a failed try
COMMITTED = ROOT / "results" / "20261205T141112Z-a3bb43d"


def raw_tree(d):
    """{name: bytes} of d/raw, read through rawfiles."""
    folder = os.path.join(d, "raw")
    return {n: rawfiles.read_bytes(os.path.join(folder, n))
            for n in rawfiles.listdir(folder)}


@pytest.fixture
def committed(tmp_path):
    """A copy of COMMITTED with its raw/ unpacked (as bench/run left it
    before it packed complete runs)."""
    d = tmp_path / "run"
    shutil.copytree(COMMITTED, d)
    rawfiles.unpack(str(d))
    return str(d)


def test_packed_raw_reads_as_raw_did_and_unpacks_byte_for_byte(
        committed, tmp_path):
    before = raw_tree(committed)
    assert any(n.endswith(".profile.gz") for n in before)
    keep = tmp_path / "raw-before"
    shutil.copytree(os.path.join(committed, "raw"), keep)
    archive = rawfiles.pack(committed)
    assert archive and not os.path.exists(os.path.join(committed, "raw"))
    assert raw_tree(committed) == before
    for name in before:
        if name.endswith(rawtry.MANIFEST):
            base = os.path.join(committed, "raw", name[:-len(rawtry.MANIFEST)])
            assert rawtry.verify_manifest(base) == [], name
    assert rawfiles.pack(committed) is None     # nothing left to pack
    assert rawfiles.unpack(committed)
    assert not os.path.exists(archive)
    cmp = filecmp.dircmp(keep, os.path.join(committed, "raw"))
    assert not (cmp.left_only or cmp.right_only or cmp.diff_files)
    assert not filecmp.cmpfiles(keep, os.path.join(committed, "raw"),
                                sorted(before), shallow=False)[1]


def analysed(d):
    p = run([PYTHON, str(ROOT / "analysis" / "analyze"), "--no-history",
             "-q", d])
    with open(os.path.join(d, "stats.json")) as f:
        stats = f.read()
    with open(os.path.join(d, "summary.csv")) as f:
        return p.stderr.split(": ", 1)[-1], stats, f.read()


def test_analysis_of_a_packed_dir_is_the_same(committed):
    before = analysed(committed)
    rawfiles.pack(committed)
    assert analysed(committed) == before


def test_a_packed_dir_takes_new_files_and_resume_unpacks_it(committed):
    rawfiles.pack(committed)
    extra = os.path.join(committed, "raw", "selftest-jump-label.log")
    os.makedirs(os.path.dirname(extra))
    with open(extra, "w") as f:
        f.write("selftest console\n")
    # a file in raw/ is read beside the archive's, then packed with them
    assert rawfiles.isfile(extra)
    assert "001-atomic-read-try1.log" in rawfiles.listdir(
        os.path.dirname(extra))
    rawfiles.pack(committed)
    assert rawfiles.read_bytes(extra) == b"selftest console\n"
    _, notes = results.ResultsDir.open(committed)
    assert notes == ["unpacked raw.tar.xz into raw/ to append to it"]
    assert os.path.isfile(extra) and not os.path.exists(
        os.path.join(committed, rawfiles.ARCHIVE))


def test_missing_files_are_missing_in_both_layouts(committed):
    rawfiles.pack(committed)
    gone = os.path.join(committed, "raw", "999-jump-label-try1.log")
    assert not rawfiles.isfile(gone)
    with pytest.raises(FileNotFoundError):
        rawfiles.read_bytes(gone)
    with pytest.raises(FileNotFoundError):
        rawfiles.listdir(os.path.join(committed, "nothing", "raw"))
