"""``pytest --hostoffload``: fail every test during which JAX compiles a program that fails
the host-offload check, with the report in the failure.

Registered through the ``pytest11`` entry point, so every pytest run in an environment with
hostoffload installed loads this module: it imports nothing but pytest until the option is
given (no jax, no MLIR).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

OPTION = "--hostoffload"
PLUGIN_NAME = "hostoffload-checker"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hostoffload", "host-offload check of JAX programs")
    group.addoption(
        OPTION,
        action="store_true",
        help="check every program JAX compiles during a test; fail the test on E1200",
    )
    group.addoption(
        "--hostoffload-ignore",
        action="append",
        default=[],
        metavar="CODE",
        help="with --hostoffload, leave out the findings of CODE (repeatable)",
    )
    group.addoption(
        "--hostoffload-strict",
        action="store_true",
        help="with --hostoffload, device compute on host memory is error E1201",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption(OPTION):
        checker = _Checker(
            ignore=config.getoption("--hostoffload-ignore"),
            strict=config.getoption("--hostoffload-strict"),
        )
        config.pluginmanager.register(checker, PLUGIN_NAME)


class _Checker:
    """Watches each test's call (not its fixtures) and fails it on any program with errors."""

    def __init__(self, *, ignore: list[str], strict: bool) -> None:
        self.ignore = tuple(code.upper() for code in ignore)
        self.strict = strict

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, Any]:
        from hostoffload.compile_hook import watch

        with watch("record", strict=self.strict, ignore=self.ignore) as watcher:
            try:
                result = yield
            except BaseException as error:
                # The test failed by itself; the report still says what else was wrong.
                if watcher.mismatches and hasattr(error, "add_note"):
                    error.add_note(_message(watcher.mismatches))
                raise
        if watcher.mismatches:
            pytest.fail(_message(watcher.mismatches), pytrace=False)
        return result


def _message(mismatches: list[Any]) -> str:
    texts = [str(mismatch) for mismatch in mismatches]
    count = len(mismatches)
    heading = f"hostoffload: {count} program{'' if count == 1 else 's'} compiled by this test "
    heading += "would fail XLA's host-offload check:"
    return "\n\n".join([heading, *texts])
