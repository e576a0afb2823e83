"""Check every program JAX compiles, before XLA compiles it.

:class:`watch` is a context manager and a decorator. While one is active, every program JAX
hands to XLA (a ``jax.jit`` call that compiles, ``.lower(...).compile()``) is checked first;
a program with errors raises :class:`MismatchError` instead of being compiled
(``action="error"``), or warns with :class:`MismatchWarning` and compiles
(``action="warn"``), or is only recorded in :attr:`watch.mismatches` (``action="record"``).
``HOSTOFFLOAD_WATCH=error`` (or ``1``) or ``=warn`` in the environment starts one for the whole
process, in any Python program (a start-up hook installed with the package reads it);
``hostoffload run SCRIPT`` runs a script under one; ``watch().start()`` starts one until its
``stop()``, and ``%load_ext hostoffload`` one for a notebook's later cells
(:mod:`hostoffload.notebook`). In IPython a :class:`MismatchError`'s traceback ends at the
user's line, and in a Jupyter kernel its report is shown (:mod:`hostoffload._kernel`).

What is checked is the lowering for the platform that offloads. When JAX compiles for TPU or
GPU, that is the module it compiles. When it compiles for CPU (CI, a laptop), it is not: JAX
drops every ``jax.device_put`` between memories inside ``jit`` when it lowers for CPU, so the
CPU module both misses and invents E1200s. The same computation is then lowered again for
``platform`` (TPU unless told otherwise, ``HOSTOFFLOAD_PLATFORM``), and that lowering is
checked; the report names it (:attr:`Report.platform`).

The hooks are private to JAX: ``pxla.lower_sharding_computation``, through which ``jit``
lowers (to lower the same computation again), ``pxla.MeshComputation.compile``, through which
``jit`` calls and ``Lowered.compile`` compile, and ``compiler.compile_or_get_cached``, which
every compilation reaches (the other programs, such as ``pmap``'s, are checked there as JAX
compiles them). :func:`install` fails with a clear error when one is gone.
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
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from hostoffload._cells import shell as ipython_shell
from hostoffload._cells import with_cell_names
from hostoffload._frames import caller_stacklevel, exclude_own_files_from_jax, to_last_user_frame
from hostoffload.platforms import (
    DEFAULT_PLATFORM,
    OFFLOADING_PLATFORMS,
    Platform,
    chosen_platform,
    platform_named,
)
from hostoffload.releases import ReleaseRequest, environment_xla_release, xla_release_named

if TYPE_CHECKING:
    from hostoffload.report import Report

Action = Literal["error", "warn", "record"]
ACTIONS: tuple[Action, ...] = ("error", "warn", "record")

ENVIRONMENT_VARIABLE = "HOSTOFFLOAD_WATCH"
# The values of HOSTOFFLOAD_WATCH and the action each starts; empty or "0" starts none.
ENVIRONMENT_ACTIONS: dict[str, Action] = {"1": "error", "error": "error", "warn": "warn"}

COMPILER_MODULE = "jax._src.compiler"
COMPILE_FUNCTION = "compile_or_get_cached"
LOWERING_MODULE = "jax._src.interpreters.pxla"
LOWER_FUNCTION = "lower_sharding_computation"
COMPUTATION_CLASS = "MeshComputation"
# Imported last of the three by JAX; the hooks go in when it has been imported.
HOOKED_MODULE = LOWERING_MODULE

# The attribute of a MeshComputation that lowers its computation again for another platform.
_LOWER_FOR = "_hostoffload_lower_for"

_Function = TypeVar("_Function", bound=Callable[..., Any])


class _Mismatch:
    """The body :class:`MismatchError` and :class:`MismatchWarning` share."""

    def __init__(self, report: Report, outputs: Sequence[str] | None = None) -> None:
        self.report = report
        self.outputs = tuple(outputs) if outputs is not None else None
        super().__init__(_message(report, outputs))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.report, self.outputs))

    def _repr_html_(self) -> str:
        """The report in a notebook, headed by what happened (:mod:`hostoffload._html`)."""
        platform = self.report.platform
        xla = f"XLA for {platform.upper()}" if platform else "XLA"
        what = "compiled" if isinstance(self, Warning) else "stopped before XLA compiled"
        heading = (
            f"{type(self).__name__}: {xla} would reject "
            f"{self.report.source or 'the program'}; {what} it"
        )
        return self.report.to_html(outputs=self.outputs, heading=heading)

    def _render_traceback_(self) -> list[str]:
        """IPython's traceback of the error, to the user's call that made JAX compile, after
        showing the report in a Jupyter kernel (IPython asks an exception for its traceback
        by this method)."""
        from hostoffload._kernel import render_traceback

        return render_traceback(self, to_last_user_frame(self.__traceback__))


class MismatchError(_Mismatch, Exception):
    """A program JAX was about to compile fails the host-offload check; ``report`` says why.

    ``outputs`` are the ``jax.result_info`` paths of the program's outputs, when known, for
    the message's ``out_shardings`` fix (:meth:`Report.jax_fix`).
    """


class MismatchWarning(_Mismatch, UserWarning):
    """:class:`MismatchError` as a warning, for ``watch(action="warn")``."""


class watch:  # Lower case: it reads as a function, ``with hostoffload.watch():``.
    """Checks every program JAX compiles while active; see the module's documentation.

    ``strict``, ``xla_release`` and ``ignore`` are those of :func:`hostoffload.check` and
    ``--ignore``; without ``xla_release``, the release is chosen as each program is checked,
    so that a TPU backend JAX starts meanwhile decides it (:mod:`hostoffload.releases`);
    ``platform`` is the platform whose lowering is checked when JAX compiles for one whose
    XLA does not offload (CPU): ``"tpu"`` (default) or ``"cuda"``. ``mismatches`` holds a
    :class:`MismatchError` for every program that had errors (after ``ignore``), in the order
    JAX compiled them, whatever the action; ``reports`` their reports. Watches nest: the
    innermost active one decides.
    """

    def __init__(
        self,
        action: Action = "error",
        *,
        strict: bool = False,
        ignore: Sequence[str] = (),
        platform: Platform = DEFAULT_PLATFORM,
        xla_release: str | ReleaseRequest | None = None,
    ) -> None:
        if action not in ACTIONS:
            raise ValueError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
        if isinstance(xla_release, str):
            xla_release = ReleaseRequest(xla_release)
        self.action = action
        self.strict = strict
        #: The release given, by name; ``None`` where the one to model is chosen as each
        #: program is checked (:mod:`hostoffload.releases`).
        self.xla_release = _release_named(xla_release)
        self._release_request = xla_release
        self.ignore = frozenset(ignore)
        self.platform = platform_named(platform)
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
        self.stop()

    def start(self) -> watch:
        """Watches until :meth:`stop`, not for a block: every later compile of the process
        (a notebook's later cells). Unlike ``with``, it does not import JAX: the hooks go in
        when JAX is imported."""
        with _lock:
            _active.append(self)
        _install_with_jax()
        return self

    def stop(self) -> None:
        """Stops watching (nothing if not watching)."""
        with _lock:
            if self in _active:
                _active.remove(self)

    def __call__(self, function: _Function) -> _Function:
        @functools.wraps(function)
        def watched(*args: Any, **kwargs: Any) -> Any:
            options = {
                "strict": self.strict,
                "ignore": self.ignore,
                "platform": self.platform,
                "xla_release": self._release_request,
            }
            with watch(self.action, **options) as inner:
                try:
                    return function(*args, **kwargs)
                finally:
                    self.mismatches.extend(inner.mismatches)

        return watched  # type: ignore[return-value]

    def inspect(self, module: Any, platform: str | None = None) -> MismatchError | None:
        """Checks one jaxlib module, lowered for ``platform``, before XLA compiles it; warns
        or records as the action says, and returns the error to raise for ``"error"``."""
        # Imported here: the start-up hook imports this module in every watched process.
        from hostoffload.diagnostic import InputError

        name = _module_name(module)
        try:
            report = _check(module, self.strict, self._release_request, name, platform)
        except InputError as error:
            # Never keep a program from compiling because we could not read it.
            _warn_unchecked(name, str(error))
            return None
        report = report.ignoring(self.ignore)
        if report.ok:
            return None
        # Read only for a program with errors: every program JAX compiles comes through here.
        outputs = output_paths(module)
        mismatch = MismatchError(report, outputs)
        self.mismatches.append(mismatch)
        if self.action == "warn":
            warning = MismatchWarning(report, outputs)
            if ipython_shell() is not None:
                # Imported here: only a notebook shows warnings as reports.
                from hostoffload._kernel import show_warnings

                show_warnings(MismatchWarning)
            warnings.warn(warning, stacklevel=caller_stacklevel())
        return mismatch if self.action == "error" else None

    def inspect_computation(self, computation: Any) -> MismatchError | None:
        """Checks a ``MeshComputation`` about to be compiled: its module when it was lowered
        for a platform that offloads, else the same computation lowered for ``platform``."""
        platforms = tuple(getattr(computation, "_platforms", ()) or ())
        if any(platform in OFFLOADING_PLATFORMS for platform in platforms):
            return self.inspect(computation.stablehlo(), platforms[0])
        name = _module_name(computation.stablehlo())
        lower_for = getattr(computation, _LOWER_FOR, None)
        if lower_for is None:
            _warn_unchecked(
                name,
                f"it was lowered for {', '.join(platforms) or 'an unknown platform'} before "
                f"hostoffload was watching, and cannot be lowered for {self.platform}",
            )
            return None
        try:
            module = lower_for(self.platform)
        except Exception as error:  # JAX's own error for what it cannot lower there.
            _warn_unchecked(
                name,
                f"JAX cannot lower it for {self.platform}: {type(error).__name__}: {error}",
            )
            return None
        return self.inspect(module, self.platform)


_lock = threading.Lock()
_active: list[watch] = []
_installed = False
# Set while a MeshComputation's compile runs, whose program has been checked already: the
# compile function below it then checks nothing.
_compiling = threading.local()


def _current() -> watch | None:
    with _lock:
        return _active[-1] if _active else None


def install() -> None:
    """Puts the hooks in place (once); they do nothing while no :class:`watch` is active."""
    global _installed
    with _lock:
        if _installed:
            return
        try:
            import jax._src.compiler as compiler
            import jax._src.interpreters.pxla as pxla
            from jax._src import pjit
        except ImportError as error:
            raise RuntimeError(f"hostoffload.watch needs jax: {error}") from None
        original_compile_or_get_cached = _hooked(compiler, COMPILER_MODULE, COMPILE_FUNCTION)
        original_lower = _hooked(pxla, LOWERING_MODULE, LOWER_FUNCTION)
        computation_class = _hooked(pxla, LOWERING_MODULE, COMPUTATION_CLASS)
        original_compile = computation_class.compile

        @functools.wraps(original_lower)
        def lower_and_remember(*args: Any, **kwargs: Any) -> Any:
            computation = original_lower(*args, **kwargs)

            def lower_for(platform: str) -> Any:
                again = original_lower(*args, **{**kwargs, "lowering_platforms": (platform,)})
                return again.stablehlo()

            setattr(computation, _LOWER_FOR, lower_for)
            return computation

        @functools.wraps(original_compile)
        def checked_compile(self: Any, *args: Any, **kwargs: Any) -> Any:
            current = _current()
            if current is None:
                return original_compile(self, *args, **kwargs)
            mismatch = current.inspect_computation(self)
            if mismatch is not None:
                raise mismatch
            _compiling.active = True
            try:
                return original_compile(self, *args, **kwargs)
            finally:
                _compiling.active = False

        @functools.wraps(original_compile_or_get_cached)
        def checked_compile_or_get_cached(
            backend: Any, computation: Any, *args: Any, **kwargs: Any
        ) -> Any:
            current = _current()
            if current is not None and not getattr(_compiling, "active", False):
                mismatch = current.inspect(computation, getattr(backend, "platform", None))
                if mismatch is not None:
                    raise mismatch
            return original_compile_or_get_cached(backend, computation, *args, **kwargs)

        setattr(compiler, COMPILE_FUNCTION, checked_compile_or_get_cached)
        setattr(pxla, LOWER_FUNCTION, lower_and_remember)
        computation_class.compile = checked_compile
        # jit keeps the computations it lowered before: without the hook, those could not be
        # lowered again for the platform that offloads.
        cached_lowerings = getattr(pjit, "_pjit_lower", None)
        if cached_lowerings is not None and hasattr(cached_lowerings, "cache_clear"):
            cached_lowerings.cache_clear()
        # A MismatchError then points at the user's jit call, and an op JAX inserts while the
        # hook lowers again takes the user's line, not the hook's.
        exclude_own_files_from_jax()
        _installed = True


def _hooked(module: ModuleType, module_name: str, name: str) -> Any:
    found = getattr(module, name, None)
    if found is None:
        raise RuntimeError(
            f"hostoffload.watch cannot hook this JAX ({_jax_version()}): "
            f"{module_name}.{name} is gone; see docs/jax.md for the versions it is tested with"
        )
    return found


def start_from_environment() -> watch | None:
    """Starts the watch ``HOSTOFFLOAD_WATCH`` asks for, for the rest of the process, on the
    platform ``HOSTOFFLOAD_PLATFORM`` names (TPU by default), modelling the XLA release
    ``HOSTOFFLOAD_XLA_RELEASE`` names (else that of the libtpu where it runs)."""
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
    try:
        platform = chosen_platform()
        environment_xla_release()
    except ValueError as error:
        warnings.warn(f"{error}: not watching", stacklevel=2)
        return None
    return watch(action, platform=platform).start()


def _install_with_jax() -> None:
    """:func:`install` now if JAX has been imported, else right after it is."""
    if HOOKED_MODULE in sys.modules:
        install()
    elif not any(isinstance(finder, _InstallWhenImported) for finder in sys.meta_path):
        # Importing JAX here would slow down every program that imports hostoffload without
        # compiling anything (offload-opt among them): the hooks go in when JAX is imported.
        sys.meta_path.insert(0, _InstallWhenImported())


class _InstallWhenImported(importlib.abc.MetaPathFinder):
    """Calls :func:`install` right after JAX's lowering module has been imported."""

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


def _release_named(request: ReleaseRequest | None) -> str | None:
    """The name of the release ``request`` gives; ``ValueError`` for one there is not, before
    any program is checked."""
    if request is None or request.given is None:
        return None
    # Only for a release given: the table loads MLIR (see _check).
    return xla_release_named(request.given)


def _message(report: Report, outputs: Sequence[str] | None) -> str:
    """The text of a mismatch: the report and the fix in JAX, a notebook's cells named as
    IPython names them (``Cell In[3], line 5``)."""
    return with_cell_names(report.to_text(jax_fix=True, outputs=outputs))


def _check(
    module: Any,
    strict: bool,
    xla_release: ReleaseRequest | None,
    name: str,
    platform: str | None,
) -> Report:
    # Imported here: hostoffload.api loads MLIR, which importing this module must not.
    from hostoffload import api

    # The XLA of the platform JAX compiles for: XLA:GPU for a GPU (JAX's lowering platforms
    # "cuda" and "rocm", a GPU backend's "gpu"), XLA:TPU otherwise.
    compiled_for = "cuda" if platform in ("cuda", "rocm", "gpu") else "tpu"
    report = api.check_named(
        module, None, strict=strict, xla_release=xla_release, platform=compiled_for
    )
    return dataclasses.replace(report, source=name, platform=platform)


def _warn_unchecked(name: str, why: str) -> None:
    warnings.warn(f"hostoffload could not check {name}: {why}", stacklevel=caller_stacklevel())


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
