"""Assertions for test suites: a JAX function's host offloading is what XLA accepts.

``assert_no_mismatch(step, params, opt_state)`` fails a test with the compiler-style report
(codes, outputs, Python lines) and the ``out_shardings`` fix, where XLA:TPU would fail the
program with E1200 at compile time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from hostoffload.report import Report

if TYPE_CHECKING:
    from hostoffload.platforms import Platform


def assert_no_mismatch(
    fn: Callable[..., Any],
    *args: Any,
    platform: Platform = "tpu",
    ignore: Sequence[str] = (),
    xla_release: str | None = None,
    **jit_kwargs: Any,
) -> Report:
    """Lowers ``fn`` at ``args`` as :func:`hostoffload.check_jax` does and checks it.

    Raises ``AssertionError`` whose message is the report when it has errors (after dropping
    the codes in ``ignore``); returns the report otherwise, warnings included. ``platform``,
    ``xla_release`` and ``jit_kwargs`` are those of :func:`hostoffload.check_jax`.
    """
    __tracebackhide__ = True  # pytest shows the caller's line, not this one.
    from hostoffload import api

    report = api.check_jax(fn, *args, platform=platform, xla_release=xla_release, **jit_kwargs)
    report = report.ignoring(ignore)
    if not report.ok:
        raise AssertionError(report.to_text(jax_fix=True))
    return report
