"""Which locations are JAX's, and their columns counted from 1.

MLIR counts lines and columns from 1. JAX writes each Python frame of a program as a file
location inside a name location, ``loc("step"("model.py":19:11 to :29))``, and takes its
line and column from Python's code positions, whose columns count from 0 (UTF-8 bytes from the
start of the line). So a file location that sits directly inside a name location is a Python
frame and its column is one less than an editor's; any other file location (MLIR's own, for
text it parsed without locations, or one written by hand) is already counted from 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_LOCATION_KEYS = frozenset({"file", "line", "column", "mlir"})


def is_python_frame(file: str, line: int, column: int, mlir: str) -> bool:
    """True when ``file:line:column`` appears in the spelling ``mlir`` as the child of a name
    location, the way JAX writes every Python frame."""
    return f'"({_mlir_string(file)}:{line}:{column}' in mlir


def one_based_columns(data: Any) -> Any:
    """A copy of analysis JSON ``data`` whose Python-frame columns count from 1."""
    if isinstance(data, Mapping):
        if data.keys() >= _LOCATION_KEYS:
            return _one_based(data)
        return {key: one_based_columns(value) for key, value in data.items()}
    if isinstance(data, list):
        return [one_based_columns(item) for item in data]
    return data


def _one_based(location: Mapping[str, Any]) -> dict[str, Any]:
    file, line, column, mlir = (location[key] for key in ("file", "line", "column", "mlir"))
    result = dict(location)
    if file is not None and column is not None and is_python_frame(file, line, column, mlir):
        result["column"] = column + 1
    return result


def _mlir_string(text: str) -> str:
    """``text`` quoted as MLIR prints a string: printable ASCII as is, ``\\`` doubled, every
    other byte (``"`` and UTF-8 included) as ``\\XX``."""
    parts = ['"']
    for byte in text.encode("utf-8", "surrogateescape"):
        if byte == 0x5C:
            parts.append("\\\\")
        elif 0x20 <= byte < 0x7F and byte != 0x22:
            parts.append(chr(byte))
        else:
            parts.append(f"\\{byte:02X}")
    parts.append('"')
    return "".join(parts)
