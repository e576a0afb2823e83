"""Recognising which form an input is in, from its first bytes, and finding dump files.

Nothing here imports jax or :mod:`hostoffload.mlir`: the ``offload-opt`` shim sniffs every
input with it, and generic input must cost it no more than reading a few bytes.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from pathlib import Path

# Enough to see past the location aliases JAX prints before the module.
SNIFF_BYTES = 64 * 1024

BYTECODE_MAGIC = b"ML\xefR"
# The producer string of StableHLO's portable artifacts (VHLO bytecode), which follows the
# magic and a length byte: what jax.export serializes as its module.
PORTABLE_PRODUCER = b"StableHLO_v"


class Form(enum.Enum):
    """A form of input, and how it is described to a user."""

    GENERIC = "MLIR text that needs no dialect beyond func (the generic form)"
    PRETTY = "pretty-printed StableHLO (MLIR text with StableHLO, CHLO, MHLO or Shardy ops)"
    BYTECODE = "MLIR bytecode"
    PORTABLE = "a StableHLO portable artifact (VHLO bytecode)"
    VHLO_TEXT = "VHLO text (StableHLO's versioned serialization dialect, printed)"
    HLO = "HLO text"
    EXPORT = "a serialized jax.export artifact"
    EMPTY = "empty"
    UNKNOWN = "none of the forms hostoffload reads"

    @property
    def needs_jax(self) -> bool:
        return self in _THROUGH_JAX


_THROUGH_JAX = frozenset({Form.PRETTY, Form.BYTECODE, Form.PORTABLE, Form.HLO, Form.EXPORT})

READABLE = (
    "hostoffload reads StableHLO as MLIR in the generic form, and with jax installed "
    "(pip install 'hostoffload[jax]') also pretty-printed StableHLO (lowered.as_text()), MLIR "
    'bytecode, HLO text (lowered.as_text(dialect="hlo"), the *.before_optimizations.txt files '
    "of XLA_FLAGS=--xla_dump_to=DIR) and serialized jax.export artifacts"
)

# The releases of jaxlib (and jax) the `jax` extra allows: from the first to before the
# second; test_packaging.py holds pyproject.toml to them. Before 0.8.2, jaxlib cannot parse the
# HLO dumps of later releases (their stack frame tables).
JAXLIB_RELEASES = ((0, 8, 2), (0, 11))
OLDEST_JAXLIB, FIRST_JAXLIB_AFTER = (".".join(map(str, release)) for release in JAXLIB_RELEASES)

NEEDS_JAX = (
    "reading it takes jaxlib's MLIR and XLA: pip install 'hostoffload[jax]' (jax and jaxlib "
    f"{OLDEST_JAXLIB} or later, before {FIRST_JAXLIB_AFTER}), or give the generic form: "
    "module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True) in Python"
)

EMPTY = "the input is empty: there is no module to check"

DIRECTORY = (
    "this is a directory, not a module: give one of its files, or run python -m hostoffload "
    "check on it, which checks the dump files of JAX and XLA in it"
)

VHLO_TEXT = (
    "the input is VHLO text, StableHLO's versioned serialization printed as MLIR, which is "
    "meant to be read back as the artifact it came from, not checked: give the artifact itself "
    "(the bytes of jax.export's mlir_module_serialized, or of stablehlo-translate --serialize), "
    "or the StableHLO it was made from"
)

# After blanks, comments and attribute or type alias definitions (`#loc1 = loc(...)`,
# `!t = ...`), the first token tells text forms apart.
_BLANKS_AND_COMMENTS = re.compile(rb"(?:\s+|//[^\n]*)*")
_ALIAS = re.compile(rb"[#!][\w.$-]+\s*=[^\n]*")
_HLO_HEADER = re.compile(rb"HloModule\s")
_VHLO_OP = re.compile(rb'"vhlo\.\w+_v\d+"|^\s*(?:%[^=\n]*=\s*)?vhlo\.\w+_v\d+', re.MULTILINE)
# What MLIR text starts with: a generic op (`"`), an op's results (`%`), `module`, or a
# pretty op, whose name has a dialect prefix at the top level of a file.
_MLIR_START = re.compile(rb'["%]|module[\s{@]|[A-Za-z_][\w$]*\.[\w$.]+[\s({<@"]')
# A pretty op of a dialect our MLIR does not register (it has func and builtin) at the start
# of a line: jaxlib's MLIR must read such text. Generic ops are quoted and need nothing.
_FOREIGN_PRETTY_OP = re.compile(
    rb"^[ \t]*(?:%[^=\n\"]*=[ \t]*)?(?:sdy|stablehlo|chlo|mhlo)\.[\w.]+", re.MULTILINE
)


def read_head(read: Callable[[int], bytes]) -> bytes:
    """The first bytes of an input that :func:`recognise` needs, read with ``read``: the first
    :data:`SNIFF_BYTES`, and more while they hold only comments and alias definitions (a
    large JAX module names thousands of locations before its first op)."""
    head = read(SNIFF_BYTES)
    # Past the preamble at most one line, which may be cut: no first op to tell the form by.
    while head.strip() and b"\n" not in head[_skip_preamble(head) :]:
        more = read(SNIFF_BYTES)
        if not more:
            break
        head += more
    return head


def recognise(head: bytes) -> Form:
    """The form of an input whose first bytes, as :func:`read_head` reads them, are ``head``."""
    if head.startswith(BYTECODE_MAGIC):
        producer = head[len(BYTECODE_MAGIC) + 1 :]
        return Form.PORTABLE if producer.startswith(PORTABLE_PRODUCER) else Form.BYTECODE
    position = _skip_preamble(head)
    if position == len(head):
        return Form.EMPTY if not head.strip() else Form.GENERIC
    rest = head[position:]
    if _HLO_HEADER.match(rest):
        return Form.HLO
    if _VHLO_OP.search(head):
        return Form.VHLO_TEXT
    if _is_export(head):
        return Form.EXPORT
    if not _MLIR_START.match(rest):
        return Form.UNKNOWN
    return Form.PRETTY if _FOREIGN_PRETTY_OP.search(head) else Form.GENERIC


def _skip_preamble(head: bytes) -> int:
    position = 0
    while True:
        position = _BLANKS_AND_COMMENTS.match(head, position).end()
        alias = _ALIAS.match(head, position)
        if alias is None:
            return position
        position = alias.end()


def _is_export(head: bytes) -> bool:
    """A flatbuffer (a little-endian offset to its root table first) holding a portable
    artifact: what ``jax.export.Exported.serialize()`` writes."""
    if len(head) < 8 or int.from_bytes(head[:4], "little") >= len(head):
        return False
    return BYTECODE_MAGIC + b"\r" + PORTABLE_PRODUCER in head


def looks_like(head: bytes) -> str:
    """A few words on what an input of no known form starts with, for error messages."""
    text = head[:40]
    try:
        shown = text.decode()
    except UnicodeDecodeError:
        return f"binary data that is no MLIR bytecode (it starts with {bytes(text[:16])!r})"
    first_line = shown.strip().splitlines()[0] if shown.strip() else shown
    return f"text that starts with {first_line[:40]!r}"


# The files JAX and XLA write that hold the whole program before XLA changed it:
# XLA_FLAGS=--xla_dump_to=DIR writes `module_NNNN.<name>.before_optimizations.txt` (HLO text,
# the input of the passes that raise E1200) and, in a folder of its own beside its
# `compile_options` (`module_NNNN.<name>/`, or `<name>_<id>/` before jaxlib 0.10), the
# `module.mlir` it was converted from (the same program again, which is skipped); XLA:CPU
# before jaxlib 0.10 also writes the MLIR of each kernel it emits,
# `module_NNNN.<name>.<kernel>-{pre,post}-optimization.mlir` and `-post-lowering.mlir`, which
# are no programs of the user's; JAX_DUMP_IR_TO=DIR writes `jax_irNNNN_<name>_compile.mlir`
# (pretty-printed StableHLO).
_HLO_DUMP = "*.before_optimizations.txt"
_MLIR_DUMP = "*.mlir"
_XLA_INPUT_FOLDER_FILES = "compile_options.*"
_XLA_KERNEL_MLIR = re.compile(
    r"module_\d+\..+-(pre-optimization|post-optimization|post-lowering)\.mlir"
)


def find_dump_files(directory: Path) -> list[Path]:
    """The files in ``directory`` and below that hostoffload checks, in path order: XLA's
    ``*.before_optimizations.txt`` and every ``*.mlir`` except the copies XLA keeps of its
    input in its per-module folders and the MLIR of the kernels XLA:CPU emits."""
    found = {path for path in directory.rglob(_HLO_DUMP) if path.is_file()}
    found.update(
        path
        for path in directory.rglob(_MLIR_DUMP)
        if path.is_file()
        and not _XLA_KERNEL_MLIR.fullmatch(path.name)
        and not (path.parent != directory and any(path.parent.glob(_XLA_INPUT_FOLDER_FILES)))
    )
    return sorted(found)
