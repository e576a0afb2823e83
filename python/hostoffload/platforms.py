"""The platforms whose lowering hostoffload checks: those whose XLA runs the host offloader.

One list for the API (:func:`hostoffload.check_jax`), the JAX hooks (:class:`hostoffload.watch`,
``HOSTOFFLOAD_PLATFORM``), the command line and the pytest plugin.
"""

from __future__ import annotations

import os
from typing import Literal, cast

Platform = Literal["tpu", "cuda"]
#: The values a user may name, as JAX names them in ``lowering_platforms``.
PLATFORMS: tuple[Platform, ...] = ("tpu", "cuda")
DEFAULT_PLATFORM: Platform = "tpu"
#: Platforms whose XLA runs the host offloader: what JAX compiles for them is what to check.
#: XLA:CPU removes the placement annotations instead, and JAX does not emit them for CPU.
OFFLOADING_PLATFORMS = frozenset({"tpu", "cuda", "rocm"})
#: The platforms a report may name: those that offload, and CPU, whose dumps it warns of.
REPORTED_PLATFORMS = OFFLOADING_PLATFORMS | {"cpu"}

ENVIRONMENT_VARIABLE = "HOSTOFFLOAD_PLATFORM"


def platform_named(name: str) -> Platform:
    """``name`` as a :data:`Platform`; ``ValueError`` saying what is allowed otherwise."""
    platform = name.strip().lower()
    if platform not in PLATFORMS:
        allowed = " or ".join(repr(p) for p in PLATFORMS)
        raise ValueError(f"platform must be {allowed}, not {name!r}")
    return cast(Platform, platform)


def chosen_platform(given: str | None = None) -> Platform:
    """The platform ``given`` (an option, a configuration key), else ``$HOSTOFFLOAD_PLATFORM``,
    else :data:`DEFAULT_PLATFORM`; ``ValueError`` naming where a bad one came from."""
    if given:
        return platform_named(given)
    from_environment = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if not from_environment:
        return DEFAULT_PLATFORM
    try:
        return platform_named(from_environment)
    except ValueError as error:
        raise ValueError(f"{ENVIRONMENT_VARIABLE}: {error}") from None
