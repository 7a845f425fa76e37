"""A results dir's raw files, whether in raw/ or packed in raw.tar.xz.

bench/run writes each try's raw files (lib/format/rawtry.py) into raw/ as
it goes; once the run is complete it packs them (pack()) into one archive,
raw.tar.xz, beside them, and removes raw/. One archive per run takes a
handful of files where raw/ took five per try, and compresses the tries
together: their consoles and profiles are much alike (a suite workload's
120 profiles, 632 KB as .gz files, take 84 KB in one xz stream).

Every reader of raw files goes through this module (isfile, read_bytes,
open, listdir with the path the file has in raw/): a file in raw/ wins;
else the path's member of <dir>/raw.tar.xz is read, in place. The archive
holds each profile decompressed (<base>.profile, which xz compresses
better than gzip's bytes); asked for <base>.profile.gz, read_bytes gives
the bytes profile.compress() writes for it (gzip with no time stamp, the
same bytes each time: pack() checks that before it stores a profile so),
so the tries' sha256 manifests verify unchanged.

unpack() restores raw/ from the archive (bench/run --resume of a packed
dir appends tries).
"""
import builtins
import functools
import gzip
import io
import os
import shutil
import tarfile

RAW = "raw"
ARCHIVE = "raw.tar.xz"
GZ = ".gz"


def gzip_bytes(data):
    """data gzip'd as lib/format/profile.py's compress() writes it."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, filename="") as g:
        g.write(data)
    return out.getvalue()


def _split(path):
    """(archive path, member name) of a path in a raw/ dir; (None, None)
    when path is not in one."""
    folder, name = os.path.split(path)
    if os.path.basename(folder) != RAW:
        return None, None
    return os.path.join(os.path.dirname(folder), ARCHIVE), name


@functools.lru_cache(maxsize=4)
def _members(archive, stamp):
    """{member name: bytes} of an archive (stamp: its mtime and size, so
    that a rewritten archive is read again)."""
    out = {}
    with tarfile.open(archive, "r:xz") as tar:
        for m in tar:
            if m.isfile():
                out[m.name] = tar.extractfile(m).read()
    return out


def members(archive):
    """{member name: bytes} of the archive at path archive."""
    st = os.stat(archive)
    return _members(os.path.abspath(archive), (st.st_mtime_ns, st.st_size))


def _packed(path):
    """The bytes of path's member in its dir's archive, None when there is
    no archive or no such member."""
    archive, name = _split(path)
    if archive is None or not os.path.isfile(archive):
        return None
    m = members(archive)
    if name in m:
        return m[name]
    if name.endswith(GZ) and name[:-len(GZ)] in m:
        return gzip_bytes(m[name[:-len(GZ)]])
    return None


def isfile(path):
    """path is a file in raw/, or a member of the dir's archive."""
    if os.path.isfile(path):
        return True
    archive, name = _split(path)
    if archive is None or not os.path.isfile(archive):
        return False
    m = members(archive)
    return name in m or (name.endswith(GZ) and name[:-len(GZ)] in m)


def read_bytes(path):
    """path's bytes, from raw/ or the archive; FileNotFoundError if in
    neither."""
    try:
        with builtins.open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        data = _packed(path)
        if data is None:
            raise
        return data


def read_gunzipped(path):
    """The decompressed bytes of path, a .gz file in raw/ or a member of
    the archive (read as the archive holds it: decompressed)."""
    if not os.path.isfile(path) and path.endswith(GZ):
        plain = _packed(path[:-len(GZ)])
        if plain is not None:
            return plain
    return gzip.decompress(read_bytes(path))


def open(path, mode="r", **text):
    """A file object of path read from raw/ or the archive: mode "r" (text,
    with open()'s keyword arguments errors= and newline=) or "rb"."""
    if os.path.isfile(path) or _split(path)[0] is None:
        return builtins.open(path, mode, **text)
    data = read_bytes(path)
    if "b" in mode:
        return io.BytesIO(data)
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", **text)


def listdir(folder):
    """The names in a raw/ dir, with those its archive holds (a profile as
    the .profile.gz the runner wrote); OSError when there is neither."""
    names = set()
    found = False
    if os.path.isdir(folder):
        names.update(os.listdir(folder))
        found = True
    archive = os.path.join(os.path.dirname(folder.rstrip(os.sep)), ARCHIVE)
    if os.path.basename(folder.rstrip(os.sep)) == RAW and \
            os.path.isfile(archive):
        names.update(_as_written(n) for n in members(archive))
        found = True
    if not found:
        raise FileNotFoundError("no %s" % folder)
    return sorted(names)


def _as_written(name):
    return name + GZ if name.endswith(".profile") else name


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), 0o644, 0
    info.uname = info.gname = ""
    tar.addfile(info, io.BytesIO(data))


def pack(resdir):
    """Pack resdir/raw/ into resdir/raw.tar.xz and remove raw/ (atomically:
    the archive is complete before raw/ goes). A profile is stored
    decompressed when gzip_bytes() gives its .gz back byte for byte, else
    as it is. Returns the archive's path, None when there is no raw/."""
    folder = os.path.join(resdir, RAW)
    if not os.path.isdir(folder):
        return None
    archive = os.path.join(resdir, ARCHIVE)
    old = members(archive) if os.path.isfile(archive) else {}
    files = {n: data for n, data in old.items()}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            raise OSError("%s is not a file: raw/ holds only files" % path)
        with builtins.open(path, "rb") as f:
            data = f.read()
        if name.endswith(".profile" + GZ):
            plain = gzip.decompress(data)
            if gzip_bytes(plain) == data:
                name, data = name[:-len(GZ)], plain
        files[name] = data
    tmp = archive + ".tmp"
    with tarfile.open(tmp, "w:xz", format=tarfile.PAX_FORMAT,
                      preset=9) as tar:
        for name in sorted(files):
            _add(tar, name, files[name])
    os.replace(tmp, archive)
    shutil.rmtree(folder)
    return archive


def unpack(resdir):
    """Restore resdir/raw/ from resdir/raw.tar.xz (the .gz bytes of each
    profile as the runner wrote them) and remove the archive; True when
    there was one."""
    archive = os.path.join(resdir, ARCHIVE)
    if not os.path.isfile(archive):
        return False
    folder = os.path.join(resdir, RAW)
    os.makedirs(folder, exist_ok=True)
    for name, data in members(archive).items():
        if name.endswith(".profile"):
            name, data = name + GZ, gzip_bytes(data)
        with builtins.open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    os.remove(archive)
    return True
