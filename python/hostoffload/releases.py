"""The XLA releases the check can model, as the analysis declares them.

Where XLA's host offloading changed between releases, the check models one: the newest by
default, or the one ``xla_release=`` (``--xla-release``, the pass option ``xla-release=``)
names, by its name (``"2026-06"``) or by a libtpu release that carries it (``"0.0.42.1"``).
The table is the C++ one (``cpp/include/hostoffload/XlaReleases.def``), read through the
extension; docs/semantics.md states each rule that differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache


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
    for release in releases.values():
        if any(libtpu.version == text for libtpu in release.libtpu):
            return release.name
    versions = ", ".join(libtpu.version for r in releases.values() for libtpu in r.libtpu)
    raise ValueError(
        f"unknown XLA release {text!r}; use an XLA release ({', '.join(releases)}) "
        f"or a libtpu release ({versions})"
    )


def xla_release_of_platform_version(platform_version: str) -> str:
    """The name of the XLA release that the libtpu whose ``platform_version`` (a device's
    ``client.platform_version``) ends with a known build line carries; ``ValueError`` for a
    build this table does not know."""
    for release in xla_releases().values():
        for libtpu in release.libtpu:
            if platform_version.strip().endswith(libtpu.build_line):
                return release.name
    raise ValueError(f"no known libtpu release was built as {platform_version!r}")


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
