"""Spark at its defaults: the sessions dpcount creates, refusals before the JVM starts, one
counting default across front ends, and the spark-submit recipe run end to end."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import dpcount.spark
from dpcount import PersonItemGraph
from dpcount.cli import main
from dpcount.errors import DataError, InvalidParameterError
from dpcount.spark import SparkPairs
from dpcount.spark.package import PACKAGES, build_zip
from mechanisms import dp_distinct_count, dp_sips
from mechanisms.registry import names
from mechanisms.set_union.calibration import EXACT
from mechanisms.spark import distinct_count, set_union


def _pairs_csv(path: Path, n: int = 300, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {"u": [f"u{k}" for k in rng.integers(0, 40, n)], "w": rng.integers(0, 70, n)}
    )
    frame.to_csv(path, index=False)
    return frame


def _clean_env() -> dict[str, str]:
    """This environment without a running gateway's variables, so a child starts its own."""
    drop = ("PYSPARK_GATEWAY_PORT", "PYSPARK_GATEWAY_SECRET", "PYSPARK_SUBMIT_ARGS")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("SPARK_")}


def _java() -> None:
    if shutil.which("java") is None:
        pytest.skip("Java is not installed (PySpark needs Java 17)")


@pytest.fixture
def no_spark(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every way into Spark fails the test and is recorded."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    started: list[str] = []

    def refuse(name: str) -> Any:
        def start(*args: Any, **kwargs: Any) -> Any:
            started.append(name)
            raise AssertionError(f"{name} was called: Spark started")

        return start

    monkeypatch.setattr(dpcount.spark, "dpcount_session", refuse("dpcount_session"))
    monkeypatch.setattr(SparkContext, "_ensure_initialized", refuse("the JVM gateway"))
    monkeypatch.setattr(SparkSession.Builder, "getOrCreate", refuse("getOrCreate"))
    return started


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["union", "{csv}", "--algorithm", "policy_gaussian"], "sequential by nature"),
        (["union", "{csv}", "--algorithm", "policy_laplace"], "cannot run on Spark"),
        (["count", "{csv}", "--no-header", "--columns", "u,w"], "--no-header applies to"),
        (["count", "{csv}", "--encoding", "latin-1"], "--encoding applies to"),
        (["union", "--dataset", "fashion-like"], "reads a FILE"),
        (["union", "{csv}", "--algorithm", "max_adaptive_degree", "--noise", "exact"], "no exact"),
    ],
)
def test_refused_before_spark_starts(
    no_spark: list[str], tmp_path: Path, capsys: Any, argv: list[str], reason: str
) -> None:
    csv = tmp_path / "pairs.csv"
    _pairs_csv(csv)
    argv = [a.replace("{csv}", str(csv)) for a in argv]
    if str(csv) in argv:
        argv += ["--person", "u", "--item", "w"]
    assert main([*argv, "--engine", "spark"]) != 0
    err = capsys.readouterr().err.strip()
    assert reason in err and "\n" not in err
    assert no_spark == []


def test_python_refuses_before_spark_starts(no_spark: list[str]) -> None:
    union = partial(set_union, "pairs.parquet", "u", "w", epsilon=1, delta=1e-6)
    with pytest.raises(InvalidParameterError, match="sequential by nature"):
        union(algorithm="policy_laplace")
    with pytest.raises(InvalidParameterError, match="not available on Spark"):
        union(algorithm="nope")
    # The old keyword still works, with a warning; given beside algorithm= it is refused.
    with pytest.warns(DeprecationWarning, match="algorithm="):
        with pytest.raises(InvalidParameterError, match="sequential by nature"):
            union(mechanism="policy_laplace")
    for algorithm in ("weighted_gaussian", "dp_sips"):  # dp_sips: the default, named
        with pytest.raises(InvalidParameterError, match="pass the algorithm once"):
            union(algorithm=algorithm, mechanism="nope")
    # The default, dp_sips, keeps its per-round weights on the executors: no silent None.
    with pytest.raises(InvalidParameterError, match="return_weights=True is not available"):
        union(return_weights=True)
    with pytest.raises(InvalidParameterError, match="counting"):
        distinct_count("pairs.parquet", "u", "w", 1.0, counting="exact")  # type: ignore[arg-type]
    # The local mechanisms' parameter names; the old Spark names still reach them, with a warning.
    with pytest.raises(InvalidParameterError, match="rounds"):
        union(algorithm="dp_sips", rounds=0)
    with pytest.warns(DeprecationWarning, match="pass rounds="):
        with pytest.raises(InvalidParameterError, match="rounds"):
            union(algorithm="dp_sips", sips_rounds_count=0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'round'"):
        union(round=2)
    assert no_spark == []


def test_spark_flags_apply_to_spark_only(no_spark: list[str], tmp_path: Path, capsys: Any) -> None:
    csv = tmp_path / "pairs.csv"
    _pairs_csv(csv)
    common = ["count", str(csv), "--person", "u", "--item", "w"]
    assert main([*common, "--spark-conf", "spark.driver.memory=2g"]) != 0
    assert "--spark-conf applies to --engine spark" in capsys.readouterr().err
    assert main([*common, "--engine", "spark", "--spark-conf", "no-equals-sign"]) != 0
    assert "is not KEY=VALUE" in capsys.readouterr().err
    assert no_spark == []


def test_one_set_union_default_on_every_front_end() -> None:
    """The command line's default on both engines is the Python default on Spark."""
    from dpcount.cli._union import DEFAULT_ALGORITHM
    from mechanisms.spark.union import DEFAULT_ALGORITHM as SPARK_DEFAULT
    from mechanisms.spark.union import _algorithm

    assert _algorithm(None, None) == SPARK_DEFAULT == DEFAULT_ALGORITHM == "dp_sips"


def test_union_on_spark_runs_dp_sips_and_is_the_python_release(
    spark: Any, tmp_path: Path, capsys: Any
) -> None:
    """Without --algorithm, ``union --engine spark`` runs dp_sips with exact noise, as the
    local engine does; seeded, it is ``dp_sips(SparkPairs(FILE, ...), ...)`` bit for bit, and
    so the local dp_sips with the Spark engine's keyed sampling.  Items sit near the threshold
    (geometric popularity): another seed releases another set, so the equality is not trivial."""
    rng = np.random.default_rng(4)
    persons = [f"p{p}" for p in rng.integers(0, 300, 3000)]
    items = [f"i{i}" for i in np.minimum(rng.geometric(0.1, 3000), 120)]
    path = tmp_path / "pairs.parquet"
    pd.DataFrame({"u": persons, "w": items}).to_parquet(path)
    argv = ["union", str(path), "--person", "u", "--item", "w", "--max-items", "4", "--json"]
    assert main([*argv, "--engine", "spark", "--seed", "3"]) == 0
    out = capsys.readouterr()
    cli = json.loads(out.out)
    assert (cli["mechanism"], cli["secure"]) == ("dp_sips", True)
    assert "with dp_sips" in out.err and "exact noise: may be released" in out.err
    assert "Spark master local[2]" in out.err  # the active session is used as it is
    python = dp_sips(SparkPairs(str(path), person="u", item="w"), 1.0, 1e-6, max_items=4, rng=3)
    graph = PersonItemGraph.from_pairs(persons, items)
    local = dp_sips(graph, 1.0, 1e-6, max_items=4, rng=3, sampling="keyed")
    assert cli["items"] == python.items.tolist() == local.items.tolist()
    assert [r["released"] for r in cli["rounds"]] == [r.released for r in python.rounds]
    assert 0 < len(local.items) < graph.n_items
    other = dp_sips(graph, 1.0, 1e-6, max_items=4, rng=4, sampling="keyed")
    assert other.items.tolist() != local.items.tolist()
    assert main(argv) == 0  # the local engine: the same default
    assert json.loads(capsys.readouterr().out)["mechanism"] == "dp_sips"


@pytest.mark.filterwarnings("ignore::dpcount.errors.UnsafeNoiseWarning")  # MAD is float-only
@pytest.mark.parametrize("algorithm", names(family="set_union", engine="spark"))
def test_every_spark_algorithm_runs_from_the_cli_with_and_without_noise(
    spark: Any, tmp_path: Path, capsys: Any, algorithm: str
) -> None:
    """Through the adapter, ``--noise`` reaches the mechanisms that have an exact form and
    is not passed to the float-only one (whose local function takes no ``noise=``)."""
    path = tmp_path / "pairs.parquet"
    _pairs_csv(tmp_path / "pairs.csv").to_parquet(path)
    argv = ["union", str(path), "--person", "u", "--item", "w", "--algorithm", algorithm]
    for noise in ([], ["--noise", "float"]):
        assert main([*argv, *noise, "--engine", "spark", "--seed", "1", "--json"]) == 0
        out = capsys.readouterr()
        doc, exact = json.loads(out.out), algorithm in EXACT and not noise
        assert (doc["mechanism"], doc["secure"]) == (algorithm, exact)
        assert ("exact noise: may be released" if exact else "NOT for release") in out.err


def test_counting_defaults_agree_across_engines_and_front_ends(
    spark: Any, tmp_path: Path, capsys: Any
) -> None:
    frame = _pairs_csv(tmp_path / "pairs.csv")
    path = tmp_path / "pairs.parquet"
    frame.to_parquet(path)
    df = spark.createDataFrame(frame)
    graph = PersonItemGraph.from_pairs(frame["u"].tolist(), frame["w"].tolist())
    got = dp_distinct_count(SparkPairs(df, person="u", item="w"), 1.0, ell_max=6, rng=4)
    want = dp_distinct_count(graph, 1.0, ell_max=6, rng=4)
    assert (got.counting, got.estimate, got.ell) == ("matching", want.estimate, want.ell)
    argv = ["count", str(path), "--person", "u", "--item", "w", "--ell-max", "6", "--json"]
    assert main([*argv, "--engine", "spark", "--seed", "4"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert (cli["counting"], cli["estimate"]) == ("matching", want.estimate)
    # Too many pairs for the driver: refused, naming the distributed option.
    with pytest.raises(DataError, match="counting='sampling'"):
        distinct_count(df, "u", "w", 1.0, ell_max=6, max_pairs=10)
    assert distinct_count(df, "u", "w", 1.0, counting="sampling", max_pairs=10).ell >= 1


def test_zip_holds_everything_the_packages_import(tmp_path: Path) -> None:
    """A Python that sees only the zip and the third-party packages (no editable install, no
    .pth files) imports the Spark code and runs a release from the zip."""
    archive = build_zip(tmp_path / "dpcount.zip")
    code = (
        "import sys; sys.path[:0] = sys.argv[1:]; import dpcount.spark, matching, mechanisms; "
        "from mechanisms import dp_distinct_count; from dpcount import PersonItemGraph; "
        "g = PersonItemGraph.from_pairs(['a', 'b'], ['x', 'y']); "
        "r = dp_distinct_count(g, 1.0, ell_max=2, rng=0); "
        "print(*(m.__file__ for m in (dpcount, matching, mechanisms)), sep='\\n')"
    )
    site = sysconfig.get_paths()["purelib"]
    out = subprocess.run(
        [sys.executable, "-S", "-c", code, str(archive), site],
        capture_output=True,
        text=True,
        check=True,
        env=_clean_env() | {"PYTHONPATH": ""},
        cwd=tmp_path,
    ).stdout.split()
    assert out == [f"{archive}/{name}/__init__.py" for name in PACKAGES]


def test_launcher_path_prints_without_running_the_cli() -> None:
    out = subprocess.run(
        [sys.executable, "-c", "import dpcount.spark.submit as m; print(m.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().endswith("dpcount/spark/submit.py") and out.stderr == ""


@pytest.mark.slow
def test_created_session_suits_its_master(tmp_path: Path) -> None:
    """A fresh process: dpcount_session() on local[*] (no master given) takes 2 partitions per
    core, quiet logs, no progress bar, the driver's Python for the workers; a setting the
    caller gives wins."""
    _java()
    code = (
        "import json, os, sys; from dpcount.spark import dpcount_session; "
        "s = dpcount_session(conf={'spark.ui.enabled': 'false', 'spark.log.level': 'WARN'}); "
        "c = s.sparkContext; "
        "print(json.dumps({'master': c.master, 'cores': len(os.sched_getaffinity(0)), "
        "'partitions': s.conf.get('spark.sql.shuffle.partitions'), "
        "'progress': c.getConf().get('spark.ui.showConsoleProgress'), "
        "'log': c.getConf().get('spark.log.level'), 'python': c.pythonExec, "
        "'worker': c.parallelize([0], 1).map(lambda _: sys.executable).collect()[0], "
        "'driver': sys.executable})); s.stop()"
    )
    env = {k: v for k, v in _clean_env().items() if k != "PYSPARK_PYTHON"}
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr[-2000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])
    assert got["master"] == "local[*]"
    assert got["partitions"] == str(2 * got["cores"])
    assert (got["progress"], got["log"]) == ("false", "WARN")
    assert got["python"] == got["worker"] == got["driver"]
    assert "[Stage" not in run.stderr
    assert "NativeCodeLoader" not in run.stderr  # the JVM's start-up warnings are off too


@pytest.mark.slow
def test_spark_submit_recipe_runs_end_to_end(tmp_path: Path, capsys: Any) -> None:
    """The documented recipe: build the zip, submit the launcher with a master and a setting;
    the submitted master and setting win over dpcount's defaults, and the release equals the
    local one with the same seed.  The master is ``local-cluster[2,1,1024]`` – a standalone
    master and two workers whose executors are separate JVMs with their own Python workers, as
    on a cluster – where PySpark ships the launcher scripts it needs, else ``local[2]``."""
    _java()
    import pyspark

    bin_dir = Path(pyspark.__file__).parent / "bin"
    submit = bin_dir / "spark-submit"
    # local-cluster starts each executor with SPARK_HOME's bin/spark-class (pip's pyspark has it)
    master = "local-cluster[2,1,1024]" if (bin_dir / "spark-class").exists() else "local[2]"
    csv = tmp_path / "pairs.csv"
    _pairs_csv(csv, n=400)
    archive = subprocess.run(
        [sys.executable, "-m", "dpcount.spark.package", str(tmp_path / "dpcount.zip")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    launcher = subprocess.run(
        [sys.executable, "-c", "import dpcount.spark.submit as m; print(m.__file__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    args = ["count", str(csv), "--person", "u", "--item", "w", "--counting", "sampling"]
    args += ["--ell-max", "6", "--seed", "3", "--json"]
    env = _clean_env() | {"PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    run = subprocess.run(
        [
            *(str(submit), "--master", master, "--conf", "spark.sql.shuffle.partitions=3"),
            *("--conf", "spark.ui.enabled=false", "--py-files", archive, launcher),
            *(*args, "--engine", "spark"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    # spark-submit passes the driver's stderr to its stdout: the notes come with the JSON.
    notes = [line for line in run.stdout.splitlines() if line.startswith("dpcount count: note:")]
    assert f"dpcount count: note: Spark master {master}, 3 shuffle partitions" in notes
    assert "[Stage" not in run.stdout + run.stderr
    submitted = json.loads("\n".join(x for x in run.stdout.splitlines() if x not in notes))
    assert main(args) == 0
    local = json.loads(capsys.readouterr().out)
    assert (submitted["estimate"], submitted["ell"]) == (local["estimate"], local["ell"])
