"""Expected counts per loop iteration of the static-key module, read from
its disassembly (no guess): the instructions and conditional branches one
iteration of jlb_bench_empty and of jlb_bench_loop executes, with the key
off and on. test_module_boot.py compares them with the TCG plugin's
counts of real boots; here the walker runs on fixture disassemblies
(tests/fixtures/module/objdump-<variant>.txt: `objdump -d -j .text
--no-show-raw-insn` and `objdump -r -j __jump_table` of the module as
built for each smoke kernel).

One iteration is the path from the loop's head (the target of the
function's last backward conditional jump) to that jump, taken. Along it:
a call runs its callee to its ret; a jmp is followed; a conditional jump
forward out of the loop is the key test (taken exactly when the key is
on); with jump labels, the instruction at the key's site (from the jump
table's relocations) is a NOP while the key is off and a JMP to the
entry's target while it is on. Any other conditional jump on the path
is code this walker does not know, and an error.
"""
import re

import pytest

from conftest import ROOT, run

FIX = ROOT / "tests" / "fixtures" / "module"

_FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_INSN = re.compile(r"^\s*([0-9a-f]+):\t(\S+)\s*(.*)$")
_RELOC = re.compile(r"^([0-9a-f]+)\s+R_X86_64_PC32\s+\.text\+0x([0-9a-f]+)$")


def objdump(ko):
    """The two texts the walker reads, from a built module."""
    dis = run(["objdump", "-d", "-j", ".text", "--no-show-raw-insn",
               ko]).stdout
    rel = run(["objdump", "-r", "-j", "__jump_table", ko],
              check=False).stdout
    return dis + rel


def parse(text):
    """(functions {name: (start, end)}, insns {addr: (mnemonic, operands,
    next addr)}, jump entries {code addr: target addr})."""
    funcs, order, insns, pcrel = {}, [], {}, []
    current = None
    for line in text.splitlines():
        m = _FUNC.match(line)
        if m:
            current = m.group(2)
            funcs[current] = [int(m.group(1), 16), None]
            continue
        m = _INSN.match(line)
        if m and current:
            addr = int(m.group(1), 16)
            order.append(addr)
            insns[addr] = [m.group(2), m.group(3), None]
            funcs[current][1] = addr
            continue
        m = _RELOC.match(line)
        if m:
            pcrel.append((int(m.group(1), 16), int(m.group(2), 16)))
    for a, b in zip(order, order[1:]):
        insns[a][2] = b
    # Each 16-byte entry: code (PC32 at +0), target (PC32 at +4).
    fields = dict(pcrel)
    entries = {fields[off]: fields[off + 4] for off in fields
               if off % 16 == 0 and off + 4 in fields}
    return {k: tuple(v) for k, v in funcs.items()}, insns, entries


def target(operands):
    return int(operands.split()[0], 16)


def is_jcc(mnemonic):
    return mnemonic.startswith("j") and mnemonic != "jmp"


def iteration(text, function, key_on):
    """(instructions, conditional branches) of one loop iteration."""
    funcs, insns, entries = parse(text)
    start, last = funcs[function]
    back = [a for a, (m, ops, _) in insns.items()
            if start <= a <= last and is_jcc(m) and target(ops) < a]
    if not back:
        raise ValueError("%s has no loop" % function)
    edge = back[-1]
    head = target(insns[edge][1])
    pc, stack, n, br = head, [], 0, 0
    for _ in range(200):
        m, ops, nxt = insns[pc]
        n += 1
        if pc == edge:
            return n, br + 1
        if pc in entries:               # the jump label site
            pc = entries[pc] if key_on else nxt
        elif is_jcc(m):
            br += 1
            t = target(ops)
            if head <= t <= edge:
                raise ValueError("%s: unexpected branch at %x: %s %s"
                                 % (function, pc, m, ops))
            pc = t if key_on else nxt   # the key test
        elif m == "call":
            stack.append(nxt)
            pc = target(ops)
        elif m == "ret":
            pc = stack.pop()
        elif m == "jmp":
            pc = target(ops)
        else:
            pc = nxt
    raise ValueError("%s: no iteration within 200 instructions" % function)


def loop_counts(text):
    """{loop: (instructions, conditional branches) per iteration} for the
    module's empty, key-off and key-on loops."""
    return {"empty": iteration(text, "jlb_bench_empty", False),
            "off": iteration(text, "jlb_bench_loop", False),
            "on": iteration(text, "jlb_bench_loop", True)}


def fixture(variant):
    return (FIX / ("objdump-%s.txt" % variant)).read_text()


def test_jump_label_loop():
    """NOP site: off = add, cmp, jne plus the NOP; on = the site's JMP to
    call, jlb_bench_hit's addq and ret, the jmp back, add, cmp, jne."""
    text = fixture("jump-label")
    _, _, entries = parse(text)
    assert len(entries) == 2        # jlb_taken's site and the loop's
    assert loop_counts(text) == {"empty": (3, 1), "off": (4, 1),
                                 "on": (8, 1)}


@pytest.mark.parametrize("variant", ["atomic-read", "plain-read"])
def test_fallback_loops(variant):
    """A load, test and jg (not taken) per iteration off; taken on."""
    text = fixture(variant)
    assert parse(text)[2] == {}
    assert loop_counts(text) == {"empty": (3, 1), "off": (6, 2),
                                 "on": (10, 2)}


def test_unknown_code_is_an_error():
    text = fixture("atomic-read")
    # An extra conditional jump that stays inside the loop body.
    bad = text.replace("add    $0x1,%rax\n  55:",
                       "add    $0x1,%rax\n  53:\tjne    55 "
                       "<jlb_bench_loop+0x15>\n  55:", 1)
    assert bad != text
    with pytest.raises(ValueError, match="unexpected branch"):
        loop_counts(bad)
    with pytest.raises(ValueError, match="has no loop"):
        iteration(text, "jlb_bench_hit", False)
