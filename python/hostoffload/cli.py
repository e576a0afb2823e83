"""``python -m hostoffload``: check modules for E1200, or fix them.

Exit status: 0 nothing wrong, 1 an error found (E1200, or E1201 under ``--strict``), 2 an input
could not be checked or fixed (unreadable or unparseable, no entry function), bad usage, or an
internal error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from hostoffload import __version__, api, sarif
from hostoffload.diagnostic import InputError
from hostoffload.report import Report

EXIT_CLEAN = 0
EXIT_ERRORS = 1
EXIT_BAD_INPUT = 2

STDIN = "-"
STDIN_NAME = "<stdin>"


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "check":
            return _check(args)
        return _fix(args)
    except Exception as error:
        # A bug of ours still gets one line and exit 2 rather than a traceback.
        sys.stderr.write(f"hostoffload: internal error: {type(error).__name__}: {error}\n")
        return EXIT_BAD_INPUT


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m hostoffload",
        description="Find XLA's host-offload error E1200 in StableHLO before XLA does.",
    )
    parser.add_argument("--version", action="version", version=f"hostoffload {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser(
        "check",
        help="report E1200 and the host-offload warnings",
        description="Exit status: 0 clean, 1 errors found, 2 bad input or usage.",
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="a module; - reads stdin")
    output = check.add_mutually_exclusive_group()
    output.add_argument(
        "--json", action="store_true", help="one JSON report per FILE, one per line"
    )
    output.add_argument("--sarif", action="store_true", help="one SARIF 2.1.0 log for all FILEs")
    _add_entry(check)
    check.add_argument(
        "--strict", action="store_true", help="device compute on host memory is error E1201"
    )

    fix = commands.add_parser(
        "fix",
        help="apply one fix to every E1200",
        description="Writes the fixed module in MLIR's generic form.",
    )
    fix.add_argument("file", metavar="FILE", help="a module; - reads stdin")
    fix.add_argument(
        "--strategy",
        required=True,
        choices=["host", "device"],
        help="host: declare the outputs pinned_host; device: move the values back to device",
    )
    _add_entry(fix)
    fix.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")
    return parser


def _add_entry(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--entry", metavar="NAME", help="the entry function (default: @main, else the only public)"
    )


def _read(file: str) -> tuple[object, str | None]:
    if file == STDIN:
        return sys.stdin.buffer.read(), STDIN_NAME
    # A Path, so that a command-line argument is never taken for MLIR text.
    return Path(file), None


def _check(args: argparse.Namespace) -> int:
    reports: list[Report] = []
    failures: list[InputError] = []
    for file in args.files:
        try:
            report = api.check_named(*_read(file), entry=args.entry, strict=args.strict)
        except InputError as error:
            sys.stderr.write(f"{error}\n")
            failures.append(error)
            if args.json:
                print(json.dumps(error.to_json()))
            continue
        reports.append(report)
        if args.json:
            print(report.to_json())
        elif not args.sarif:
            print(report)
    if args.sarif:
        print(json.dumps(sarif.sarif_log(reports, failures), indent=2))
    if failures:
        return EXIT_BAD_INPUT
    return EXIT_ERRORS if any(not report.ok for report in reports) else EXIT_CLEAN


def _fix(args: argparse.Namespace) -> int:
    try:
        fixed = api.fix_named(*_read(args.file), args.strategy, entry=args.entry)
    except InputError as error:
        sys.stderr.write(f"{error}\n")
        return EXIT_BAD_INPUT
    # Bytes of the module that are not UTF-8 come back as they were (see generic_form).
    data = fixed.encode("utf-8", "surrogateescape")
    if args.output is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return EXIT_CLEAN
    try:
        Path(args.output).write_bytes(data)
    except OSError as error:
        sys.stderr.write(f"{args.output}: error: cannot write the file: {error.strerror}\n")
        return EXIT_BAD_INPUT
    return EXIT_CLEAN
