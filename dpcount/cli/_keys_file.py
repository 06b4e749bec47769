"""Read a text file of public keys (``--groups-file``) without hanging or reading without end.

The file names the group keys to release, one per line.  What the option may be given:

* a regular file, read up to :data:`MAX_BYTES`;
* a pipe – ``--groups-file <(command)``, ``/dev/stdin`` or a named FIFO – read as its writer
  writes, up to the same size; a pipe that stays silent for :data:`PIPE_TIMEOUT` seconds (a
  FIFO nobody opens for writing, for one) is an error instead of a wait without end;
* anything else (``/dev/zero``, a terminal, a folder, a socket) is refused before reading.

The text must be UTF-8 (a byte-order mark is skipped); otherwise the error names the line.

Examples
--------
>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "keys.txt").write_bytes(b"north\\n\\n  south \\n")
>>> read_keys(str(folder / "keys.txt"), "--groups-file")
['north', 'south']
>>> _ = (folder / "bad.txt").write_bytes(b"north\\nS\\xfcd\\n")
>>> read_keys(str(folder / "bad.txt"), "--groups-file")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
dpcount.cli._errors.UserError: --groups-file '.../bad.txt', line 2: not valid UTF-8 (byte 0xfc ...
"""

from __future__ import annotations

import errno
import os
import select
import stat

from ._errors import UserError

__all__ = ["MAX_BYTES", "PIPE_TIMEOUT", "read_keys"]

#: The largest keys file read (256 MiB: millions of keys).
MAX_BYTES = 256 << 20
#: Seconds a pipe may stay silent before the read gives up.
PIPE_TIMEOUT = 60.0
_CHUNK = 1 << 16


def read_keys(path: str, option: str) -> list[str]:
    """The non-empty, stripped lines of the keys file ``path`` (the value of ``option``).

    Raises
    ------
    UserError
        The file is missing, not a regular file or a pipe, larger than :data:`MAX_BYTES`,
        silent for :data:`PIPE_TIMEOUT` seconds, not UTF-8, or holds no key.
    """
    name = f"{option} {path!r}"
    data = _read_bounded(os.path.expanduser(path), name)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise UserError(
            f"{name}, line {line}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at column "
            f"{column}); save the file as UTF-8"
        ) from None
    keys = [line.strip() for line in text.splitlines() if line.strip()]
    if not keys:
        raise UserError(f"{name} holds no group keys; write one key per line")
    return keys


def _read_bounded(path: str, name: str) -> bytes:
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise UserError(f"{name}: {_reason(exc)}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            return _read_all(fd, name, timeout=None)
        if stat.S_ISFIFO(mode):
            return _read_all(fd, name, timeout=PIPE_TIMEOUT)
        raise UserError(f"{name} is {_kind(mode)}, not a text file of group keys")
    finally:
        os.close(fd)


def _read_all(fd: int, name: str, timeout: float | None) -> bytes:
    """Read to the end, at most :data:`MAX_BYTES`; on a pipe, wait at most ``timeout`` seconds
    for each chunk."""
    parts: list[bytes] = []
    size = 0
    while True:
        if timeout is not None and not select.select([fd], [], [], timeout)[0]:
            raise UserError(f"{name}: nothing was written to the pipe for {timeout:g} s")
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:  # woken without data: wait again
            continue
        except OSError as exc:
            raise UserError(f"{name}: {_reason(exc)}") from None
        if not chunk:
            return b"".join(parts)
        size += len(chunk)
        if size > MAX_BYTES:
            raise UserError(f"{name} is larger than {MAX_BYTES >> 20} MiB; is it the right file?")
        parts.append(chunk)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _reason(exc: OSError) -> str:
    if exc.errno == errno.ENOENT:
        return "file not found"
    if exc.errno == errno.ELOOP:
        return "is a symbolic link loop"
    return (exc.strerror or str(exc)).lower()
