"""The XLA releases the check can model, as the analysis declares them, and the one it models.

Where XLA's host offloading changed between releases, the check models one, named by its name
(``"2026-06"``) or by a libtpu release that carries it (``"0.0.42.1"``). Every route (the API,
:class:`hostoffload.watch`, ``HOSTOFFLOAD_WATCH``, ``pytest --hostoffload``, the command line)
chooses it by :meth:`ReleaseRequest.chosen`, in this order: the one it is given (``xla_release=``,
``--xla-release``), ``$HOSTOFFLOAD_XLA_RELEASE``, the ``xla_release`` key of the project's
``[tool.hostoffload]`` table (the command line and the pytest plugin), the libtpu of the TPU
backend JAX has already started (known by its build line), the libtpu package installed here
(its version, from the package's metadata), else the newest. libtpu itself is never loaded and
no backend is started. The table is the C++ one (``cpp/include/hostoffload/XlaReleases.def``),
read through the extension; docs/semantics.md states each rule that differs.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hostoffload._frames import caller_stacklevel

ENVIRONMENT_VARIABLE = "HOSTOFFLOAD_XLA_RELEASE"
#: The distribution whose version names the libtpu installed here.
LIBTPU_DISTRIBUTION = "libtpu"
#: JAX's module that holds the backends it has started, read without starting any.
_JAX_BACKENDS_MODULE = "jax._src.xla_bridge"
#: How the reason names a release given as ``xla_release=``: formatted with the text given.
ARGUMENT = "xla_release={!r}"


@dataclass(frozen=True)
class LibtpuRelease:
    """A libtpu release: its version, the end of its ``platform_version`` (which identifies
    it where version numbers do not order XLA's sources), and the XLA release it carries."""

    version: str
    build_line: str
    xla_release: str


@dataclass(frozen=True)
class XlaRelease:
    """An XLA whose host offloading differs from the release before it."""

    name: str
    sources: str
    libtpu: tuple[LibtpuRelease, ...]

    def describe(self) -> str:
        """E.g. ``XLA 2026-07: libtpu 0.0.45 to 0.0.48.1``, for reports."""
        versions = [libtpu.version for libtpu in self.libtpu]
        carried = versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"
        return f"XLA {self.name}: libtpu {carried}"


@cache
def xla_releases() -> dict[str, XlaRelease]:
    """Every XLA release by name, oldest first; the last is the default."""
    # Imported here: the extension loads MLIR, which importing hostoffload must not.
    from hostoffload.mlir._mlir_libs import _hostoffload

    libtpu = [LibtpuRelease(*row) for row in _hostoffload.libtpu_releases()]
    return {
        name: XlaRelease(name, sources, tuple(r for r in libtpu if r.xla_release == name))
        for name, sources in _hostoffload.xla_releases()
    }


def modelled_on(xla_release: str | None, reason: str | None, platform: str = "tpu") -> str:
    """`` (modelled on XLA 2026-06: libtpu 0.0.42.1, installed here)``, for a summary line:
    the compiler (``XLA:GPU, `` for ``cuda``), the release and why, or what carries it where
    the reason is unknown; nothing where the release is."""
    if xla_release is None:
        return ""
    if reason is None:
        return f" (modelled on {describe_compiler(platform, xla_release)})"
    compiler = "XLA:GPU, " if platform == "cuda" else ""
    return f" (modelled on {compiler}{ChosenXlaRelease(xla_release, reason).describe()})"


def newest_xla_release() -> str:
    """The name of the release the check models unless told otherwise."""
    return list(xla_releases())[-1]


def xla_release_named(text: str | None) -> str:
    """The name of the XLA release ``text`` names: a release's name, or the version of a
    libtpu release that carries it; the newest for ``None``. Raises ``ValueError`` saying
    which there are for anything else."""
    if text is None:
        return newest_xla_release()
    releases = xla_releases()
    if text in releases:
        return text
    libtpu = _libtpu_of_version(text)
    if libtpu is not None:
        return libtpu.xla_release
    versions = ", ".join(libtpu.version for r in releases.values() for libtpu in r.libtpu)
    raise ValueError(
        f"unknown XLA release {text!r}; use an XLA release ({', '.join(releases)}) "
        f"or a libtpu release ({versions})"
    )


def xla_release_of_platform_version(platform_version: str) -> str:
    """The name of the XLA release that the libtpu whose ``platform_version`` (a device's
    ``client.platform_version``) ends with a known build line carries; ``ValueError`` for a
    build this table does not know."""
    libtpu = libtpu_of_platform_version(platform_version)
    if libtpu is None:
        raise ValueError(f"no known libtpu release was built as {platform_version!r}")
    return libtpu.xla_release


def libtpu_of_platform_version(platform_version: str) -> LibtpuRelease | None:
    """The known libtpu release whose build line ends ``platform_version``; ``None`` if none."""
    for release in xla_releases().values():
        for libtpu in release.libtpu:
            if platform_version.strip().endswith(libtpu.build_line):
                return libtpu
    return None


def _libtpu_of_version(version: str) -> LibtpuRelease | None:
    """The known libtpu release of ``version``; ``None`` if none."""
    for release in xla_releases().values():
        for libtpu in release.libtpu:
            if libtpu.version == version:
                return libtpu
    return None


class UnknownLibtpuWarning(UserWarning):
    """The libtpu where the program runs is not one the table knows: the newest is modelled."""


@dataclass(frozen=True)
class ChosenXlaRelease:
    """The XLA release a check models (its name) and why (``reason``, in words)."""

    name: str
    reason: str

    def describe(self) -> str:
        """E.g. ``XLA 2026-06: libtpu 0.0.42.1, installed here``, for reports."""
        return f"XLA {self.name}: {self.reason}"


@dataclass(frozen=True)
class ReleaseRequest:
    """What a route was told of the XLA release to model; :meth:`chosen` says which it is.

    ``given`` is the route's own option (``xla_release=``, ``--xla-release``), named in the
    reason as ``given_as`` formats it; ``configured`` the ``xla_release`` key of the
    ``[tool.hostoffload]`` table in ``configured_in``. Both are release names or libtpu
    versions, checked by whoever read them.
    """

    given: str | None = None
    given_as: str = ARGUMENT
    configured: str | None = None
    configured_in: Path | None = None

    def chosen(self, platform: str = "tpu") -> ChosenXlaRelease:
        """The release to model now for a program compiled for ``platform``: the one given,
        else ``$HOSTOFFLOAD_XLA_RELEASE``'s, else the one configured, else that of the libtpu
        where the program runs (:func:`running_xla_release`), or for ``cuda`` that of the
        jaxlib installed here. ``ValueError`` for a name there is not, the environment
        variable's naming it."""
        if self.given is not None:
            return ChosenXlaRelease(xla_release_named(self.given), self.given_as.format(self.given))
        from_environment = environment_xla_release()
        if from_environment is not None:
            return from_environment
        if self.configured is not None:
            where = f" in {self.configured_in}" if self.configured_in is not None else ""
            reason = f"xla_release = {self.configured!r}{where}"
            return ChosenXlaRelease(xla_release_named(self.configured), reason)
        if platform == "cuda":
            return jaxlib_xla_release()
        return running_xla_release()


def environment_xla_release() -> ChosenXlaRelease | None:
    """The release ``$HOSTOFFLOAD_XLA_RELEASE`` names, ``None`` where it is unset or empty;
    ``ValueError`` naming the variable for a name there is not."""
    value = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if not value:
        return None
    try:
        name = xla_release_named(value)
    except ValueError as error:
        raise ValueError(f"{ENVIRONMENT_VARIABLE}: {error}") from None
    return ChosenXlaRelease(name, f"{ENVIRONMENT_VARIABLE}={value}")


def chosen_xla_release(given: str | None = None, platform: str = "tpu") -> ChosenXlaRelease:
    """The release :func:`hostoffload.check` models when given ``xla_release=given``."""
    return ReleaseRequest(given).chosen(platform)


def running_xla_release() -> ChosenXlaRelease:
    """The release of the libtpu where the program runs: that of the TPU backend JAX has
    already started, known by its build line, else that of the libtpu package installed here,
    known by its version, else the newest. A libtpu the table does not know is modelled as the
    newest, with an :class:`UnknownLibtpuWarning` naming its build, once per build."""
    platform_version = _tpu_backend_platform_version()
    if platform_version is not None:
        libtpu = libtpu_of_platform_version(platform_version)
        if libtpu is not None:
            reason = f"libtpu {libtpu.version}, of the TPU backend JAX started"
            return ChosenXlaRelease(libtpu.xla_release, reason)
        build = (platform_version.strip().splitlines() or [""])[-1]
        return _unknown_libtpu(f"the libtpu of the TPU backend JAX started ({build})")
    version = _installed_libtpu_version()
    if version is None:
        return ChosenXlaRelease(newest_xla_release(), "the newest; no libtpu installed here")
    libtpu = _libtpu_of_version(version)
    if libtpu is not None:
        return ChosenXlaRelease(libtpu.xla_release, f"libtpu {version}, installed here")
    return _unknown_libtpu(f"libtpu {version}, installed here")


def _tpu_backend_platform_version() -> str | None:
    """The ``platform_version`` of the TPU backend JAX has started, ``None`` if it has none:
    JAX's table of started backends is read, never filled (that would start them)."""
    bridge = sys.modules.get(_JAX_BACKENDS_MODULE)
    backends = getattr(bridge, "_backends", None)
    if not isinstance(backends, dict):
        return None
    client = backends.get("tpu")
    platform_version = getattr(client, "platform_version", None)
    return platform_version if isinstance(platform_version, str) else None


def _installed_libtpu_version() -> str | None:
    """The version of the libtpu package installed here, from its metadata (never loaded)."""
    import importlib.metadata

    try:
        return importlib.metadata.version(LIBTPU_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return None


_warned_builds: set[str] = set()
_warned_lock = threading.Lock()


def _unknown_libtpu(libtpu: str) -> ChosenXlaRelease:
    """The newest, for the ``libtpu`` named, which the table does not know; warns once for it."""
    newest = newest_xla_release()
    with _warned_lock:
        first = libtpu not in _warned_builds
        _warned_builds.add(libtpu)
    if first:
        warnings.warn(
            UnknownLibtpuWarning(
                f"{libtpu}: not a libtpu release hostoffload knows; the check models the "
                f"newest XLA it knows, {newest} (docs/semantics.md, section 15)"
            ),
            stacklevel=caller_stacklevel(),
        )
    return ChosenXlaRelease(newest, f"the newest, for {libtpu}, which is not one known")


#: The XLA release each jaxlib release's XLA:GPU carries (jax-cuda12-plugin of the same version):
#: 0.10.2's parses the GPU target specs XLA had on 2026-07-02 and none of that day's new fields,
#: so its sources are older than commit 29c0ee7460 (docs/differential.md, XLA:GPU).
JAXLIB_XLA_RELEASES = {"0.10.2": "2026-06"}


def describe_compiler(platform: str, release: str) -> str:
    """The compiler whose behaviour a check of a program compiled for ``platform`` models under
    XLA ``release``, for reports: ``XLA 2026-09: libtpu 0.0.49 to 0.0.52`` (XLA:TPU), or
    ``XLA:GPU, XLA 2026-06: jaxlib 0.10.2``."""
    if platform != "cuda":
        return xla_releases()[release].describe()
    jaxlibs = [jaxlib for jaxlib, carried in JAXLIB_XLA_RELEASES.items() if carried == release]
    carried_by = f": jaxlib {', '.join(jaxlibs)}" if jaxlibs else ""
    return f"XLA:GPU, XLA {release}{carried_by}"


def jaxlib_xla_release() -> ChosenXlaRelease:
    """The release of XLA:GPU where the program runs: that of the jaxlib installed here (its
    GPU plugin is of the same version), known by its version, else the newest."""
    import importlib.metadata

    try:
        version = importlib.metadata.version("jaxlib")
    except importlib.metadata.PackageNotFoundError:
        return ChosenXlaRelease(newest_xla_release(), "the newest; no jaxlib installed here")
    carried = JAXLIB_XLA_RELEASES.get(version)
    if carried is None:
        return ChosenXlaRelease(
            newest_xla_release(), f"the newest, for jaxlib {version}, which is not one known"
        )
    return ChosenXlaRelease(carried, f"jaxlib {version}, installed here")
