"""Unit tests of the QEMU branch-count plugin (bench/plugin/).

The classifier, sites parser and hardware model (model.c: caches,
gshare, BTB) are tested on the host by a C harness with known answers; the
plugin itself is built against the fetched qemu-plugin.h and loaded into
qemu-system-x86_64 with no guest (-M none), which checks that QEMU accepts
it, that its arguments are validated and that it writes its report.
Booting kernels with it is in test_plugin_boot.py (integration).
"""
import os
import subprocess
import textwrap

import pytest

from conftest import ROOT, run

PLUGIN = ROOT / "bench" / "plugin"
CFLAGS = ["-O2", "-Wall", "-Wextra", "-Werror"]


def parse_report(text):
    """key=value lines of a plugin report as a dict."""
    out = {}
    for line in text.splitlines():
        k, sep, v = line.partition("=")
        assert sep, "not a key=value line: %r" % line
        assert k not in out, "duplicate key %s" % k
        out[k] = v
    return out


def test_c_unit_tests(tmp_path):
    exe = tmp_path / "unit-tests"
    run(["cc"] + CFLAGS + ["-o", str(exe), "unit-tests.c",
                           "unit-tests-model.c", "unit-tests-core.c",
                           "unit-tests-overlap.c", "unit-tests-tage.c",
                           "unit-tests-profile.c",
                           "x86class.c", "sites.c", "model.c", "modelcfg.c",
                           "tage.c", "overlap.c", "profile.c"],
        cwd=PLUGIN)
    p = run([str(exe)], check=False)
    assert p.returncode == 0, p.stdout
    assert "not ok" not in p.stdout
    oks = [ln for ln in p.stdout.splitlines() if ln.startswith("ok ")]
    assert len(oks) >= 150, p.stdout
    for name in ("cache: cyclic stride over 2x", "misses only cold",
                 "always taken mispredicts only while warming",
                 "pseudo-random outcomes mispredict near half",
                 "btb: it evicted the least recent", "target of je rel32",
                 "overlap: straddles", "validate gshare 3000",
                 "setup: a parameter without model=on is an error",
                 "l2: unified: a line fetched as code is an L2 hit",
                 "prefetch: a straight run over one page",
                 "tage: a 40-iteration loop's exit is learnt",
                 "overlap: a mispredicted branch fed by a load",
                 "its branch predicted: the part beyond the window",
                 "overlap (model): a mispredicted branch fed by a load "
                 "missing to memory is charged in full",
                 "overlap (model): a load that hits L2, its branch "
                 "predicted: hidden",
                 "overlap: the stream's counts give the rule's cycles",
                 "setup: rob=0 refused",
                 "setup: by default no L2, no prefetch, gshare",
                 "profile: windows add up, what lies outside them",
                 "profile: the report has the non-zero buckets"):
        assert name in p.stdout, name


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def test_apt_src_list_copies_sources(tmp_path):
    etc = tmp_path / "apt"
    write(etc / "sources.list", """\
        # a comment
        deb [arch=amd64 signed-by=/k/one.gpg] http://m.example/d bookworm main
        deb http://m.example/d bookworm-backports main
        deb http://other.example/debian bullseye main
        deb cdrom:[Debian]/ bookworm main
        """)
    write(etc / "sources.list.d" / "debian.sources", """\
        Types: deb
        URIs: http://m.example/d
        Suites: bookworm-updates
        Components: main
        Signed-By: /k/one.gpg

        Types: deb deb-src
        URIs: http://sec.example/debian-security
        Suites: bookworm-security
        Components: main non-free-firmware
        Signed-By:
         -----BEGIN PGP PUBLIC KEY BLOCK-----
         .
         abc
         -----END PGP PUBLIC KEY BLOCK-----

        Enabled: no
        Types: deb
        URIs: http://disabled.example/debian
        Suites: bookworm
        Components: main
        """)
    write(etc / "sources.list.d" / "vendor.list",
          "deb http://vendor.example/apt bookworm contrib\n")
    write(etc / "sources.list.d" / "skipped.sources.disabled",
          "Types: deb\nURIs: http://x.example\nSuites: bookworm\n"
          "Components: main\n")
    p = run([str(PLUGIN / "apt-src-list"), "--etc", str(etc),
             "--codename", "bookworm"])
    stanzas = [s.strip() for s in p.stdout.split("\n\n")]
    assert stanzas[0] == textwrap.dedent("""\
        Types: deb-src
        URIs: http://m.example/d
        Suites: bookworm bookworm-updates
        Components: main
        Signed-By: /k/one.gpg""")
    assert stanzas[1].startswith(textwrap.dedent("""\
        Types: deb-src
        URIs: http://sec.example/debian-security
        Suites: bookworm-security
        Components: main
        Signed-By:
         -----BEGIN PGP PUBLIC KEY BLOCK-----
         .
         abc"""))
    assert len(stanzas) == 2
    for bad in ("backports", "bullseye", "cdrom", "disabled", "vendor",
                "Arch"):
        assert bad not in p.stdout


def test_apt_src_list_none_found(tmp_path):
    etc = tmp_path / "apt"
    write(etc / "sources.list", "deb http://m.example/debian bullseye main\n")
    p = run([str(PLUGIN / "apt-src-list"), "--etc", str(etc),
             "--codename", "bookworm"], check=False)
    assert p.returncode == 1
    assert "no apt source" in p.stderr


@pytest.mark.parametrize("script", ["fetch-header", "build",
                                    "build-testinit", "bench-cost"])
def test_scripts_help_and_usage(script):
    p = run([str(PLUGIN / script), "--help"])
    assert "Usage:" in p.stdout and "Exit codes" in p.stdout
    p = run([str(PLUGIN / script), "--no-such-option"], check=False)
    assert p.returncode == 2
    assert "unknown option" in p.stderr


def test_fetch_header_is_cached_and_recorded(plugin_so):
    p = run([str(PLUGIN / "fetch-header")])
    header = p.stdout.strip()
    assert header.endswith("/qemu-plugin.h")
    text = open(header).read()
    assert "#define QEMU_PLUGIN_VERSION" in text
    src = parse_report(open(os.path.join(os.path.dirname(header),
                                         "source.txt")).read())
    installed = subprocess.run(
        ["dpkg-query", "-W", "-f=${source:Version}", "qemu-system-x86"],
        capture_output=True, text=True, check=True).stdout
    assert src["qemu_installed"] == installed
    assert src["debian_patches_touching_header"] == "none"
    api = int(src["plugin_api_header"])
    assert int(src["plugin_api_qemu_min"]) <= api <= int(
        src["plugin_api_qemu_cur"])
    # Never in the repository.
    assert not str(header).startswith(str(ROOT))


def test_build_plugin_is_content_hashed(plugin_so):
    assert not plugin_so.startswith(str(ROOT))
    assert os.path.basename(plugin_so).startswith("branches-")
    again = run([str(PLUGIN / "build")]).stdout.strip()
    assert again == plugin_so
    assert run([str(PLUGIN / "build"), "--locate"]).stdout.strip() == \
        plugin_so
    syms = run(["nm", "-D", "--defined-only", plugin_so]).stdout
    assert "qemu_plugin_install" in syms
    assert "qemu_plugin_version" in syms


def qemu_none(plugin_arg, tmp_path):
    """Start QEMU with no machine and the plugin, then quit at once."""
    return subprocess.run(
        ["qemu-system-x86_64", "-M", "none", "-accel", "tcg", "-display",
         "none", "-nodefaults", "-monitor", "stdio", "-plugin", plugin_arg],
        input="quit\n", capture_output=True, text=True, timeout=60,
        cwd=tmp_path)


def test_plugin_loads_and_reports(plugin_so, tmp_path):
    out = tmp_path / "report.txt"
    sites = tmp_path / "sites.txt"
    sites.write_text("ffffffff81000000\nffffffff81001000-ffffffff81002000\n")
    p = qemu_none("%s,outfile=%s,sites=%s" % (plugin_so, out, sites),
                  tmp_path)
    assert p.returncode == 0, p.stderr
    r = parse_report(out.read_text())
    for key in ("kernel_insns", "user_insns", "kernel_branches",
                "user_branches", "site_execs", "window", "markers_start",
                "markers_end", "total_kernel_insns", "total_user_insns",
                "total_kernel_branches", "total_user_branches",
                "total_site_execs"):
        assert key in r, key
    # No guest ran: no window, so the window figures are not counted.
    assert r["window"] == "0"
    assert r["kernel_insns"] == "not-counted"
    assert r["total_kernel_insns"] == "0"
    assert r["sites"] == "2"
    assert r["count_mode"] == "insn"
    # No region marker ran: no region keys.
    assert r["regions"] == "0"
    assert not [k for k in r if k.startswith("region.")]
    assert not (tmp_path / "report.txt.tmp").exists()


def test_plugin_without_sites_does_not_count_them(plugin_so, tmp_path):
    out = tmp_path / "report.txt"
    p = qemu_none("%s,outfile=%s,count=tb" % (plugin_so, out), tmp_path)
    assert p.returncode == 0, p.stderr
    r = parse_report(out.read_text())
    assert r["total_site_execs"] == "not-counted"
    assert r["count_mode"] == "tb"


@pytest.mark.parametrize("args,message", [
    ("bogus=1", "unknown argument 'bogus=1'"),
    ("count=sometimes", "unknown argument"),
    ("sites=/nonexistent/file", "/nonexistent/file"),
    ("model=maybe", "model=maybe: want model=on or model=off"),
    ("l1i=1024:2", "l1i=1024:2 needs model=on"),
    ("model=off,keys=/etc/hostname", "keys=/etc/hostname needs model=on"),
    ("model=on,l1d=32000:8", "l1d=32000:8, line=64: size 32000"),
    ("model=on,l1i=32768", "want l1i=SIZE:ASSOC"),
    ("model=on,line=48", "line size 48 is not a power of two"),
    ("model=on,bp=4096:13", "bp=4096:13: 13 history bits"),
    ("model=on,bp=3000:8", "bp=3000:8: 3000 counters"),
    ("model=on,btb=10:4", "btb=10:4: 10 entries"),
    ("model=on,keys=/nonexistent/keys", "keys: /nonexistent/keys"),
    ("l2=1048576:16", "l2=1048576:16 needs model=on"),
    ("model=on,l2=1000:16", "l2=1000:16, line=64: size 1000"),
    ("model=on,iprefetch=yes", "want iprefetch=off or iprefetch=next-line"),
    ("model=on,tage=4096:4", "want tage=BASE:TABLES:ENTRIES:TAGBITS"),
    ("model=on,tage=4096:9:1024:9:4:64", "9 tagged tables"),
    ("model=on,bp=4096:12,tage=4096:4:1024:9:4:64", "not both"),
])
def test_plugin_rejects_bad_arguments(plugin_so, tmp_path, args, message):
    p = qemu_none("%s,%s" % (plugin_so, args), tmp_path)
    assert p.returncode != 0
    assert message in p.stderr


MODEL_KEYS = {
    "model", "model_l1i", "model_l1d", "model_bp", "model_btb",
    "kernel_mispredicts", "user_mispredicts", "kernel_btb_misses",
    "user_btb_misses", "kernel_l1i_accesses", "kernel_l1i_misses",
    "user_l1i_accesses", "user_l1i_misses", "kernel_l1d_accesses",
    "kernel_l1d_misses", "user_l1d_accesses", "user_l1d_misses",
    "key_accesses", "key_misses", "branches_unresolved",
    "total_l1i_accesses", "total_l1i_misses", "total_l1d_accesses",
    "total_l1d_misses", "total_mispredicts",
    # the overlap rule's classes of L1D misses (overlap.h)
    "model_rob", "kernel_l1d_fed", "user_l1d_fed", "kernel_l1d_groups",
    "user_l1d_groups"}


def report_of(plugin_so, tmp_path, args):
    """The report of an empty run (-M none) with these arguments."""
    out = tmp_path / "report.txt"
    p = qemu_none("%s,outfile=%s%s" % (plugin_so, out, args), tmp_path)
    assert p.returncode == 0, p.stderr
    return out.read_text()


def test_model_keys_only_with_model_on(plugin_so, tmp_path):
    plain = report_of(plugin_so, tmp_path, "")
    # model=off is the default: the same report, byte for byte.
    assert report_of(plugin_so, tmp_path, ",model=off") == plain
    assert not MODEL_KEYS & set(parse_report(plain))
    on = report_of(plugin_so, tmp_path, ",model=on")
    r = parse_report(on)
    assert set(r) == set(parse_report(plain)) | MODEL_KEYS
    # The keys of the plain report keep their values and order.
    assert [k for k in r if k not in MODEL_KEYS] == \
        list(parse_report(plain))
    assert (r["model"], r["model_l1i"], r["model_l1d"], r["model_bp"],
            r["model_btb"]) == ("on", "32768:8:64", "32768:8:64",
                                "gshare:4096:12", "4096:4")
    # No window: the window figures are not counted.
    for k in ("kernel_mispredicts", "user_l1d_misses", "key_accesses",
              "branches_unresolved"):
        assert r[k] == "not-counted", k
    assert r["total_l1d_accesses"] == "0"


def test_model_parameters_reported(plugin_so, tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text("ffffffff82000000-ffffffff82000008\n")
    r = parse_report(report_of(
        plugin_so, tmp_path, ",model=on,l1i=65536:4,l1d=16384:2,line=32,"
        "bp=1024:10,btb=512:2,keys=%s" % keys))
    assert (r["model_l1i"], r["model_l1d"], r["model_bp"],
            r["model_btb"]) == ("65536:4:32", "16384:2:32",
                                "gshare:1024:10", "512:2")
    assert r["model_rob"] == "256"
    r = parse_report(report_of(plugin_so, tmp_path, ",model=on,rob=512"))
    assert r["model_rob"] == "512" and r["kernel_l1d_fed"] == "not-counted"


# Keys of the options, each only when given.
OPTION_KEYS = {
    "l2": {"model_l2", "kernel_l2i_misses", "user_l2i_misses",
           "kernel_l2d_misses", "user_l2d_misses", "kernel_l2d_fed",
           "user_l2d_fed", "kernel_l2d_groups", "user_l2d_groups"},
    "iprefetch": {"model_iprefetch", "kernel_l1i_pf_hits",
                  "user_l1i_pf_hits", "kernel_l1i_pf_fills",
                  "user_l1i_pf_fills"},
}


def test_model_options_add_their_keys_only(plugin_so, tmp_path):
    on = parse_report(report_of(plugin_so, tmp_path, ",model=on"))
    r = parse_report(report_of(
        plugin_so, tmp_path, ",model=on,l2=1048576:16,iprefetch=next-line,"
        "tage=4096:4:1024:9:4:64"))
    assert set(r) == set(on) | OPTION_KEYS["l2"] | OPTION_KEYS["iprefetch"]
    assert (r["model_l2"], r["model_iprefetch"], r["model_bp"]) == (
        "1048576:16:64", "next-line", "tage:4096:4:1024:9:4:64")
    assert r["kernel_l2d_misses"] == "not-counted"
    only_l2 = parse_report(report_of(plugin_so, tmp_path,
                                     ",model=on,l2=262144:8"))
    assert set(only_l2) == set(on) | OPTION_KEYS["l2"]
    assert only_l2["model_bp"] == "gshare:4096:12"
    # iprefetch=off is the default: the model=on report, byte for byte.
    assert report_of(plugin_so, tmp_path, ",model=on,iprefetch=off") == \
        report_of(plugin_so, tmp_path, ",model=on")


def test_plugin_rejects_bad_keys_file(plugin_so, tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text("ffffffff82000000\nnot-a-key\n")
    p = qemu_none("%s,model=on,keys=%s" % (plugin_so, keys), tmp_path)
    assert p.returncode != 0
    assert "branches: keys:" in p.stderr and "line 2" in p.stderr


def test_plugin_rejects_bad_sites_file(plugin_so, tmp_path):
    sites = tmp_path / "sites.txt"
    sites.write_text("ffffffff81000000\nzzz\n")
    p = qemu_none("%s,sites=%s" % (plugin_so, sites), tmp_path)
    assert p.returncode != 0
    assert "line 2" in p.stderr


def test_build_testinit(tmp_path):
    d = run([str(PLUGIN / "build-testinit")]).stdout.strip()
    assert not d.startswith(str(ROOT))
    assert os.path.getsize(os.path.join(d, "initramfs.cpio.gz")) > 0
    addr = open(os.path.join(d, "jnz-site.txt")).read().strip()
    # The site is the loop's jnz (75 xx) in the static, non-PIE binary.
    dis = run(["objdump", "-d", "--start-address=0x" + addr,
               "--stop-address=0x%x" % (int(addr, 16) + 2),
               os.path.join(d, "init")]).stdout
    assert "jne" in dis


def test_locate_builds_nothing(tmp_path):
    """--locate in a cache without the plugin fails naming the command and
    fetches nothing."""
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path))
    p = run([str(PLUGIN / "build"), "--locate"], env=env, check=False)
    assert p.returncode == 1
    assert "run bench/plugin/build" in p.stderr
    assert p.stdout == "" and os.listdir(tmp_path) == []
    p = run([str(PLUGIN / "fetch-header"), "--cached"], env=env, check=False)
    assert p.returncode == 1 and "fetch-header" in p.stderr


def test_cache_dir_without_cache_c(tmp_path):
    """A header cached before cache.c was extracted: --cached (so build
    --locate) still takes it; locating cache.so fails naming fetch-header,
    which would fetch again (tested with the network below)."""
    installed = subprocess.run(
        ["dpkg-query", "-W", "-f=${source:Version}", "qemu-system-x86"],
        capture_output=True, text=True, check=True).stdout
    real = run([str(PLUGIN / "fetch-header"), "--cached"]).stdout.strip()
    d = tmp_path / "qemu-plugin" / installed.split(":", 1)[-1]
    d.mkdir(parents=True)
    (d / "qemu-plugin.h").write_bytes(open(real, "rb").read())
    (d / "source.txt").write_text("qemu_installed=%s\n" % installed)
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path))
    p = run([str(PLUGIN / "fetch-header"), "--cached"], env=env)
    assert p.stdout.strip() == str(d / "qemu-plugin.h")
    p = run([str(PLUGIN / "build"), "--locate", "--cache-plugin"], env=env,
            check=False)
    assert p.returncode == 1
    assert "cache.c: run bench/plugin/fetch-header" in p.stderr


def test_build_dry_run_shows_both_plugins():
    p = run([str(PLUGIN / "build"), "--dry-run"])
    out = (p.stderr + p.stdout).replace("\\", "")
    assert "branches-<hash>.so" in out
    assert "cache-<hash>.so" in out and "<version>/cache.c" in out


@pytest.mark.integration
def test_fetch_header_falls_back_to_closest_version(tmp_path):
    """A version the mirror lacks: the closest one of the same upstream."""
    env = dict(os.environ, JLBENCH_CACHE=str(tmp_path))
    real = subprocess.run(
        ["dpkg-query", "-W", "-f=${source:Version}", "qemu-system-x86"],
        capture_output=True, text=True, check=True).stdout
    upstream = real.split(":", 1)[-1].rsplit("-", 1)[0]
    fake = real + "+jlbench99"
    p = run([str(PLUGIN / "fetch-header"), "--installed", fake], env=env)
    src = parse_report(open(os.path.join(
        os.path.dirname(p.stdout.strip()), "source.txt")).read())
    assert src["qemu_installed"] == fake
    assert src["source_exact"] == "no"
    # QEMU's cache model comes from the same tarball.
    cache_c = os.path.join(os.path.dirname(p.stdout.strip()), "cache.c")
    assert "access_cache" in open(cache_c).read()
    assert len(src["cache_c_sha256"]) == 64
    assert src["source_version"].split(":", 1)[-1].rsplit("-", 1)[0] == \
        upstream
    assert "not available: using" in p.stderr
    p = run([str(PLUGIN / "fetch-header"), "--installed", "1:1.0+dfsg-1"],
            env=env, check=False)
    assert p.returncode == 1
    assert "no qemu 1.0+dfsg source on the mirror" in p.stderr
