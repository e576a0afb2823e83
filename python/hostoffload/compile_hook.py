"""Check every program JAX compiles, before XLA compiles it.

:class:`watch` is a context manager and a decorator. While one is active, every module JAX
hands to XLA (a ``jax.jit`` call that compiles, ``.lower(...).compile()``) is checked first;
a module with errors raises :class:`MismatchError` instead of being compiled
(``action="error"``), or warns with :class:`MismatchWarning` and compiles
(``action="warn"``), or is only recorded in :attr:`watch.mismatches` (``action="record"``).
``HOSTOFFLOAD_WATCH=error`` (or ``1``) or ``=warn`` in the environment starts one for the whole
process when ``hostoffload`` is imported; ``hostoffload run SCRIPT`` runs a script under one.

The hook is ``jax._src.compiler.compile_or_get_cached``, the one function through which
every compilation of a lowered JAX program reaches XLA (and the persistent compilation cache),
for ``jit`` calls and ``Lowered.compile`` alike; it receives the StableHLO module as JAX will
compile it. It is private to JAX, so :func:`install` fails with a clear error when it is gone.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any, Literal, TypeVar

from hostoffload.diagnostic import InputError
from hostoffload.report import Report

Action = Literal["error", "warn", "record"]
ACTIONS: tuple[Action, ...] = ("error", "warn", "record")

ENVIRONMENT_VARIABLE = "HOSTOFFLOAD_WATCH"
# The values of HOSTOFFLOAD_WATCH and the action each starts; empty or "0" starts none.
ENVIRONMENT_ACTIONS: dict[str, Action] = {"1": "error", "error": "error", "warn": "warn"}

HOOKED_MODULE = "jax._src.compiler"
HOOKED_FUNCTION = "compile_or_get_cached"

_Function = TypeVar("_Function", bound=Callable[..., Any])


class MismatchError(Exception):
    """A program JAX was about to compile fails the host-offload check; ``report`` says why.

    ``outputs`` are the ``jax.result_info`` paths of the program's outputs, when known, for
    the message's ``out_shardings`` fix (:meth:`Report.jax_fix`).
    """

    def __init__(self, report: Report, outputs: Sequence[str] | None = None) -> None:
        self.report = report
        self.outputs = tuple(outputs) if outputs is not None else None
        super().__init__(report.to_text(jax_fix=True, outputs=outputs))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.report, self.outputs))


class MismatchWarning(UserWarning):
    """:class:`MismatchError` as a warning, for ``watch(action="warn")``."""

    def __init__(self, report: Report, outputs: Sequence[str] | None = None) -> None:
        self.report = report
        self.outputs = tuple(outputs) if outputs is not None else None
        super().__init__(report.to_text(jax_fix=True, outputs=outputs))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.report, self.outputs))


class watch:  # Lower case: it reads as a function, ``with hostoffload.watch():``.
    """Checks every program JAX compiles while active; see the module's documentation.

    ``strict`` and ``ignore`` are those of :func:`hostoffload.check` and ``--ignore``;
    ``mismatches`` holds a :class:`MismatchError` for every module that had errors (after
    ``ignore``), in the order JAX compiled them, whatever the action; ``reports`` their
    reports. Watches nest: the innermost active one decides.
    """

    def __init__(
        self, action: Action = "error", *, strict: bool = False, ignore: Sequence[str] = ()
    ) -> None:
        if action not in ACTIONS:
            raise ValueError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
        self.action = action
        self.strict = strict
        self.ignore = frozenset(ignore)
        self.mismatches: list[MismatchError] = []

    @property
    def reports(self) -> list[Report]:
        return [mismatch.report for mismatch in self.mismatches]

    def __enter__(self) -> watch:
        install()
        with _lock:
            _active.append(self)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        with _lock:
            _active.remove(self)

    def __call__(self, function: _Function) -> _Function:
        @functools.wraps(function)
        def watched(*args: Any, **kwargs: Any) -> Any:
            with watch(self.action, strict=self.strict, ignore=self.ignore) as inner:
                try:
                    return function(*args, **kwargs)
                finally:
                    self.mismatches.extend(inner.mismatches)

        return watched  # type: ignore[return-value]

    def inspect(self, module: Any) -> None:
        """Checks one jaxlib module before XLA compiles it, and acts on its errors."""
        name = _module_name(module)
        try:
            report = _check(module, self.strict, name)
            outputs = output_paths(module)
        except InputError as error:
            # Never keep a program from compiling because we could not read it.
            message = f"hostoffload could not check {name}: {error}"
            warnings.warn(message, stacklevel=_caller_stacklevel())
            return
        report = report.ignoring(self.ignore)
        if report.ok:
            return
        mismatch = MismatchError(report, outputs)
        self.mismatches.append(mismatch)
        if self.action == "error":
            raise mismatch
        if self.action == "warn":
            warnings.warn(MismatchWarning(report, outputs), stacklevel=_caller_stacklevel())


_lock = threading.Lock()
_active: list[watch] = []
_original: Callable[..., Any] | None = None


def install() -> None:
    """Puts the hook in place (once); it does nothing while no :class:`watch` is active."""
    global _original
    with _lock:
        if _original is not None:
            return
        try:
            import jax._src.compiler as compiler
        except ImportError as error:
            raise RuntimeError(f"hostoffload.watch needs jax: {error}") from None
        original = getattr(compiler, HOOKED_FUNCTION, None)
        if original is None:
            raise RuntimeError(
                f"hostoffload.watch cannot hook this JAX ({_jax_version()}): "
                f"{HOOKED_MODULE}.{HOOKED_FUNCTION} is gone; see docs/jax.md for the "
                "versions it is tested with"
            )

        @functools.wraps(original)
        def checked_compile(backend: Any, computation: Any, *args: Any, **kwargs: Any) -> Any:
            with _lock:
                current = _active[-1] if _active else None
            if current is not None:
                current.inspect(computation)
            return original(backend, computation, *args, **kwargs)

        setattr(compiler, HOOKED_FUNCTION, checked_compile)
        _original = original


def start_from_environment() -> watch | None:
    """Starts the watch ``HOSTOFFLOAD_WATCH`` asks for, for the rest of the process."""
    value = os.environ.get(ENVIRONMENT_VARIABLE, "").strip().lower()
    if value in ("", "0"):
        return None
    action = ENVIRONMENT_ACTIONS.get(value)
    if action is None:
        known = ", ".join(sorted(ENVIRONMENT_ACTIONS))
        warnings.warn(
            f"{ENVIRONMENT_VARIABLE}={value!r} is not one of {known} (or 0): not watching",
            stacklevel=2,
        )
        return None
    started = watch(action)
    with _lock:
        _active.append(started)
    if HOOKED_MODULE in sys.modules:
        install()
    else:
        # Importing JAX here would slow down every program that imports hostoffload without
        # compiling anything (offload-opt among them): the hook goes in when JAX is imported.
        sys.meta_path.insert(0, _InstallWhenImported())
    return started


class _InstallWhenImported(importlib.abc.MetaPathFinder):
    """Calls :func:`install` right after JAX's compiler module has been imported."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name != HOOKED_MODULE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            load(module)
            install()

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def output_paths(module: Any) -> tuple[str, ...] | None:
    """The ``jax.result_info`` of every output of a jaxlib module's ``main``, in order."""
    for operation in module.body.operations:
        attributes = operation.attributes
        if "sym_name" not in attributes or _string(attributes["sym_name"]) != "main":
            continue
        if "res_attrs" not in attributes:
            return None
        paths = []
        for result in attributes["res_attrs"]:
            if "jax.result_info" not in result:
                return None
            paths.append(_string(result["jax.result_info"]))
        return tuple(paths)
    return None


def _check(module: Any, strict: bool, name: str) -> Report:
    # Imported here: hostoffload.api loads MLIR, which importing this module must not.
    from hostoffload import api

    return dataclasses.replace(api.check(module, strict=strict), source=name)


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of the innermost frame outside JAX and hostoffload: the line of the
    user's program that made JAX compile, for the warning to point at."""
    libraries = tuple(
        f"{Path(module.__file__).parent}{os.sep}"
        for module in (sys.modules.get("jax"), sys.modules[__package__ or "hostoffload"])
        if module is not None and module.__file__ is not None
    )
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(libraries):
        frame = frame.f_back
        level += 1
    return level


def _module_name(module: Any) -> str:
    attributes = module.operation.attributes
    return _string(attributes["sym_name"]) if "sym_name" in attributes else "the module"


def _string(attribute: Any) -> str:
    value = getattr(attribute, "value", None)
    return value if isinstance(value, str) else str(attribute).strip('"')


def _jax_version() -> str:
    try:
        import jax

        return f"jax {jax.__version__}"
    except ImportError:
        return "jax not installed"
