#!/usr/bin/python3
"""The kernel sources jlbench builds its built-in variants from.

One record per kernel version: a Debian linux-source package (the tarball
it installs), the linux-config package of Debian's own configuration for
the distro config, and our patch series for that tree
(kernel-variants/<patches>/series). kernel-variants/build --source,
run_all.sh --source, bench/replay and lib/deps read this table. Adding a
version is one record here plus its ported series.

  source.py names              the versions, one a line (the default first)
  source.py default            the version built when none is named
  source.py shell NAME         the record as a bash associative array body:
                               declare -A s="($(source.py shell NAME))"
  source.py get NAME FIELD     one field of `shell`
  source.py of-package PKG     the version whose source package is PKG
  source.py packages           the Debian packages of every version

Exit codes: 0 ok; 1 an unknown package (of-package); 2 usage error (an
unknown NAME or FIELD included).
"""
import os
import shlex
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The version of the built-ins when none is named; runs, builds and
# results from before the choice are all of it.
DEFAULT = "6.1"


class Source:
    """One kernel version: name (what --source takes), package (Debian's
    linux-source package: /usr/src/<package>.tar.xz), config_package
    (Debian's configuration of the same version, the distro config's
    base), patches (our series' dir under kernel-variants/)."""

    def __init__(self, name, package, config_package, patches):
        self.name = name
        self.package = package
        self.config_package = config_package
        self.patches = patches

    @property
    def tarball(self):
        return "/usr/src/%s.tar.xz" % self.package

    @property
    def patches_dir(self):
        return os.path.join(ROOT, "kernel-variants", self.patches)

    def shell(self):
        return {"name": self.name, "package": self.package,
                "config_package": self.config_package,
                "tarball": self.tarball, "patches": self.patches_dir}


SOURCES = {s.name: s for s in (
    Source("6.1", "linux-source-6.1", "linux-config-6.1", "patches"),
    Source("6.12", "linux-source-6.12", "linux-config-6.12",
           "patches-6.12"),
)}


def get(name):
    if name not in SOURCES:
        raise ValueError("unknown kernel source %r (have: %s)"
                         % (name, " ".join(SOURCES)))
    return SOURCES[name]


def of_package(package):
    """The Source of a build.json's source.package; ValueError when it is
    none of ours (a git tree's "git" included)."""
    for s in SOURCES.values():
        if s.package == package:
            return s
    raise ValueError("no kernel source of package %r (have: %s)" % (
        package, " ".join(s.package for s in SOURCES.values())))


def version_of(kernel_version):
    """"6.12" of a kernel version such as "6.12.118" or a Debian package
    version such as "6.12.118-1~deb12u1"; None when it is neither."""
    parts = str(kernel_version or "").split(".")
    if len(parts) < 2 or not parts[0].isdigit():
        return None
    minor = ""
    for c in parts[1]:
        if not c.isdigit():
            break
        minor += c
    return "%s.%s" % (parts[0], minor) if minor else None


def packages():
    """Debian packages of every source: the tarballs and configurations."""
    out = []
    for s in SOURCES.values():
        out += [s.package, s.config_package]
    return out


def main(argv):
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(args) == 2 and args[0] == "of-package":
        try:
            print(of_package(args[1]).name)
        except ValueError as e:
            sys.stderr.write("source.py: %s\n" % e)
            return 1
        return 0
    try:
        if args == ["names"]:
            print("\n".join(SOURCES))
        elif args == ["default"]:
            print(DEFAULT)
        elif args == ["packages"]:
            print("\n".join(packages()))
        elif len(args) == 2 and args[0] == "shell":
            print(" ".join("[%s]=%s" % (k, shlex.quote(v))
                           for k, v in get(args[1]).shell().items()))
        elif len(args) == 3 and args[0] == "get":
            fields = get(args[1]).shell()
            if args[2] not in fields:
                raise ValueError("unknown field %r (have: %s)"
                                 % (args[2], " ".join(fields)))
            print(fields[args[2]])
        else:
            raise ValueError("usage error (see source.py --help)")
    except ValueError as e:
        sys.stderr.write("source.py: %s\n" % e)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
