"""One ``out_shardings=`` pytree for ``jax.jit`` that keeps the failing outputs in host memory.

JAX names each output by its path in the function's result, ``jax.result_info``: ``result``
for a single array, ``result[0]`` in a tuple, ``result['a'][1]`` in a dict holding a tuple.
The pytree is built from those paths: ``host`` where an output fails with E1200, ``None``
(JAX's own choice, as without ``out_shardings``) everywhere else, and a subtree whose outputs
all fail becomes a single ``host``, which JAX applies to the whole subtree.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import TypeAlias

HOST = "host"
UNSPECIFIED = "None"
HOST_DEFINITION = (
    'host = sharding.with_memory_kind("pinned_host")  # sharding: the output\'s sharding, '
    "e.g. SingleDeviceSharding(device) or NamedSharding(mesh, spec)"
)

_ROOT = "result"
_KEY = re.compile(r"\[(\d+)\]|\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")

Key: TypeAlias = int | str
Tree: TypeAlias = bool | dict[Key, "Tree"]


def out_shardings(failing: Sequence[str], outputs: Sequence[str] | None) -> str:
    """The fix as Python text: the ``host`` definition and the ``out_shardings=`` argument.

    ``failing`` and ``outputs`` are ``jax.result_info`` paths; when a path is not made of
    tuple indices and dict keys (a dataclass field, a custom pytree), the fix names the
    failing outputs instead of giving a pytree.
    """
    known = list(outputs) if outputs is not None else list(failing)
    keys = {path: _keys(path) for path in [*known, *failing]}
    if any(path_keys is None for path_keys in keys.values()):
        listed = ", ".join(failing)
        return f"{HOST_DEFINITION}\n# in out_shardings, give host for each of: {listed}"
    tree: Tree = False
    failing_set = set(failing)
    for path in known:
        tree = _insert(tree, keys[path] or (), path in failing_set)
    # Only a tree whose every output is known may be collapsed into one host for a subtree.
    lines = [HOST_DEFINITION, f"out_shardings={_render(tree, collapse=outputs is not None)}"]
    if outputs is None:
        lines.append(
            "# only the outputs that fail are known here: add None for every other output, "
            "and the tuples and dicts holding them"
        )
    return "\n".join(lines)


def _keys(path: str) -> tuple[Key, ...] | None:
    if not path.startswith(_ROOT):
        return None
    keys: list[Key] = []
    position = len(_ROOT)
    while position < len(path):
        match = _KEY.match(path, position)
        if match is None:
            return None
        keys.append(int(match[1]) if match[1] is not None else ast.literal_eval(match[2]))
        position = match.end()
    return tuple(keys)


def _insert(tree: Tree, keys: tuple[Key, ...], fails: bool) -> Tree:
    if not keys:
        return fails
    children = dict(tree) if isinstance(tree, dict) else {}
    children[keys[0]] = _insert(children.get(keys[0], False), keys[1:], fails)
    return children


def _render(tree: Tree, *, collapse: bool) -> str:
    if not isinstance(tree, dict):
        return HOST if tree else UNSPECIFIED
    if collapse and _all_fail(tree):
        return HOST
    indices = [key for key in tree if isinstance(key, int)]
    if len(indices) == len(tree):
        items = [_render(tree.get(i, False), collapse=collapse) for i in range(max(indices) + 1)]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    entries = (f"{key!r}: {_render(value, collapse=collapse)}" for key, value in tree.items())
    return "{" + ", ".join(entries) + "}"


def _all_fail(tree: Tree) -> bool:
    if isinstance(tree, dict):
        return all(_all_fail(child) for child in tree.values())
    return tree
