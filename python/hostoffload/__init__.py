"""Find, explain and fix XLA's host-offload output mismatch (E1200) in StableHLO.

:func:`check` and :func:`check_jax` return a :class:`Report`; :func:`fix` rewrites a module;
:func:`trace` and :func:`trace_jax` say where every tensor in host memory goes (:class:`Trace`).
:class:`watch` checks every program JAX compiles (``HOSTOFFLOAD_WATCH=error`` or ``=warn``
starts one when this package is imported; ``%load_ext hostoffload`` in a notebook, see
:mod:`hostoffload.notebook`); :mod:`hostoffload.testing` has assertions for tests. The MLIR
Python API with the host-offload passes registered lives in :mod:`hostoffload.mlir`.
"""

import importlib
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hostoffload.api import check, check_jax, fix, trace, trace_jax
    from hostoffload.compile_hook import MismatchError, MismatchWarning, watch
    from hostoffload.diagnostic import Diagnostic, InputError, Location, Note
    from hostoffload.report import Finding, Fix, Report
    from hostoffload.starts import PathStep, Start
    from hostoffload.tracing import StartTrace, Trace, TraceFate

    __version__: str

# The module of each public name. The offload-opt console script imports this package only
# to exec the native driver, so nothing is imported before it is used: MLIR's Python
# extension, the report types and even importlib.metadata would slow down every call.
_MODULE_OF = {
    "check": "api",
    "check_jax": "api",
    "fix": "api",
    "trace": "api",
    "trace_jax": "api",
    "MismatchError": "compile_hook",
    "MismatchWarning": "compile_hook",
    "watch": "compile_hook",
    "Diagnostic": "diagnostic",
    "InputError": "diagnostic",
    "Location": "diagnostic",
    "Note": "diagnostic",
    "Finding": "report",
    "Fix": "report",
    "PathStep": "starts",
    "Report": "report",
    "Start": "starts",
    "StartTrace": "tracing",
    "Trace": "tracing",
    "TraceFate": "tracing",
    # IPython's extension protocol (`%load_ext hostoffload`).
    "load_ipython_extension": "notebook",
    "unload_ipython_extension": "notebook",
}

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
    "StartTrace",
    "Trace",
    "TraceFate",
    "__version__",
    "check",
    "check_jax",
    "fix",
    "trace",
    "trace_jax",
    "watch",
]


def __getattr__(name: str) -> object:
    if name == "__version__":
        from importlib.metadata import version

        return version("hostoffload")
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'hostoffload' has no attribute {name!r}")
    return getattr(importlib.import_module(f"hostoffload.{module}"), name)


# compile_hook reads the value, and says what is wrong with one it does not know.
if "HOSTOFFLOAD_WATCH" in os.environ:
    from hostoffload.compile_hook import start_from_environment

    start_from_environment()
