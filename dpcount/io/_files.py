"""Local input files checked before DuckDB opens them: regular files only, compression read.

DuckDB opens a file several times (to sniff it, to read it) and blocks on a named pipe
without a writer, reads ``/dev/zero`` without end, and takes a compression it does not know
for plain text.  So every local file a reader is given – a path, each file a glob matches,
each path a ``sql=`` query names – is looked at first, with words for what it is:

* a missing file, a dangling symbolic link, a link loop, a path through a non-folder, a file
  that may not be read;
* a folder, a named pipe (FIFO), a character device (``/dev/zero``, a terminal, ``/dev/stdin``
  of a terminal), a block device or a socket: not a regular file;
* a file compressed with something DuckDB cannot decompress (bzip2, xz, zip, lz4, 7-Zip,
  brotli, …), told by its suffix or its first bytes.  gzip and zstd are read: by the suffix
  (``.gz``, ``.zst``) as DuckDB does, or from the first bytes of a file that lacks it.

Only the first few bytes of a file are read here: the checks cost no pass over the data.

Examples
--------
>>> import os, tempfile
>>> folder = tempfile.TemporaryDirectory()
>>> fifo = os.path.join(folder.name, "pipe.csv")
>>> os.mkfifo(fifo)
>>> check_input_file(fifo)
Traceback (most recent call last):
...
dpcount.errors.DataError: ...pipe.csv: is a named pipe (FIFO), not a regular file; dpcount \
reads a file more than once, so write the data to a file first
>>> folder.cleanup()
"""

from __future__ import annotations

import errno
import glob
import itertools
import os
import stat
from pathlib import Path

from dpcount.errors import DataError

__all__ = [
    "GLOB_CHARS",
    "MAX_GLOB_FILES",
    "check_glob",
    "check_input_file",
    "check_not_special",
    "compression_suffix",
    "is_local",
    "unsupported_suffix",
]

GLOB_CHARS = frozenset("*?[")

#: Files of one glob looked at, at most (a glob matching more is refused: see check_glob).
MAX_GLOB_FILES = 100_000

#: Compression suffixes DuckDB reads, by the compression they name.
_READ_SUFFIXES = {".gz": "gzip", ".gzip": "gzip", ".zst": "zstd", ".zstd": "zstd"}

#: Compressions DuckDB cannot read, by suffix.
_UNREAD_SUFFIXES = {
    ".bz2": "bzip2",
    ".bz": "bzip2",
    ".xz": "xz",
    ".lzma": "lzma",
    ".lz": "lzip",
    ".lz4": "lz4",
    ".zip": "zip",
    ".7z": "7-Zip",
    ".br": "brotli",
    ".z": "compress (.Z)",
    ".sz": "snappy",
}

#: The first bytes of compressed files.
_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x5d\x00\x00", "lzma"),
    (b"LZIP", "lzip"),
    (b"\x04\x22\x4d\x18", "lz4"),
    (b"PK\x03\x04", "zip"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip"),
    (b"\x1f\x9d", "compress (.Z)"),
)

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device (such as /dev/zero or a terminal)"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def is_local(path: str) -> bool:
    """Whether ``path`` names the local file system (not a URL such as ``s3://…``)."""
    return "://" not in path


def compression_suffix(path: str) -> str | None:
    """The compression DuckDB infers from the suffix of ``path`` (``"gzip"``, ``"zstd"``),
    or None."""
    return _READ_SUFFIXES.get(Path(path).suffix.lower())


def unsupported_suffix(path: str) -> str | None:
    """The compression named by the suffix of ``path`` that DuckDB cannot read, if any."""
    return _UNREAD_SUFFIXES.get(Path(path).suffix.lower())


def check_input_file(path: str, *, name: str | None = None, text: bool = True) -> str | None:
    """Refuse anything but a readable, non-empty regular file at ``path``, in words that
    say what it is; return the compression of a text file (``text``) whose suffix does not
    name it (``"gzip"`` or ``"zstd"``), else None.

    ``name`` is how errors name the file (default: ``path``).
    """
    name = path if name is None else name
    info = _stat(path, name)
    if stat.S_ISDIR(info.st_mode):
        raise DataError(
            "is a folder; pass a file, or a glob such as 'folder/*.parquet'", source=name
        )
    _refuse_special(info, name)
    if info.st_size == 0:
        raise DataError("file is empty; expected a header and at least one row", source=name)
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        raise DataError(f"cannot be read: {_reason(exc)}", source=name) from exc
    named = unsupported_suffix(path)
    if named is not None:
        _refuse_compression(named, name)
    if not text:
        return None
    found = next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)
    if found is None or found == compression_suffix(path):
        return None
    if found not in ("gzip", "zstd"):
        _refuse_compression(found, name)
    return found


def check_not_special(path: str) -> None:
    """Refuse a path that exists but is no file or folder (a named pipe, a device, a socket)
    or a loop of links; anything else is left to DuckDB (the paths of a query)."""
    if os.path.lexists(path):
        _refuse_special(_stat(path, path), path)


def check_glob(pattern: str, *, text: bool = True, strict: bool = True) -> None:
    """Check every local file ``pattern`` matches: :func:`check_input_file`, or with
    ``strict=False`` :func:`check_not_special`.  A matched file compressed without the suffix
    that says so is refused (DuckDB goes by the suffix)."""
    paths = glob.iglob(pattern, recursive=True)
    for path in itertools.islice(paths, MAX_GLOB_FILES):
        if not strict:
            check_not_special(path)
            continue
        if os.path.isdir(path):
            continue  # DuckDB's glob lists files only
        found = check_input_file(path, text=text)
        if found is not None:
            raise DataError(
                f"is compressed with {found}, but its name does not end in "
                f"{'.gz' if found == 'gzip' else '.zst'}; rename it so that DuckDB reads it",
                source=path,
            )
    if next(paths, None) is not None:
        raise DataError(
            f"matches more than {MAX_GLOB_FILES} files; read fewer at once, or a folder of "
            "larger files",
            source=pattern,
        )


def _refuse_special(info: os.stat_result, name: str) -> None:
    """Refuse a named pipe, a device or a socket."""
    for test, kind in _KINDS:
        if test(info.st_mode):
            raise DataError(
                f"is {kind}, not a regular file; dpcount reads a file more than once, so write "
                "the data to a file first",
                source=name,
            )


def _stat(path: str, name: str) -> os.stat_result:
    """``os.stat(path)`` with an error that says why it failed."""
    try:
        return os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise DataError(
                "is a loop of symbolic links (it never reaches a file); check the links",
                source=name,
            ) from exc
        if exc.errno == errno.ENOENT and os.path.islink(path):
            target = os.readlink(path)
            raise DataError(
                f"is a symbolic link to {target!r}, which does not exist", source=name
            ) from exc
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise DataError("file not found; check the path", source=name) from exc
        raise DataError(f"cannot be read: {_reason(exc)}", source=name) from exc


def _reason(exc: OSError) -> str:
    return exc.strerror.lower() if exc.strerror else type(exc).__name__


def _refuse_compression(kind: str, name: str) -> None:
    raise DataError(
        f"is compressed with {kind}, which dpcount cannot read; decompress it, or compress it "
        "with gzip (.gz) or zstd (.zst)",
        source=name,
    )
