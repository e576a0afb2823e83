"""Find, explain and fix XLA's host-offload output mismatch (E1200) in StableHLO.

:func:`check` and :func:`check_jax` return a :class:`Report`; :func:`fix` rewrites a module.
:class:`watch` checks every program JAX compiles (``HOSTOFFLOAD_WATCH=error`` or ``=warn``
starts one when this package is imported); :mod:`hostoffload.testing` has assertions for
tests. The MLIR Python API with the host-offload passes registered lives in
:mod:`hostoffload.mlir`.
"""

from importlib.metadata import version as _version
from typing import TYPE_CHECKING

from hostoffload.compile_hook import MismatchError, MismatchWarning, start_from_environment, watch
from hostoffload.diagnostic import Diagnostic, InputError, Location, Note
from hostoffload.report import Finding, Fix, PathStep, Report, Start

if TYPE_CHECKING:
    from hostoffload.api import check, check_jax, fix

__version__ = _version("hostoffload")

__all__ = [
    "Diagnostic",
    "Finding",
    "Fix",
    "InputError",
    "Location",
    "MismatchError",
    "MismatchWarning",
    "Note",
    "PathStep",
    "Report",
    "Start",
    "__version__",
    "check",
    "check_jax",
    "fix",
    "watch",
]

_API = ("check", "check_jax", "fix")


def __getattr__(name: str) -> object:
    # The offload-opt console script imports this package only to exec the native driver:
    # loading MLIR's Python extension here would slow down every offload-opt call.
    if name in _API:
        from hostoffload import api

        return getattr(api, name)
    raise AttributeError(f"module 'hostoffload' has no attribute {name!r}")


start_from_environment()
