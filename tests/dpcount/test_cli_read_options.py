"""CLI options for reading files: --no-header, --columns, --delimiter, --encoding."""

from __future__ import annotations

import pytest

from dpcount import read_pairs
from dpcount.cli import _common, build_parser, main

ROWS = [("ana", "x"), ("bo", "y"), ("ana", "y"), ("café", "z")]


def _graph(*argv: str):
    args = build_parser().parse_args(["count", *argv])
    return _common.load_graph(_common.source_from_args(args), show=False)


def _write(path, rows, sep=",", header=None, encoding="utf-8"):
    lines = ([sep.join(header)] if header else []) + [sep.join(row) for row in rows]
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path


def test_headerless_csv_with_columns_keeps_first_row(tmp_path):
    reference = read_pairs(
        _write(tmp_path / "h.csv", ROWS, header=("user", "page")), "user", "page"
    )
    bare = _write(tmp_path / "bare.csv", ROWS)
    g = _graph(
        str(bare), "--no-header", "--columns", "user,page", "--person", "user", "--item", "page"
    )
    assert g == reference and "ana" in g.person_labels.tolist()
    # swapped roles read the other columns
    swapped = _graph(
        str(bare), "--no-header", "--columns", "user,page", "--person", "page", "--item", "user"
    )
    assert swapped == read_pairs(tmp_path / "h.csv", "page", "user")


def test_headerless_tsv_default_column_names(tmp_path):
    bare = _write(tmp_path / "bare.tsv", ROWS, sep="\t")
    g = _graph(str(bare), "--no-header", "--person", "column0", "--item", "column1")
    assert g == read_pairs(_write(tmp_path / "h.csv", ROWS, header=("p", "i")), "p", "i")


def test_delimiter_and_encoding(tmp_path):
    path = _write(
        tmp_path / "semi.csv", ROWS, sep=";", header=("person", "item"), encoding="latin-1"
    )
    g = _graph(str(path), "--delimiter", ";", "--encoding", "latin-1")
    assert g == read_pairs(_write(tmp_path / "h.csv", ROWS, header=("person", "item")))


def test_first_row_that_looks_like_data_is_named_in_the_error(tmp_path, capsys):
    bare = _write(tmp_path / "n.csv", [("1", "10"), ("2", "20")])
    assert main(["count", str(bare), "--seed", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "first row looks like data" in err and "--no-header (with --columns" in err
    # a real header with missing names gets no such hint
    named = _write(tmp_path / "h.csv", ROWS, header=("user", "page"))
    assert main(["count", str(named), "--seed", "1"]) == 2
    assert "looks like data" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--columns", "a,b"], "add --no-header"),
        (["--no-header", "--columns", "a,a"], "distinct, non-empty"),
        (["--no-header", "--columns", "a,b", "--person", "a", "--item", "c"], "--item 'c'"),
    ],
)
def test_bad_columns_options(tmp_path, capsys, argv, message):
    bare = _write(tmp_path / "bare.csv", ROWS)
    assert main(["count", str(bare), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "option", [["--no-header"], ["--delimiter", ";"], ["--encoding", "utf-16"]]
)
def test_file_options_rejected_elsewhere(capsys, option):
    assert main(["count", "--sql", "SELECT 1 AS person, 2 AS item", *option]) == 2
    assert "applies to a FILE" in capsys.readouterr().err
    assert main(["count", "--dataset", "fashion-like", *option]) == 2
    assert "applies to a FILE or --sql" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["count", "curve", "union"])
def test_every_reading_subcommand_has_the_options(command):
    args = build_parser().parse_args(
        [command, "f.csv", "--no-header", "--columns", "a,b", "--delimiter", ";"]
    )
    assert (args.no_header, args.columns, args.delimiter) == (True, "a,b", ";")
