"""The modules :func:`hostoffload.check` and :func:`hostoffload.fix` parse for themselves are
torn down on a thread of the library's own: the caller has its result before, every context is
released after, and the interpreter exits only once they are gone."""

import gc
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import hostoffload
from hostoffload.diagnostic import InputError
from hostoffload.mlir import ir
from hostoffload.mlir._mlir_libs import _hostoffload
from tools.generate import write_module


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    return write_module(
        "chain", 20_000, tmp_path_factory.mktemp("teardown") / "c.mlir"
    ).read_bytes()


def live_contexts_after_teardown() -> int:
    # Contexts other tests left in reference cycles must not go while one is counting.
    gc.collect()
    _hostoffload.wait_for_background_destruction()
    return ir.Context._get_live_count()


def test_every_context_is_released_after_the_teardown(chain: bytes) -> None:
    before = live_contexts_after_teardown()
    reports = [hostoffload.check(chain) for _ in range(4)]
    fixed = hostoffload.fix(chain, "device")
    assert live_contexts_after_teardown() == before
    assert all(r.findings == reports[0].findings for r in reports)
    assert hostoffload.check(fixed).ok == reports[0].ok


def test_the_interpreter_releases_the_context_without_being_asked(chain: bytes) -> None:
    before = live_contexts_after_teardown()
    hostoffload.check(chain)
    deadline = time.monotonic() + 60
    while ir.Context._get_live_count() != before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ir.Context._get_live_count() == before


def test_a_check_that_fails_releases_its_context(chain: bytes) -> None:
    before = live_contexts_after_teardown()
    with pytest.raises(InputError, match="is not a func.func in this module"):
        hostoffload.check(chain, entry="missing")
    assert live_contexts_after_teardown() == before


def test_checks_on_several_threads(chain: bytes) -> None:
    before = live_contexts_after_teardown()
    expected = hostoffload.check(chain).findings
    results: list[bool] = []

    def run() -> None:
        results.extend(hostoffload.check(chain).findings == expected for _ in range(3))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 12
    assert live_contexts_after_teardown() == before


def test_the_interpreter_exits_cleanly_with_a_teardown_under_way(tmp_path: Path) -> None:
    # A module of 300k ops takes a while to destroy: the interpreter exits while it is.
    path = write_module("chain", 300_000, tmp_path / "big.mlir")
    script = (
        "import hostoffload, sys\n"
        f"report = hostoffload.check({str(path)!r})\n"
        "print(report.ok, len(report.findings))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.split()[0] in ("True", "False")


@pytest.mark.parametrize("teardowns_in_flight", [0, 2])
def test_a_forked_child_checks_and_exits(
    chain: bytes, tmp_path: Path, teardowns_in_flight: int
) -> None:
    # The child has none of the parent's threads: the teardowns the parent had handed over
    # (just now, so that the fork finds them under way or queued) and the child's own must
    # not leave it waiting at exit.
    expected = hostoffload.check(chain).findings
    big = write_module("chain", 200_000, tmp_path / "big.mlir").read_bytes()
    for _ in range(teardowns_in_flight):
        hostoffload.check(big)
    pid = os.fork()
    if pid == 0:
        try:
            same = all(hostoffload.check(chain).findings == expected for _ in range(2))
            _hostoffload.wait_for_background_destruction()
            os._exit(0 if same else 1)
        finally:
            os._exit(2)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child did not finish")
