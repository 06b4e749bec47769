"""The zip that ``spark-submit --py-files`` ships: the packages ``dpcount``, ``matching`` and
``mechanisms`` together (the Spark code imports all three on the executors).

Usage: ``python -m dpcount.spark.package dpcount.zip``.  The executors also need NumPy, pandas
and PyArrow installed (they are not in the zip: they hold compiled code).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = ["PACKAGES", "build_zip", "package_files"]

#: The packages the zip holds, each imported by the Spark code on the executors.
PACKAGES = ("dpcount", "matching", "mechanisms")


def package_files(name: str) -> Iterator[tuple[Path, str]]:
    """(file, name in the zip) for every source and data file of package ``name``.

    Examples
    --------
    >>> names = [arcname for _, arcname in package_files("dpcount")]
    >>> "dpcount/__init__.py" in names, any("__pycache__" in n for n in names)
    (True, False)
    """
    spec = importlib.util.find_spec(name)  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"package {name!r} is not installed")
    root = Path(next(iter(spec.submodule_search_locations)))
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root.parent)
        if path.is_file() and "__pycache__" not in relative.parts and path.suffix != ".pyc":
            yield path, relative.as_posix()


def build_zip(out: str | os.PathLike[str]) -> Path:
    """Write the zip of :data:`PACKAGES` to ``out`` (atomically: nothing half-written).

    Returns
    -------
    Path
        ``out``.
    """
    target = Path(out)
    if target.suffix != ".zip":
        raise ValueError(f"{target}: the file for --py-files must end in .zip")
    files = [entry for name in PACKAGES for entry in package_files(name)]
    handle, temporary = tempfile.mkstemp(suffix=".zip.tmp", dir=target.parent or ".")
    os.close(handle)
    try:
        with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED) as archive:
            for path, arcname in files:
                archive.write(path, arcname)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dpcount.spark.package OUT.zip``."""
    parser = argparse.ArgumentParser(
        prog="python -m dpcount.spark.package", description=__doc__.splitlines()[0]
    )
    parser.add_argument("out", metavar="OUT.zip", help="the zip to write")
    args = parser.parse_args(argv)
    try:
        path = build_zip(args.out)
    except (OSError, ValueError) as exc:
        print(f"dpcount.spark.package: {exc}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
