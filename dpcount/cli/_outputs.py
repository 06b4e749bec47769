"""Output files that never destroy anything: checked before the work, written atomically.

Every option that writes a file (``--output``, ``--plot``) goes through :func:`output_file`
while the command line is checked, before any data is read, so that a mistake costs nothing:

* an output that *is* one of the inputs – the same file reached through another name, a
  symbolic link or a hard link (same device and inode), or any file a glob input matches – is
  refused, as are two outputs of one command that are the same file;
* a folder, a block device, a socket, a dangling symbolic link, a symbolic link loop, a
  read-only file and a folder the user cannot write into are refused, naming the user's path;
* a regular file or a new path is written to a temporary file beside it and renamed over it only
  once complete (an interruption leaves the old file and no temporary file); a symbolic link
  stays a link, and the file it points to is replaced; an existing file keeps its permissions;
* a character device (``/dev/null``, a terminal), a FIFO with a reader, and anything reached
  through ``/dev`` or ``/proc`` (``/dev/stdout``) is written in place – never replaced by a
  regular file.  A FIFO nobody reads is refused instead of blocking forever.

Examples
--------
>>> import os, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> data = folder / "pairs.csv"
>>> _ = data.write_text("person,item\\na,1\\n")
>>> output_file(str(folder / "items.txt"), "--output", inputs=[str(data)]).write_text("1\\n")
>>> sorted(p.name for p in folder.iterdir())
['items.txt', 'pairs.csv']
>>> os.link(data, folder / "alias.csv")  # a hard link: another name for the input
>>> output_file(str(folder / "alias.csv"), "--output", inputs=[str(data)])
Traceback (most recent call last):
...
dpcount.cli._errors.UserError: --output '...alias.csv' is the input file (...); ...
>>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

import errno
import fcntl
import glob
import os
import stat
import tempfile
import uuid
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ._errors import UserError

__all__ = ["OutputFile", "output_file"]

#: Paths that reach the process's own open files (``/dev/stdout`` → ``/proc/self/fd/1``): a
#: regular file behind them is the shell's redirection, written in place (appended to).
_STREAM_PATHS = ("/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/")


@dataclass(frozen=True)
class OutputFile:
    """A checked output: where to write and how (see :func:`output_file`).

    Attributes
    ----------
    given
        The path as the user wrote it, for messages.
    option
        The option that named it (``--output``), for messages.
    target
        The file to replace or create: the symbolic link's target, or the path itself.
    in_place
        Whether the target is written in place (devices, FIFOs, ``/dev/stdout``) rather than
        replaced through a temporary file.
    """

    given: str
    option: str
    target: Path
    in_place: bool

    @property
    def suffix(self) -> str:
        """The lower-case suffix of the user's path (``".png"``), which picks formats."""
        return Path(self.given).suffix.lower()

    def write_text(self, text: str) -> None:
        """Write ``text`` (UTF-8) as the whole file."""
        with self.writing() as tmp:
            tmp.write_text(text, encoding="utf-8")

    @contextmanager
    def writing(self) -> Iterator[Path]:
        """Yield a temporary path for a writer; publish it when the block ends without error.

        A regular target is replaced by renaming, so it is either the old or the new file;
        an in-place target receives the bytes once they are complete.  The temporary file is
        removed whatever happens.  An ``OSError`` becomes a :class:`UserError` naming the
        user's path, never the temporary file.
        """
        folder = None if self.in_place else self.target.parent
        tmp = self._reserve(folder)
        try:
            try:
                yield tmp
                self._publish(tmp)
            except OSError as exc:
                raise UserError(f"{self._name()}: cannot write: {_reason(exc)}") from None
        finally:
            tmp.unlink(missing_ok=True)

    def _name(self) -> str:
        return f"{self.option} {self.given!r}"

    def _reserve(self, folder: Path | None) -> Path:
        """An empty file of our own (``O_EXCL``) that the writer overwrites."""
        suffix = self.suffix
        try:
            if folder is None:
                fd, name = tempfile.mkstemp(prefix="dpcount-output-", suffix=suffix)
                os.close(fd)
                return Path(name)
            path = folder / f".{self.target.stem}.{uuid.uuid4().hex[:12]}.tmp{suffix}"
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return path
        except OSError as exc:
            raise UserError(f"{self._name()}: cannot write: {_reason(exc)}") from None

    def _publish(self, tmp: Path) -> None:
        if self.in_place:
            _copy_in_place(tmp, self.target)
            return
        try:
            mode = stat.S_IMODE(os.stat(self.target).st_mode)
        except FileNotFoundError:
            pass
        else:
            os.chmod(tmp, mode)  # the replaced file's permissions, not the temporary file's
        os.replace(tmp, self.target)


def output_file(
    given: str,
    option: str,
    *,
    inputs: Iterable[str] = (),
    suffixes: Sequence[str] = (),
    others: Iterable[OutputFile] = (),
) -> OutputFile:
    """Check that ``given`` (the value of ``option``) can be written without losing anything.

    Parameters
    ----------
    given
        The path the user gave.
    option
        The option's flag, for messages.
    inputs
        Files and globs the command reads (the data FILE, ``--groups-file``).
    suffixes
        Accepted suffixes (lower case, with the dot); empty accepts any.
    others
        Outputs of the same command already checked; the same file twice is refused.

    Raises
    ------
    UserError
        When writing ``given`` would destroy an input, could not succeed, or is not a file.
    """
    name = f"{option} {given!r}"
    path = Path(given).expanduser()
    if suffixes and path.suffix.lower() not in suffixes:
        raise UserError(f"{option} must end in {_alternatives(suffixes)}, got {given!r}")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return _new_file(path, given, option)
    except OSError as exc:
        raise UserError(f"{name}: {_stat_reason(exc, path)}") from None
    _check_not_input(info, name, inputs)
    for other in others:
        if _same_file(info, other.target):
            raise UserError(f"{name} is the same file as {other.option} {other.given!r}")
    in_place = os.path.abspath(path).startswith(_STREAM_PATHS)
    if stat.S_ISDIR(info.st_mode):
        raise UserError(f"{name} is a folder; give a file name")
    if stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode):
        return OutputFile(given, option, path, in_place=True)
    if not stat.S_ISREG(info.st_mode):
        kind = "block device" if stat.S_ISBLK(info.st_mode) else "socket or special file"
        raise UserError(f"{name} is a {kind}, not a file; give a file name")
    if not info.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise UserError(f"{name} is read-only; give another file name or make it writable")
    if in_place:
        return OutputFile(given, option, path, in_place=True)
    target = Path(os.path.realpath(path))  # a link stays a link: its target is replaced
    _check_folder_writable(target.parent, name)
    return OutputFile(given, option, target, in_place=False)


def _new_file(path: Path, given: str, option: str) -> OutputFile:
    name = f"{option} {given!r}"
    if path.is_symlink():
        raise UserError(
            f"{name} is a symbolic link to a missing file ({os.readlink(path)!r}); give the "
            "target's path itself"
        )
    target = Path(os.path.realpath(path))
    if not target.parent.is_dir():
        raise UserError(f"{name}: folder {str(path.parent)!r} does not exist")
    _check_folder_writable(target.parent, name)
    return OutputFile(given, option, target, in_place=False)


def _check_folder_writable(folder: Path, name: str) -> None:
    """Create and remove a file in ``folder``: the only check that root, ACLs and read-only
    file systems all answer truthfully."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".dpcount-probe-", dir=folder)
    except OSError as exc:
        raise UserError(f"{name}: cannot write in folder {str(folder)!r}: {_reason(exc)}") from None
    os.close(fd)
    os.unlink(probe)


def _check_not_input(info: os.stat_result, name: str, inputs: Iterable[str]) -> None:
    for pattern in inputs:
        for path in _expand(pattern):
            if _same_file(info, path):
                same = "" if path == pattern else f" {path!r}"
                raise UserError(
                    f"{name} is the input file{same} (the same file, through a link or "
                    f"another name, as {pattern!r}); writing it would destroy the data: "
                    "give another file name"
                )


def _expand(pattern: str) -> list[str]:
    """The local files ``pattern`` names: itself, or the matches of a glob."""
    if "://" in pattern:
        return []
    path = os.path.expanduser(pattern)
    if glob.has_magic(path):
        return glob.glob(path, recursive=True)
    return [path]


def _same_file(info: os.stat_result, other: str | Path) -> bool:
    try:
        theirs = os.stat(other)
    except (OSError, ValueError):
        return False
    return (info.st_dev, info.st_ino) == (theirs.st_dev, theirs.st_ino)


def _copy_in_place(source: Path, target: Path) -> None:
    """Copy ``source`` into the device or FIFO ``target`` without replacing it.

    A FIFO is opened without blocking: with no reader the open fails at once (``ENXIO``)
    instead of waiting forever.  A regular file (``/dev/stdout`` redirected by the shell) is
    appended to, as the process's own stream would be.
    """
    try:
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | _O_NOCTTY)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "nothing is reading the FIFO") from None
        raise
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)  # from here, writes wait for room
    with open(fd, "wb") as sink, open(source, "rb") as data:
        # Not shutil.copyfileobj: a stop signal waits while shutil runs (dpcount.cli._signals),
        # and a reader that stalls must not make the command unstoppable.
        while chunk := data.read(_CHUNK):
            sink.write(chunk)


_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
_CHUNK = 1 << 16


def _stat_reason(exc: OSError, path: Path) -> str:
    if exc.errno == errno.ELOOP:
        return "is a symbolic link loop"
    if exc.errno == errno.ENOTDIR:
        return f"folder {str(path.parent)!r} is not a folder"
    return _reason(exc)


def _reason(exc: OSError) -> str:
    """The system's words (``"permission denied"``) without the file name."""
    if not exc.strerror:
        return str(exc)
    return exc.strerror[:1].lower() + exc.strerror[1:]


def _alternatives(suffixes: Sequence[str]) -> str:
    """``".a, .b or .c"``."""
    if len(suffixes) == 1:
        return suffixes[0]
    return f"{', '.join(suffixes[:-1])} or {suffixes[-1]}"
