"""The command line speaks in flags (issue 27, item 2).

Errors that name an option hold it as a :class:`dpcount.errors.Option`; the command line writes
it as the running subcommand's flag, found in the parser's own option table.  Tested here:

* every error path reachable from the command line that suggests an option shows only flags
  (no ``keyword=`` of the Python API), and the Python API still shows the keyword;
* every option named anywhere in dpcount, matching and mechanisms has a flag in some
  subcommand, or is listed below as Python-only with the reason.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from dpcount import read_pairs
from dpcount.cli import _errors, build_parser, main
from dpcount.errors import DataError, DPCountError, Option
from tests.dpcount.cli_errors import one_line_error

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("dpcount", "matching", "mechanisms")

#: Options named in errors that the command line has no flag for, and why.
PYTHON_ONLY = {
    "max_pairs": "dpcount.spark's driver limit; the CLI's Spark engine keeps the default",
}

#: A Python keyword argument as the API's messages spell it (``drop_nulls=True``).
PYTHON_KEYWORD = re.compile(r"\b[a-z]+(?:_[a-z]+)*=")


def subcommands() -> dict[str, object]:
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return dict(action.choices)  # type: ignore[attr-defined]


#: A flag and the value after it (``--column-type person=VARCHAR``), which may hold an ``=``.
FLAG_AND_VALUE = re.compile(r"--[a-z][a-z-]* \S+")


def speaks_flags(message: str, *flags: str) -> None:
    assert not PYTHON_KEYWORD.search(FLAG_AND_VALUE.sub("", message)), message
    for flag in flags:
        assert flag in message, message


# --------------------------------------------------------------------------------------------
# The error paths, through the command line
# --------------------------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {
        "nulls.csv": "person,item\na,1\n,2\nb,\n",
        "latin1.csv": b"person,item\n" + "Jos\xe9,caf\xe9\n".encode("latin-1"),
        "data.weird": "person,item\na,1\n",
        "no-header.csv": "1,2\n3,4\n",
        "huge-id.csv": "person,item\n1,1\n" + "9" * 30 + ",2\n",
        "pairs.parquet": None,
    }
    paths = {}
    for name, content in out.items():
        path = tmp_path / name
        if content is None:
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.table({"person": ["a"], "item": ["x"]}), path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        paths[name] = path
    return paths


@pytest.mark.parametrize(
    ("args", "flags"),
    [
        (["count", "nulls.csv"], ["--drop-nulls"]),
        (["count", "latin1.csv"], ["--encoding latin-1"]),
        (["count", "data.weird"], ["--format one of"]),
        (["count", "no-header.csv", "--person", "a", "--item", "b"], ["--no-header"]),
        (["count", "huge-id.csv"], ["--column-type"]),
        (["count", "pairs.parquet", "--delimiter", ";"], ["--delimiter"]),
        (["union", "nulls.csv"], ["--drop-nulls"]),
        (["curve", "latin1.csv"], ["--encoding latin-1"]),
        (["datasets", "southern-women", "--scale-factor", "3"], ["--scale-factor"]),
        (["union", "pairs.parquet", "--epsilon", "1e-300", "--delta", "1e-300"], ["--epsilon"]),
    ],
    ids=[
        "null-ids",
        "not-utf8",
        "unknown-suffix",
        "header-looks-like-data",
        "int64-overflow-id",
        "csv-option-on-parquet",
        "union-null-ids",
        "curve-not-utf8",
        "fixed-dataset-scale",
        "uncalibrated-gaussian",
    ],
)
def test_errors_that_suggest_an_option_name_the_flag(files, capsys, args, flags):
    args = [str(files[a]) if a in files else a for a in args]
    speaks_flags(one_line_error(capsys, args), *flags)


def test_the_python_api_still_names_the_keyword(files):
    with pytest.raises(DataError) as caught:
        read_pairs(files["nulls.csv"])
    assert "drop_nulls=True" in str(caught.value)
    assert Option("drop_nulls", True) in caught.value.options


def test_int64_overflow_id_can_be_read_with_the_suggested_flag(files, capsys):
    """The suggestion works: ids too large for 64 bits are read as text with the flag."""
    args = ["count", str(files["huge-id.csv"]), "--seed", "1"]
    assert main([*args, "--column-type", "person=VARCHAR", "--json"]) == 0
    assert '"estimate"' in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# Every option an error can name has a flag (or is Python-only for a stated reason)
# --------------------------------------------------------------------------------------------


def named_options() -> dict[str, str]:
    """Keyword → ``file:line`` of every ``Option("keyword", ...)`` in the packages."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "Option"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                ):
                    found.setdefault(node.args[0].value, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def without_flag(named: dict[str, str]) -> dict[str, str]:
    """The options of ``named`` that no subcommand has a flag for (nor PYTHON_ONLY excuses)."""
    tables = [_errors._option_table(sub) for sub in subcommands().values()]  # type: ignore[arg-type]
    return {
        keyword: where
        for keyword, where in named.items()
        if keyword not in PYTHON_ONLY and not any(keyword in table for table in tables)
    }


def test_every_named_option_has_a_flag():
    named = named_options()
    assert {"drop_nulls", "encoding", "format", "header", "column_types"} <= set(named)
    assert not without_flag(named), "options named in errors with no CLI flag"


def test_the_guard_sees_an_option_without_a_flag():
    """Power check: an option the command line lacks is found; one it has is not."""
    named = {"no_such_option": "here:1", "drop_nulls": "there:2", "groups": "there:3"}
    assert without_flag(named) == {"no_such_option": "here:1"}


def test_an_option_the_parser_lacks_keeps_its_python_spelling():
    parser = subcommands()["curve"]
    error = DPCountError("pass ", Option("allow_insecure", True))
    assert error.render(_errors.flag_spelling(parser)) == "pass allow_insecure=True"  # type: ignore[arg-type]


def test_the_flag_check_sees_a_python_keyword():
    """Power check of :func:`speaks_flags`: the API's spelling fails it, a flag's value not."""
    with pytest.raises(AssertionError):
        speaks_flags("pass drop_nulls=True to skip those rows")
    speaks_flags("pass --column-type person=VARCHAR to read it as text", "--column-type")


def test_column_type_follows_the_other_column_options(tmp_path, capsys):
    """``--column-type`` names a column as ``--person`` does (``--columns`` names too), applies
    to files only, and is refused for a column ``--columns`` does not name."""
    path = tmp_path / "ids.csv"
    path.write_text("1,a\n" + "9" * 30 + ",b\n")
    args = ["count", str(path), "--no-header", "--columns", "user,word", "--person", "user"]
    args += ["--item", "word", "--seed", "1"]
    assert main([*args, "--column-type", "user=VARCHAR", "--json"]) == 0
    assert '"person": "user"' in capsys.readouterr().out
    one_line_error(capsys, [*args, "--column-type", "who=VARCHAR"], "'who' is not among --columns")
    sql = ["count", "--sql", "SELECT 1 AS person, 2 AS item", "--column-type", "person=VARCHAR"]
    one_line_error(capsys, sql, "--column-type applies to a FILE")
