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
    PYTHON = "Python source"
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

VHLO_TEXT = (
    "the input is VHLO text, StableHLO's versioned serialization printed as MLIR, which is "
    "meant to be read back as the artifact it came from, not checked: give the artifact itself "
    "(the bytes of jax.export's mlir_module_serialized, or of stablehlo-translate --serialize), "
    "or the StableHLO it was made from"
)

_PYTHON_SUFFIX = ".py"
# Python source: a `#!` line naming python, or a first statement (after blank lines and `#`
# comments) that starts as no MLIR or HLO text does: an import, a def or class, a decorator,
# a docstring, or `if __name__`. (MLIR text starts with an op, `module`, an alias definition
# `#name = ...` or a `//` comment; HLO text with `HloModule`.)
_PYTHON_START = re.compile(
    rb"#![^\n]*python|(?:[ \t]*(?:#[^\n]*)?\r?\n)*"
    rb"(?:import[ \t]+\w|from[ \t]+[\w.]+[ \t]+import\b|(?:async[ \t]+)?def[ \t]+\w+[ \t]*\("
    rb"|class[ \t]+\w+[ \t]*[(:]|@\w|\"{3}|'{3}|if[ \t]+__name__\b)"
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


def recognise(head: bytes, path: str | None = None) -> Form:
    """The form of an input whose first bytes, as :func:`read_head` reads them, are ``head``;
    ``path`` is the file it was read from, if any (a ``.py`` file is Python source)."""
    if path is not None and path.endswith(_PYTHON_SUFFIX) or _PYTHON_START.match(head):
        return Form.PYTHON
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


def unreadable(form: Form, path: str | None) -> str | None:
    """Why input of ``form`` (read from ``path``; None: text, or stdin) is read by no route of
    ours, for every caller that reads input (``check()`` and the ``offload-opt`` shim); None
    where one reads it."""
    if form is Form.EMPTY:
        return EMPTY
    if form is Form.PYTHON:
        return python_source(path)
    if form is Form.VHLO_TEXT:
        return VHLO_TEXT
    return None


def python_source(path: str | None) -> str:
    """What to tell a user who gave the Python source at ``path`` (None: text, or stdin)."""
    script = path if path is not None and path.endswith(_PYTHON_SUFFIX) else "SCRIPT"
    return (
        "this is Python source, not a module: run it with every program JAX compiles checked "
        f"(hostoffload run {script}), or check one function, lowered for TPU, with "
        "hostoffload.check_jax(fn, *args) in Python"
    )


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
_BEFORE_OPTIMIZATIONS = ".before_optimizations.txt"
_HLO_DUMP = f"*{_BEFORE_OPTIMIZATIONS}"
_MLIR_DUMP = "*.mlir"
# What writes each, for a user who gave a directory without any.
_DUMP_FILES = (
    (_HLO_DUMP, "XLA_FLAGS=--xla_dump_to=DIR"),
    (_MLIR_DUMP, "JAX_DUMP_IR_TO=DIR, or a module of yours"),
)
_XLA_INPUT_FOLDER_FILES = "compile_options.*"
_XLA_KERNEL_MLIR = re.compile(
    r"module_\d+\..+-(pre-optimization|post-optimization|post-lowering)\.mlir"
)


# Beside the compile options, PJRT writes the topology it compiles for: `topology.textproto`
# from jaxlib 0.10 on (`platform_name: "cpu"`), `topology.pb` before it (the same
# PjRtTopologyDescriptionProto, whose field 2 is platform_name). XLA compiles modules of its
# own with no such folder (the host computations of a TPU program, with XLA:CPU).
_TOPOLOGY_TEXT = "topology.textproto"
_TOPOLOGY_PROTO = "topology.pb"
_PLATFORM_NAME = re.compile(rb'^platform_name:\s*"([^"]*)"', re.MULTILINE)
_PLATFORM_NAME_FIELD = 2
_XLA_MODULE = re.compile(r"module_\d+\.(.+)")

CPU_LOWERING = (
    "XLA:CPU compiled this module (its dump names platform cpu): JAX lowered it for CPU, which "
    "drops every jax.device_put between memories inside jit, so this check may miss E1200s or "
    "report ones that XLA:TPU would not; check the TPU lowering instead: "
    'jax.jit(f).trace(*args).lower(lowering_platforms=("tpu",)), hostoffload.check_jax(f, '
    "*args), or hostoffload run SCRIPT and pytest --hostoffload, which lower for TPU"
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


def directory_error(directory: Path) -> str:
    """What to tell a user who gave ``directory`` where one module was expected: that it holds
    no dump files, and the names looked for; or which to give, or how to check them all."""
    found = find_dump_files(directory)
    if not found:
        looked_for = " and ".join(f"{pattern} ({writer})" for pattern, writer in _DUMP_FILES)
        return f"no dump files found in this directory or below: looked for {looked_for}"
    files = "its dump file" if len(found) == 1 else f"its {len(found)} dump files, such as"
    return (
        f"this is a directory, not a module: give {files} {found[0]}, or run hostoffload "
        "check on the directory, which checks every dump file in it"
    )


def dump_platform(path: Path) -> str | None:
    """The platform (``"cpu"``, ``"tpu"``) that XLA compiled the program of dump file ``path``
    for, as the topology PJRT wrote into the program's input folder says; None without one (no
    dump of XLA's, or a module XLA compiled for its own use)."""
    for folder in _input_folders(path):
        platform = _topology_platform(folder)
        if platform is not None:
            return platform
    return None


def _input_folders(path: Path) -> list[Path]:
    """The folders in which PJRT may have written the input of the program of dump file
    ``path``: the one ``module.mlir`` is in; for ``module_NNNN.<name>.before_optimizations.txt``
    ``module_NNNN.<name>/`` beside it, or before jaxlib 0.10 ``<name>_<id>/``."""
    if path.name == "module.mlir":
        return [path.parent]
    module = _XLA_MODULE.fullmatch(path.name.removesuffix(_BEFORE_OPTIMIZATIONS))
    if not path.name.endswith(_BEFORE_OPTIMIZATIONS) or module is None:
        return []
    before_jaxlib_0_10 = re.compile(re.escape(module[1]) + r"_\d+")
    try:
        older = sorted(
            folder
            for folder in path.parent.iterdir()
            if before_jaxlib_0_10.fullmatch(folder.name) and folder.is_dir()
        )
    except OSError:
        older = []
    return [path.parent / module[0], *older]


def _topology_platform(folder: Path) -> str | None:
    try:
        if (folder / _TOPOLOGY_TEXT).is_file():
            found = _PLATFORM_NAME.search((folder / _TOPOLOGY_TEXT).read_bytes())
            return found[1].decode(errors="replace") if found else None
        if (folder / _TOPOLOGY_PROTO).is_file():
            return _string_field((folder / _TOPOLOGY_PROTO).read_bytes(), _PLATFORM_NAME_FIELD)
    except OSError:
        pass
    return None


def _string_field(message: bytes, number: int) -> str | None:
    """Field ``number`` of a serialized protocol buffer ``message``, read as a string; None
    when it is not there, or the message is not one."""
    position = 0
    while position < len(message):
        key, position = _varint(message, position)
        field, wire_type = key >> 3, key & 7
        if wire_type == 0:
            _, position = _varint(message, position)
        elif wire_type in (1, 5):  # 64-bit, 32-bit
            position += 8 if wire_type == 1 else 4
        elif wire_type == 2:  # length-delimited
            length, position = _varint(message, position)
            if field == number:
                return message[position : position + length].decode(errors="replace")
            position += length
        else:
            return None
    return None


def _varint(message: bytes, position: int) -> tuple[int, int]:
    value = shift = 0
    while position < len(message):
        byte = message[position]
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            break
    return value, position
