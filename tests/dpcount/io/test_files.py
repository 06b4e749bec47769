"""Local inputs are looked at before DuckDB opens them (issue 24: hangs and wrong words).

Before, ``/dev/zero``, a FIFO and ``/dev/stdin`` were "empty", a FIFO without a writer blocked
for ever, a link loop was "not found", and ``.bz2``/``.xz`` files were read as plain text.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os

import pytest

from dpcount import PersonItemGraph, read_pairs
from dpcount.errors import DataError
from tests.blocking import raised_without_blocking

DATA = b"person,item\n1,a\n2,b\n"
EXPECTED = PersonItemGraph.from_pairs([1, 2], ["a", "b"])


def _refused_without_blocking(path: str, **options: object) -> DataError:
    """The error read_pairs raises on ``path``, failing the test if it blocks."""
    error = raised_without_blocking(lambda: read_pairs(path, **options), path)
    assert isinstance(error, DataError), error
    return error


def test_a_fifo_without_writer_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    error = _refused_without_blocking(str(fifo))
    assert str(error).startswith(f"{fifo}: is a named pipe (FIFO), not a regular file")
    assert "empty" not in str(error)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_devices_are_refused_as_devices(device):
    error = _refused_without_blocking(device, format="csv")
    assert "is a character device" in str(error) and "empty" not in str(error)


def test_stdin_is_not_called_empty():
    if os.path.isfile("/dev/stdin"):
        pytest.skip("the suite's standard input is a regular file here")
    error = _refused_without_blocking("/dev/stdin", format="csv")
    assert "not a regular file" in str(error) and "empty" not in str(error)


def test_a_link_loop_says_so(tmp_path):
    os.symlink(tmp_path / "b.csv", tmp_path / "a.csv")
    os.symlink(tmp_path / "a.csv", tmp_path / "b.csv")
    with pytest.raises(DataError, match=r"a\.csv: is a loop of symbolic links"):
        read_pairs(tmp_path / "a.csv")


def test_a_dangling_link_names_its_target(tmp_path):
    os.symlink(tmp_path / "gone.csv", tmp_path / "a.csv")
    with pytest.raises(DataError, match=r"symbolic link to .*gone\.csv', which does not exist"):
        read_pairs(tmp_path / "a.csv")


@pytest.mark.parametrize(
    ("suffix", "compress", "kind"),
    [
        (".csv.bz2", bz2.compress, "bzip2"),
        (".csv.xz", lzma.compress, "xz"),
        (".csv", lzma.compress, "xz"),
    ],
)
def test_compressions_duckdb_cannot_read_are_refused(tmp_path, suffix, compress, kind):
    path = tmp_path / f"data{suffix}"
    path.write_bytes(compress(DATA))
    with pytest.raises(DataError, match=f"is compressed with {kind}, which dpcount cannot read"):
        read_pairs(path)


def test_a_glob_member_that_is_compressed_unsaid_is_named(tmp_path):
    (tmp_path / "a.csv").write_bytes(DATA)
    (tmp_path / "b.csv").write_bytes(lzma.compress(DATA))
    with pytest.raises(DataError, match=r"b.csv: is compressed with xz"):
        read_pairs(str(tmp_path / "*.csv"))


@pytest.mark.parametrize("name", ["data.csv", "data.csv.gz"])
def test_gzip_is_read_with_or_without_its_suffix(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(gzip.compress(DATA))
    assert read_pairs(path) == EXPECTED
