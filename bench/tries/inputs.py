"""Inputs of a bench run: kernel builds (builds.tsv) and initramfs images.

builds.tsv: `variant<TAB>build_dir` per line (kernel-variants/build --out);
build_dir has bzImage and build.json (hash, boot_args, arch, ...).
--initramfs: either one image for every variant, or a TSV file
`variant<TAB>image` (one image per variant).
"""
import hashlib
import json
import os

from lib import arch as archmod


class InputError(Exception):
    """A missing or malformed input; str() says which and what to do."""


class Build:
    def __init__(self, variant, build_dir, info):
        self.variant = variant
        self.dir = build_dir
        self.kernel = os.path.join(build_dir, "bzImage")
        self.info = info
        self.hash = str(info.get("hash") or "")
        self.hash_note = ""
        self.boot_args = info.get("boot_args") or ""
        # builds from before --arch have no "arch": they are x86_64
        self.arch = info.get("arch") or archmod.DEFAULT


class Image:
    def __init__(self, path, digest):
        self.path = path
        self.hash = digest


def _tsv(path, what):
    """(line number, first, second) of each non-empty, non-comment line."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError("cannot read %s %s: %s" % (what, path, e.strerror))
    except UnicodeDecodeError:
        raise InputError("%s %s is not a text file" % (what, path)) from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise InputError("%s:%d: expected variant<TAB>path, got %r"
                             % (path, n, line))
        out.append((n, parts[0], parts[1]))
    if not out:
        raise InputError("%s %s lists nothing" % (what, path))
    return out


def read_builds(path):
    """{variant: Build} in file order. Raises InputError."""
    builds = {}
    for n, variant, build_dir in _tsv(path, "builds file"):
        if variant in builds:
            raise InputError("%s:%d: variant %s listed twice"
                             % (path, n, variant))
        build_dir = os.path.abspath(os.path.join(os.path.dirname(path),
                                                 build_dir))
        info_path = os.path.join(build_dir, "build.json")
        try:
            with open(info_path) as f:
                info = json.load(f)
        except (OSError, ValueError) as e:
            raise InputError("%s:%d: %s: %s (rebuild with kernel-variants/"
                             "build)" % (path, n, info_path, e))
        b = Build(variant, build_dir, info)
        if not os.path.isfile(b.kernel):
            raise InputError("%s:%d: no bzImage in %s" % (path, n, build_dir))
        if not b.hash:
            # An older build.json: identify the kernel by its bytes instead.
            b.hash = "bz-" + file_hash(b.kernel)
            b.hash_note = "%s has no hash; kernel_hash is the bzImage's " \
                "sha256 (%s)" % (info_path, b.hash)
        builds[variant] = b
    return builds


_IMAGE_MAGIC = (b"\x1f\x8b", b"0707", b"\x28\xb5\x2f\xfd", b"\xfd7zXZ",
                b"\x02\x21\x4c\x18", b"BZh", b"\x5d\x00\x00")


def file_hash(path):
    """First 16 hex digits of the file's sha256."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def read_images(spec, variants):
    """{variant: Image} from --initramfs (an image or a variant TSV)."""
    try:
        with open(spec, "rb") as f:
            head = f.read(8)
    except OSError as e:
        raise InputError("cannot read --initramfs %s: %s (build it with "
                         "guest-image/build)" % (spec, e.strerror))
    if head.startswith(_IMAGE_MAGIC):
        img = Image(os.path.abspath(spec), file_hash(spec))
        return {v: img for v in variants}
    listed = {}
    for n, variant, image in _tsv(spec, "initramfs list"):
        image = os.path.abspath(os.path.join(os.path.dirname(spec), image))
        if not os.path.isfile(image):
            raise InputError("%s:%d: image %s does not exist"
                             % (spec, n, image))
        listed[variant] = image
    missing = [v for v in variants if v not in listed]
    if missing:
        raise InputError("%s has no image for %s" % (spec, ", ".join(missing)))
    hashes = {}
    out = {}
    for v in variants:
        p = listed[v]
        if p not in hashes:
            hashes[p] = file_hash(p)
        out[v] = Image(p, hashes[p])
    return out
