"""The guest agent's C parser unit tests (guest-image/agent/test_*.c).

They run on the host against tests/fixtures/agent (real tbench, perf stat
and /proc/stat outputs with the figures expected from them), built with
ASan and UBSan, and the agent itself must build with -Werror.
"""
import re
import struct

from conftest import ROOT, run
from lib.format import console

AGENT = ROOT / "guest-image" / "agent"


def has_interp(elf):
    """True when a 64-bit little-endian ELF has a PT_INTERP header."""
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    return any(struct.unpack_from("<I", elf, phoff + i * phentsize)[0] == 3
               for i in range(phnum))


def test_parser_unit_tests(tmp_path):
    p = run(["make", "-C", str(AGENT), "BUILD=%s" % tmp_path, "test"])
    m = re.search(r"test_parse: (\d+) checks, (\d+) failed", p.stdout)
    assert m, p.stdout
    assert int(m.group(2)) == 0
    assert int(m.group(1)) >= 150, "fewer checks ran than exist"


def test_parser_tests_catch_a_wrong_expectation(tmp_path):
    """A changed expected figure must make the C tests fail."""
    fixtures = tmp_path / "fixtures"
    fixtures.mkdir()
    src = ROOT / "tests" / "fixtures" / "agent"
    for f in src.iterdir():
        text = f.read_text()
        if f.name == "tbench-2c-8s.expected":
            text = text.replace("throughput_mbps=547.856",
                                "throughput_mbps=547.857")
        (fixtures / f.name).write_text(text)
    p = run(["make", "-C", str(AGENT), "BUILD=%s" % (tmp_path / "b"),
             "FIXTURES=%s" % fixtures, "test"], check=False)
    assert p.returncode != 0
    assert "throughput_mbps is '547.856', expected '547.857'" in p.stdout


def test_agent_builds_static(tmp_path):
    run(["make", "-C", str(AGENT), "BUILD=%s" % tmp_path, "agent"])
    agent = tmp_path / "agent"
    data = agent.read_bytes()
    assert data[:4] == b"\x7fELF"
    assert not has_interp(data), "agent is not static (it has PT_INTERP)"
    # The window markers of PROTOCOL.md: 9-byte NOPs with JLB1 / JLB2.
    assert data.count(bytes.fromhex("660f1f8400") + b"JLB1") == 1
    assert data.count(bytes.fromhex("660f1f8400") + b"JLB2") >= 1
    # its blocks are of the protocol the host reads
    assert ("JLBENCH-BEGIN\nprotocol=%s\n" % console.PROTOCOL).encode() \
        in data


def test_the_protocol_version_is_console_pys():
    """The guest protocol's version has one literal on each side of the
    console: the agent's JLB_PROTOCOL (agent.h, which every block and the
    start line take) and lib/format/console.py's PROTOCOL; they and
    PROTOCOL.md's must agree."""
    header = (AGENT / "agent.h").read_text()
    m = re.findall(r'^#define JLB_PROTOCOL "([^"]*)"$', header, re.M)
    assert m == [console.PROTOCOL], \
        "agent.h JLB_PROTOCOL %s, lib/format/console.py PROTOCOL %r" % (
            m, console.PROTOCOL)
    for f in sorted(AGENT.glob("*.[ch]")):
        assert not re.search(r"protocol[= ]\d", f.read_text()), \
            "%s: a protocol version of its own (use JLB_PROTOCOL)" % f.name
    doc = (ROOT / "guest-image" / "PROTOCOL.md").read_text()
    assert "`protocol=%s`" % console.PROTOCOL in doc


def test_agent_refuses_to_run_outside_pid1(tmp_path):
    """On the host the agent must not mount or power off anything."""
    run(["make", "-C", str(AGENT), "BUILD=%s" % tmp_path, "agent"])
    p = run([str(tmp_path / "agent")], check=False)
    assert p.returncode == 2
    assert "must be PID 1" in p.stderr
