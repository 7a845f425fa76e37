"""Docs that cannot go stale: every repository path that README.md,
REPORT.md, docs/*.md and the packages' READMEs name exists, every command
they show is there to run, and every option they show a command taking
is one its --help names. The checker is checked too: a planted stale
path, command and option are each found."""
import functools
import os
import re
import subprocess

import pytest

from conftest import ROOT, front_door

# The top of the tree a path is recognised by.
TOPS = ("analysis/", "bench/", "docs/", "guest-image/", "kernel-variants/",
        "lib/", "plots/", "results/", "tests/", ".ci/")
FILES = ("run_all.sh", "jlbench", "REPORT.md", "README.md")
# A path with one of these is a pattern (results/<dir>/, plots/img/*.svg,
# $JLBENCH_CACHE/..., plots/figures/NAME.gp), not a path.
PLACEHOLDERS = ("NAME", "DIR", "FILE", "RUN", "W", "WORKLOAD", "LABEL", "X",
                "N", "ARCH", "VARIANT", "SHA", "HASH", "CONFIG", "REV", "K")
PATTERN = re.compile(r"[<>*{}$\[\]…|]|\.\.\.|(^|/)(%s)(\.\w+)?(/|$)"
                     % "|".join(PLACEHOLDERS))
# A path in prose: a top dir and more, or a capitalised .md file's name.
PROSE_PATH = re.compile(r"(?<![\w./-])(?:(?:%s)[\w./-]*\w|[A-Z]+\.md)"
                        % "|".join(re.escape(t) for t in TOPS))
DOOR = front_door()
CODE_SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")


@functools.lru_cache(maxsize=None)
def docs():
    """The docs the check reads: tracked Markdown outside results/ and
    tests/, and the committed REPORT.md."""
    out = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.split()
    return tuple(f for f in out if not f.startswith(("results/", "tests/")))


def code_lines(text):
    """The lines of text that show code: each inline code span, and each
    line of a fenced or indented code block."""
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("    ") and line.strip():
            yield line.strip()
        else:
            yield from CODE_SPAN.findall(line)


def clean(token):
    """A word of a code line as a path or command: quotes, punctuation, a
    possessive and a results dir's :label taken off."""
    token = token.strip("\"'(),;:.")
    token = re.sub(r"'s$", "", token)
    if token.startswith("results/"):
        token = token.split(":")[0]
    return token[2:] if token.startswith("./") else token


def named_paths(text):
    """The repository paths text names: in code and as link targets
    (relative ones resolved later, against the doc's dir)."""
    found = set()
    for line in code_lines(text):
        for tok in line.split():
            tok = clean(tok)
            if tok.startswith(TOPS) or tok in FILES:
                found.add(tok)
    for word in PROSE_PATH.findall(CODE_SPAN.sub(" ", text)):
        found.add(clean(word))
    for target in LINK.findall(text):
        if not re.match(r"[a-z]+:", target):
            found.add(target.split("#")[0])
    return {p for p in found if p and not PATTERN.search(p)}


def exists(path, docdir):
    """Whether path is in the tree, from docdir (a link) or the root; a
    module's attribute (analysis/stats/calibrate.py.path) counts as its
    module."""
    if "/" not in path and path.endswith(".md"):     # named by itself
        return path in {os.path.basename(f) for f in docs()}
    for base in (docdir, ROOT):
        p = os.path.normpath(os.path.join(base, path))
        m = re.match(r"(.*\.py)\.\w+(\(\))?$", p)
        if os.path.exists(p) or m and os.path.isfile(m.group(1)):
            return True
    return False


def executables():
    """Tracked executable files outside results/ and tests/, by path."""
    out = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return {ln.split()[3] for ln in out.splitlines()
            if ln.startswith("100755") and not
            ln.split()[3].startswith(("results/", "tests/fixtures/"))}


def shown_commands(text, commands):
    """(command path, [options]) of each command line text shows: a code
    line whose first word is a tracked executable (or jlbench SUBCOMMAND),
    with the --options that follow it on the line."""
    for line in code_lines(text):
        words = line.replace("$ ", "", 1).split()
        while words:
            # a command is a word of its own: not `plots/draw's`, not
            # the agent's `jlbench:` prefix
            if clean(words[0]) != words[0].lstrip("./(").rstrip(")"):
                break
            cmd, rest = clean(words[0]), [clean(w) for w in words[1:]]
            words = []
            if cmd == "jlbench" and rest and rest[0].islower():
                if rest[0] in ("help", "commands"):
                    break
                door = DOOR
                if rest[0] not in door:
                    yield "jlbench " + rest[0], "", []
                    break
                cmd, rest = door[rest[0]], rest[1:]
            elif cmd not in commands:
                break
            opts = []
            for i, w in enumerate(rest):
                if w == "--":           # a command it runs follows
                    words = rest[i + 1:]
                    break
                if w in ("|", "&&", ";", "||", ">") or w.startswith("#"):
                    break
                if w.startswith("--") and len(w) > 2:
                    opts.append(w.split("=")[0])
            sub = rest[0] if rest and rest[0].isalpha() else ""
            yield cmd, sub, opts


@functools.lru_cache(maxsize=None)
def help_text(path, sub=""):
    """path's --help (or path SUB --help), None when it fails."""
    p = subprocess.run([str(ROOT / path)] + ([sub] if sub else []) +
                       ["--help"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    return p.stdout + p.stderr if p.returncode == 0 else None


def takes(path, sub, option):
    """Whether path's help (or its subcommand sub's) names option."""
    def names(h):
        return h and re.search(re.escape(option) + r"(?![\w-])", h)
    return names(help_text(path)) or sub and names(help_text(path, sub))


def problems(doc, text):
    """What in text (the doc at path doc) names something not there."""
    docdir = (ROOT / doc).parent
    out = ["%s: no such path: %s" % (doc, p)
           for p in sorted(named_paths(text)) if not exists(p, docdir)]
    for cmd, sub, opts in shown_commands(text, executables()):
        if cmd.startswith("jlbench "):
            out.append("%s: no such command: %s" % (doc, cmd))
        elif help_text(cmd) is None:
            out.append("%s: %s --help fails" % (doc, cmd))
        else:
            out += ["%s: %s takes no %s" % (doc, cmd, o)
                    for o in opts if not takes(cmd, sub, o)]
    return out


@pytest.mark.parametrize("doc", docs())
def test_what_the_docs_name_is_there(doc):
    assert problems(doc, (ROOT / doc).read_text()) == []


def test_the_check_finds_a_stale_path_command_and_option():
    text = ("The figure is `plots/seeds.svg`; see [the map](no-such.md).\n"
            "\n    bench/scan --git R --range A..B --pointz 5\n\n"
            "Run `jlbench scna` or `bench/nosuch --x`.\n")
    got = problems("docs/x.md", text)
    assert got == ["docs/x.md: no such path: bench/nosuch",
                   "docs/x.md: no such path: no-such.md",
                   "docs/x.md: no such path: plots/seeds.svg",
                   "docs/x.md: bench/scan takes no --pointz",
                   "docs/x.md: no such command: jlbench scna"], got
