"""Host calls with tuple results, which jaxlib's HLO importer cannot import.

jaxlib 0.10.2 imports an ``async-start``/``async-done`` pair whose computation returns a tuple
(``compute_on("device_host")`` returning two values, as XLA's host offloader sees it) as an
``mhlo.async_done`` with one tuple result, which fails that op's own verifier: it infers one
result per element of the tuple. jaxlib's generic HLO to MLIR path
(``xla_computation_to_mlir_module``) prints the same module as text without verifying it.
Here each such ``mhlo.async_done`` gets one result per element, and a ``stablehlo.tuple`` of
them takes its place for its users: the module computes what the HLO does, and verifies.
"""

from __future__ import annotations

import re

# One op per line in the generic form jaxlib prints: the result, the op, the rest.
_ASYNC_DONE = re.compile(r'^(?P<indent>\s*)(?P<result>%[\w.$-]+) = "mhlo\.async_done"(?P<rest>.*)$')
# The end of the op: its operand types, its result type and its location.
_SIGNATURE = re.compile(r" : \((?P<operands>.*)\) -> tuple<(?P<elements>.*)> (?P<loc>loc\(.*\))$")
_BRACKETS = {"<": ">", "(": ")", "[": "]", "{": "}"}


def _split_top_level(types: str) -> list[str] | None:
    """The comma-separated types of ``types``, or None where the brackets do not match."""
    parts: list[str] = []
    closing: list[str] = []
    start = 0
    for index, char in enumerate(types):
        if char in _BRACKETS:
            closing.append(_BRACKETS[char])
        elif closing and char == closing[-1]:
            closing.pop()
        elif char in ">)]}":
            return None
        elif char == "," and not closing:
            parts.append(types[start:index].strip())
            start = index + 1
    if closing:
        return None
    parts.append(types[start:].strip())
    return parts


def with_flat_async_done(text: str) -> str | None:
    """``text`` (generic MLIR from ``xla_computation_to_mlir_module``) with every
    ``mhlo.async_done`` of a flat tuple result split into one result per element; None when
    there is none, or one this cannot split (a nested tuple), so that the caller reports the
    importer's own error instead of guessing."""
    lines = text.splitlines()
    changed = False
    for number, line in enumerate(lines):
        done = _ASYNC_DONE.match(line)
        signature = _SIGNATURE.search(line) if done else None
        if done is None or signature is None:
            continue
        elements = _split_top_level(signature["elements"])
        if not elements or any(element.startswith("tuple<") for element in elements):
            return None
        flat = f"%hostoffload_async_done_{number}"
        results = ", ".join(f"{flat}#{i}" for i in range(len(elements)))
        element_types = ", ".join(elements)
        op = done["rest"][: signature.start() - done.start("rest")]
        lines[number] = (
            f'{done["indent"]}{flat}:{len(elements)} = "mhlo.async_done"{op} : '
            f"({signature['operands']}) -> ({element_types}) {signature['loc']}\n"
            f'{done["indent"]}{done["result"]} = "stablehlo.tuple"({results}) : '
            f"({element_types}) -> tuple<{element_types}> {signature['loc']}"
        )
        changed = True
    return "\n".join(lines) + "\n" if changed else None
