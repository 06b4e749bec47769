"""SIGTERM and SIGHUP clean up as Ctrl-C does (issue 24, item 6).

They used to kill the command at once and leave its empty ``dpcount-duckdb-*`` folder in the
temporary directory; Ctrl-C inside a query ended in DuckDB's ``RuntimeError: Query
interrupted`` traceback.  Each test starts a long query in a subprocess, waits until its
database folder exists (and then while the database starts or while the query runs), sends the
signal and checks the exit status, the one-line message and that the folder is gone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LONG_QUERY = "SELECT i % 100000 AS person, hash(i) AS item FROM range(2000000000) t(i)"


@pytest.mark.parametrize("wait", [0.0, 0.5], ids=["starting", "querying"])
@pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"]
)
def test_signal_cleans_up_and_says_so_in_one_line(tmp_path, signum, wait):
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(temp)}
    command = [sys.executable, "-m", "dpcount", "count", "--sql", LONG_QUERY, "--seed", "1"]
    with subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        try:
            deadline = time.monotonic() + 120
            while not any(temp.glob("dpcount-duckdb-*")):  # the database is open: reading
                assert process.poll() is None, process.communicate()
                assert time.monotonic() < deadline, "the query never started"
                time.sleep(0.01)
            time.sleep(wait)
            process.send_signal(signum)
            out, err = process.communicate(timeout=120)
        finally:
            process.kill()
    assert process.returncode == 128 + signum
    assert out == ""
    name = signal.Signals(signum).name
    said = "interrupted" if signum == signal.SIGINT else f"terminated by {name}"
    assert err == f"dpcount count: {said}\n"
    assert list(temp.iterdir()) == []


def test_ignored_hangup_stays_ignored():
    """Under ``nohup`` SIGHUP is ignored; the command line must not take it over."""
    code = (
        "import os, signal\n"
        "from dpcount.cli._signals import stop_signals\n"
        "signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
        "with stop_signals():\n"
        "    os.kill(os.getpid(), signal.SIGHUP)\n"
        "    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN\n"
        "    assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL\n"
        "assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL\n"
        "print('ok')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")
