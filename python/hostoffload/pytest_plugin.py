"""``pytest --hostoffload``: fail every test during which JAX compiles a program that fails
the host-offload check, with the report in the failure.

Registered through the ``pytest11`` entry point, so every pytest run in an environment with
hostoffload installed loads this module: it imports nothing but pytest until the option is
given (no jax, no MLIR).
"""

from __future__ import annotations

import argparse
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from hostoffload.platforms import Platform
    from hostoffload.releases import ReleaseRequest

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
        "--hostoffload-platform",
        default=None,
        metavar="PLATFORM",
        help="with --hostoffload, the lowering checked when JAX compiles for CPU: tpu "
        "(default, or the [tool.hostoffload] table's, or $HOSTOFFLOAD_PLATFORM) or cuda",
    )
    group.addoption(
        "--hostoffload-xla-release",
        default=None,
        metavar="RELEASE",
        help="with --hostoffload, the XLA to model where releases differ: an XLA release such "
        "as 2026-06 or a libtpu release such as 0.0.42.1 (default: $HOSTOFFLOAD_XLA_RELEASE, "
        "the [tool.hostoffload] table's, the libtpu JAX runs or is installed, else the newest)",
    )
    group.addoption(
        "--hostoffload-strict",
        action=argparse.BooleanOptionalAction,
        help="with --hostoffload, device compute on host memory is error HOE101 "
        "(--no-hostoffload-strict: it is warning HOW101, whatever pyproject.toml says)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption(OPTION):
        return
    from hostoffload.codes import code_named
    from hostoffload.config import ConfigError, find
    from hostoffload.platforms import chosen_platform
    from hostoffload.releases import ReleaseRequest, environment_xla_release, xla_release_named

    try:
        # The project's [tool.hostoffload] table, the defaults of the options.
        table = find(config.rootpath)
    except ConfigError as error:
        raise pytest.UsageError(str(error)) from None
    try:
        ignore = tuple(code_named(code) for code in config.getoption("--hostoffload-ignore"))
    except ValueError as error:
        raise pytest.UsageError(f"--hostoffload-ignore: {error}") from None
    ignore += table.ignore
    try:
        platform = chosen_platform(config.getoption("--hostoffload-platform") or table.platform)
    except ValueError as error:
        raise pytest.UsageError(f"--hostoffload-platform: {error}") from None
    given_release = config.getoption("--hostoffload-xla-release")
    try:
        if given_release is not None:
            xla_release_named(given_release)
    except ValueError as error:
        raise pytest.UsageError(f"--hostoffload-xla-release: {error}") from None
    try:
        environment_xla_release()
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    release = ReleaseRequest(
        given_release,
        given_as="--hostoffload-xla-release {}",
        configured=table.xla_release,
        configured_in=table.path,
    )
    strict = config.getoption("--hostoffload-strict")
    if strict is None:
        strict = bool(table.strict)
    checker = _checker(ignore=ignore, strict=strict, platform=platform, release=release)
    config.pluginmanager.register(checker, PLUGIN_NAME)


def _checker(
    *, ignore: tuple[str, ...], strict: bool, platform: Platform, release: ReleaseRequest
) -> object:
    """The plugin object that watches each test's call (not its fixtures) and fails it on any
    program whose lowering for ``platform`` has errors. Its class is made here, not when this
    module is imported: the new-style hook wrapper needs pytest 8, which only ``--hostoffload``
    should require."""

    class Checker:
        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, Any]:
            from hostoffload.compile_hook import watch

            with watch(
                "record", strict=strict, ignore=ignore, platform=platform, xla_release=release
            ) as watcher:
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

    return Checker()


def _message(mismatches: list[Any]) -> str:
    texts = [str(mismatch) for mismatch in mismatches]
    count = len(mismatches)
    heading = f"hostoffload: {count} program{'' if count == 1 else 's'} compiled by this test "
    heading += "would fail XLA's host-offload check:"
    return "\n\n".join([heading, *texts])
