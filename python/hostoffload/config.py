"""The ``[tool.hostoffload]`` table of ``pyproject.toml``: a project's defaults for
``hostoffload check``, ``fix``, ``trace`` and ``run`` and for ``pytest --hostoffload``.

The table is found as ruff finds its own: from a directory upward, the nearest
``pyproject.toml`` that has a ``[tool.hostoffload]`` table (one without it is passed over), up
to the filesystem root. Options given on the command line win over it.

Python 3.11 reads TOML itself (``tomllib``); on 3.10 the ``tomli`` package is used when it is
installed. Without either, a ``pyproject.toml`` that has the table is an error saying so, so
that a project's settings are never dropped without a word.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, cast

from hostoffload.codes import code_named
from hostoffload.platforms import Platform, platform_named

Format = Literal["text", "json", "sarif", "github"]
FORMATS: tuple[Format, ...] = ("text", "json", "sarif", "github")

FILE_NAME = "pyproject.toml"
TABLE = "tool.hostoffload"
# The TOML readers, in order: Python's own (3.11 and later), then the package it came from.
_TOML_MODULES = ("tomllib", "tomli")
# How a pyproject.toml that cannot be parsed here is told to have the table.
_TABLE_HEADER = re.compile(r"^\s*\[\s*tool\s*\.\s*hostoffload\s*\]", re.MULTILINE)


class ConfigError(Exception):
    """A ``[tool.hostoffload]`` table that cannot be used; the message names the file and the
    key, compiler-style."""

    def __init__(self, path: Path, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: error: {message}")


@dataclass(frozen=True)
class Config:
    """The settings of one ``[tool.hostoffload]`` table; ``None`` where it has no such key.

    ``path`` is the ``pyproject.toml`` the table is in, ``None`` when none was found. ``ignore``
    holds codes as they are printed now (a former code such as ``W1201`` is read as the code
    it became).
    """

    path: Path | None = None
    ignore: tuple[str, ...] = ()
    strict: bool | None = None
    entry: str | None = None
    platform: Platform | None = None
    format: Format | None = None
    #: As written (a release's name or a libtpu version), for the report to say where it came
    #: from; known to be one of the table's.
    xla_release: str | None = None


def find(directory: Path | str | None = None) -> Config:
    """The table of the nearest ``pyproject.toml`` at or above ``directory`` (default: the
    current directory) that has one, or an empty :class:`Config`.

    Raises :class:`ConfigError` when that file cannot be read or parsed, when the table has
    an unknown key or a bad value, or when this Python has no TOML reader (3.10 without
    ``tomli``) and the file has the table.
    """
    start = Path(os.path.abspath(directory if directory is not None else Path.cwd()))
    for candidate in (start, *start.parents):
        path = candidate / FILE_NAME
        if not path.is_file():
            continue
        table = _table(path)
        if table is not None:
            return _config(path, table)
    return Config()


def _table(path: Path) -> Mapping[str, Any] | None:
    """The ``[tool.hostoffload]`` table of ``path``, ``None`` when it has none."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(path, f"cannot read the file: {error}") from None
    toml = _toml_module()
    if toml is None:
        if _TABLE_HEADER.search(text) is None:
            return None
        raise ConfigError(
            path,
            f"[{TABLE}] can only be read with Python 3.11 or newer, or with the tomli "
            "package on Python 3.10: pip install tomli",
        )
    try:
        data = toml.loads(text)
    except toml.TOMLDecodeError as error:
        raise ConfigError(path, f"not valid TOML: {error}") from None
    tool = data.get("tool")
    if not isinstance(tool, dict) or "hostoffload" not in tool:
        return None
    table = tool["hostoffload"]
    if not isinstance(table, dict):
        raise ConfigError(path, f"{TABLE} must be a table, [{TABLE}]")
    return cast(Mapping[str, Any], table)


def _toml_module() -> ModuleType | None:
    for name in _TOML_MODULES:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    return None


def _config(path: Path, table: Mapping[str, Any]) -> Config:
    unknown = sorted(set(table) - set(_READERS))
    if unknown:
        raise ConfigError(
            path,
            f"[{TABLE}] has no key {unknown[0]!r}; the keys are {', '.join(_READERS)}",
        )
    values: dict[str, Any] = {}
    for key, value in table.items():
        try:
            values[key] = _READERS[key](value)
        except (TypeError, ValueError) as error:
            raise ConfigError(path, f"[{TABLE}] {key}: {error}") from None
    return Config(path=path, **values)


def _ignore(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(code, str) for code in value):
        raise TypeError(f'must be a list of codes, e.g. ["HOW101"], not {value!r}')
    return tuple(code_named(code) for code in value)


def _strict(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"must be true or false, not {value!r}")
    return value


def _entry(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f'must be the name of a function, e.g. "main", not {value!r}')
    return value


def _platform(value: object) -> Platform:
    if not isinstance(value, str):
        raise TypeError(f'must be a string, e.g. "tpu", not {value!r}')
    return platform_named(value)


def _xla_release(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f'must be a string, e.g. "0.0.42.1" or "2026-06", not {value!r}')
    # Imported here: the table is the extension's, which loads MLIR.
    from hostoffload.releases import xla_release_named

    xla_release_named(value)
    return value


def _format(value: object) -> Format:
    if value not in FORMATS:
        raise ValueError(f"must be one of {', '.join(FORMATS)}, not {value!r}")
    return cast(Format, value)


# Each key of the table and what reads its value; the order is the one errors list them in.
_READERS = {
    "ignore": _ignore,
    "strict": _strict,
    "entry": _entry,
    "platform": _platform,
    "format": _format,
    "xla_release": _xla_release,
}
