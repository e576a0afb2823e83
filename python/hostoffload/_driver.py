"""Console-script shim for the native ``offload-opt`` driver shipped in the package.

The native driver reads MLIR text that needs no dialect beyond func (JAX's generic form).
The shim looks at the first bytes of the input (the file named on the command line, or
stdin): such input goes to the native driver untouched, with every argument as given; any
other form jaxlib reads is converted to the generic form first (in a child process, see
:mod:`hostoffload._convert`), and the native driver reads the converted module in its place,
with every other argument unchanged. Input that cannot be read (empty, a directory, of no
known form, or needing jax that is not installed) gets a message and exit status 2, never
that of a verdict (1 for E1200); Ctrl-C before the native driver runs gets one line and 130.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

from hostoffload._command import EXIT_BAD_INPUT, STDIN, STDIN_NAME, interrupted
from hostoffload._forms import (
    CPU_LOWERING,
    READABLE,
    Form,
    directory_error,
    dump_platform,
    looks_like,
    read_head,
    recognise,
    unreadable,
)

PROG = "offload-opt"
DRIVER = Path(__file__).absolute().parent / "bin" / PROG

# Options after which the native driver reads no input at all.
_NO_INPUT = re.compile(
    r"--?(?:help(?:-[\w-]+)?|h|version|show-dialects|list-passes|print-pipeline-passes)"
)
# The native driver's option list names the options that take a value, which may then be the
# next argument: `--name=<value>` in --help-hidden (not `--name[=<value>]`), and `-o <file>`.
_VALUE_OPTION = re.compile(r"^\s+(-{1,2}[\w-]+)(?:=<|\s<)", re.MULTILINE)
_OUTPUT_OPTIONS = ("-o", "--o")


class Unreadable(Exception):
    """The input is not one the native driver can be given; the message says why."""


def main() -> None:
    """Replace this process with the native driver, on the input converted if need be."""
    if not DRIVER.is_file():
        sys.stderr.write(
            f"{PROG}: the native driver is missing at {DRIVER}; reinstall hostoffload\n"
        )
        sys.exit(EXIT_BAD_INPUT)
    arguments = sys.argv[1:]
    if not any(_NO_INPUT.fullmatch(argument) for argument in arguments):
        try:
            arguments = _prepare_input(arguments)
        except Unreadable as error:
            sys.stderr.write(f"{error}\n")
            sys.exit(EXIT_BAD_INPUT)
        except KeyboardInterrupt:
            # While reading stdin or converting; the converter child gets the same Ctrl-C.
            sys.exit(interrupted(PROG))
    os.execv(DRIVER, [str(DRIVER), *arguments])


def _prepare_input(arguments: list[str]) -> list[str]:
    """The arguments for the native driver: as given for input it reads, else naming the
    converted module in place of the input."""
    index = input_index(arguments)
    path = STDIN if index is None else arguments[index]
    if path == STDIN:
        if os.isatty(0):
            return arguments
        name, data = STDIN_NAME, sys.stdin.buffer.read()
        head = read_head(io.BytesIO(data).read)
    else:
        name, data, head = path, None, _read_head(path)
    form = recognise(head, None if path == STDIN else path)
    if path != STDIN and form is not Form.PYTHON and dump_platform(Path(path)) == "cpu":
        sys.stderr.write(f"{path}: warning: {CPU_LOWERING}\n")
        sys.stderr.flush()
    if form is Form.GENERIC:
        if data is not None:
            _feed_stdin(data)
        return arguments
    reason = unreadable(form, None if path == STDIN else path)
    if reason is not None:
        raise Unreadable(f"{name}: error: {reason}")
    if not form.needs_jax:
        raise Unreadable(f"{name}: error: the input is {looks_like(head)}; {READABLE}")
    if data is None:
        data = _read_all(path)
    converted = _convert(data, form, name, None if path == STDIN else path)
    if index is None:
        return [*arguments, converted]
    return [*arguments[:index], converted, *arguments[index + 1 :]]


def input_index(arguments: list[str]) -> int | None:
    """Where the input file is among the native driver's arguments; None for stdin (no
    positional argument). A positional argument is ``-`` or does not start with ``-``, or
    follows ``--``, and is not the value of the option before it."""
    end = arguments.index("--") if "--" in arguments else len(arguments)
    positional = [
        i
        for i in range(end)
        if (arguments[i] == STDIN or not arguments[i].startswith("-"))
        and (i == 0 or arguments[i - 1] not in _OUTPUT_OPTIONS)
    ]
    if any(i > 0 and _may_take_value(arguments[i - 1]) for i in positional):
        values = _options_taking_values()
        positional = [i for i in positional if i == 0 or arguments[i - 1] not in values]
    positional.extend(range(end + 1, len(arguments)))
    return positional[0] if positional else None


def _may_take_value(argument: str) -> bool:
    return argument.startswith("-") and argument != STDIN and "=" not in argument


def _options_taking_values() -> frozenset[str]:
    """The native driver's options that take a value, from its own option list."""
    listing = subprocess.run(
        [str(DRIVER), "--help-hidden"], capture_output=True, text=True, check=False
    ).stdout
    names = set(_OUTPUT_OPTIONS)
    for option in _VALUE_OPTION.findall(listing):
        bare = option.lstrip("-")
        names.update({f"-{bare}", f"--{bare}"})
    return frozenset(names)


def _read_head(path: str) -> bytes:
    if os.path.isdir(path):
        raise Unreadable(f"{path}: error: {directory_error(Path(path))}")
    try:
        with open(path, "rb") as stream:
            return read_head(stream.read)
    except OSError as error:
        raise Unreadable(f"{path}: error: cannot read the file: {error.strerror}") from None


def _read_all(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise Unreadable(f"{path}: error: cannot read the file: {error.strerror}") from None


def _feed_stdin(data: bytes) -> None:
    """Makes ``data``, read from standard input, the native driver's standard input again."""
    descriptor = _anonymous_file("stdin", data)
    os.dup2(descriptor, 0)
    os.close(descriptor)


def _convert(data: bytes, form: Form, name: str, path: str | None) -> str:
    """Converts ``data`` to the generic form into an anonymous file that the native driver
    inherits, and returns the path the driver opens it by."""
    from hostoffload import _convert
    from hostoffload.diagnostic import InputError

    descriptor = _anonymous_file(Path(name).name or "input", b"")
    try:
        _convert.convert_in_child_into(descriptor, data, form, name, path)
    except InputError as error:
        raise Unreadable(str(error)) from None
    os.set_inheritable(descriptor, True)
    return f"/proc/self/fd/{descriptor}"


def _anonymous_file(name: str, data: bytes) -> int:
    """A file in memory holding ``data``, read from its start; closed on exec unless made
    inheritable."""
    descriptor = os.memfd_create(name)
    with open(descriptor, "wb", closefd=False) as stream:
        stream.write(data)
    os.lseek(descriptor, 0, os.SEEK_SET)
    return descriptor
