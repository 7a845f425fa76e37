"""The static-key words of each kernel: where `bench/run --model` counts data
accesses to static keys (the plugin's keys= file, bench/plugin/README.md).

A static key's word is its `enabled` count, the first 4 bytes (an
atomic_t) of struct static_key: the fallback kernels load it at every
check, the jump-label kernel only where keys are changed or read outside
a static branch. Which keys the kernel's static branches test comes from
the jump-label build's jump table (each entry names its key). The same
keys in another build are found by the symbol that holds them:

- a key of its own (DEFINE_STATIC_KEY_*) or an array of keys: struct
  static_key is 16 bytes with jump labels and 4 without, so the symbol is
  4 times smaller and a key at offset 16 x i is at 4 x i;
- a tracepoint's key: offset 8 of struct tracepoint in every build (after
  the name pointer);
- a symbol of the same size: the same offset.

Keys whose symbol the other build lacks (some are defined only with
CONFIG_JUMP_LABEL, e.g. netfilter's nf_hooks_needed: that kernel tests
something else there) and keys no rule places are counted, never guessed.
"""
import os

from lib import vmlinux

WORD = 4                          # bytes of static_key.enabled (atomic_t)
KEY_WITH_JUMP_LABEL = 16          # sizeof(struct static_key), jump labels
KEY_WITHOUT = 4                   # and without
TRACEPOINT_KEY_OFFSET = 8


class Keys:
    """The keys of a jump-label build: holders [(symbol, offset, size)] for
    the keys inside a sized symbol; addrs: every key's address there;
    source: names the build."""

    def __init__(self, holders, addrs, source):
        self.holders = holders
        self.addrs = addrs
        self.source = source


def of_jump_label_build(build_dir, source):
    """The Keys of the jump-label build in build_dir (source: its name for
    the files, e.g. its build hash)."""
    path = os.path.join(build_dir, "vmlinux")
    syms = vmlinux.symbols(path)
    table = vmlinux.jump_table(path, syms)
    addrs = sorted({e[2] for e in table["decoded"]})
    held = vmlinux.Holders(syms)
    holders = [h for h in map(held.at, addrs) if h]
    return Keys(holders, addrs, source)


def place(holder, syms):
    """(address or None, how) of a key holder (symbol, offset, size in the
    jump-label build) in a build whose symbols are syms."""
    name, off, size = holder
    if name not in syms:
        return None, "not in build"
    addr, there = syms[name]
    if there == size:
        return addr + off, "same size"
    if there * KEY_WITH_JUMP_LABEL == size * KEY_WITHOUT \
            and off % KEY_WITH_JUMP_LABEL == 0:
        return addr + off // (KEY_WITH_JUMP_LABEL // KEY_WITHOUT), "keys"
    if name.startswith("__tracepoint_") and off == TRACEPOINT_KEY_OFFSET:
        return addr + off, "tracepoint"
    return None, "unplaced"


def words(keys, build_dir, jump_label):
    """(sorted key-word addresses, {how: count}) of the build in build_dir;
    jump_label: it is the build the keys come from (every address is
    used as it is)."""
    if jump_label:
        return list(keys.addrs), {"jump table": len(keys.addrs)}
    syms = vmlinux.symbols(os.path.join(build_dir, "vmlinux"))
    found, how = set(), {}
    for h in keys.holders:
        addr, why = place(h, syms)
        how[why] = how.get(why, 0) + 1
        if addr is not None:
            found.add(addr)
    unsized = len(keys.addrs) - len(keys.holders)
    if unsized:
        how["no sized symbol"] = unsized
    return sorted(found), how


def file_text(addrs, source):
    """The keys= file: a comment, then one START-END range a word."""
    head = "# static-key words (%d), %s" % (len(addrs), source)
    return "\n".join([head] + ["%x-%x" % (a, a + WORD) for a in addrs]) \
        + "\n"


def write(keys, build, jump_label, out_path):
    """Write build's keys= file to out_path; return meta.json's entry."""
    addrs, how = words(keys, build.dir, jump_label)
    text = file_text(addrs, "the keys of the jump table of %s"
                     % keys.source)
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, out_path)
    return {"words": len(addrs), "placed": how}
