"""The ``hostoffload`` command (also ``python -m hostoffload``): check modules for E1200, fix
them, trace where their tensors in host memory go, or run a script with every program JAX
compiles checked.

Exit status: 0 nothing wrong, 1 an error found (E1200, HOE101 under ``--strict``, any warning
under ``--warnings-as-errors``), 2 an input could not be checked or fixed (unreadable or
unparseable, no entry function), bad usage, or an internal error; 141 (128 + SIGPIPE, as a
shell reports a command its reader stopped) when the reader of the output closed it early; 130
(128 + SIGINT) on Ctrl-C. The statuses are defined in :mod:`hostoffload._command`.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TextIO

from hostoffload import __version__, _forms, api, github, sarif
from hostoffload._command import (
    EXIT_BAD_INPUT,
    EXIT_CLEAN,
    EXIT_CLOSED_PIPE,
    EXIT_ERRORS,
    STDIN,
    STDIN_NAME,
    interrupted,
)
from hostoffload.codes import code_named
from hostoffload.config import FORMATS, Config, ConfigError, find
from hostoffload.diagnostic import InputError
from hostoffload.platforms import Platform, chosen_platform
from hostoffload.releases import (
    ReleaseRequest,
    UnknownLibtpuWarning,
    environment_xla_release,
    xla_release_named,
)
from hostoffload.report import LOCATION_FORMS, Report

PROG = "hostoffload"
TRACE_FORMATS = ("text", "json", "html")


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        environment_xla_release()
    except ValueError as error:
        sys.stderr.write(f"{PROG}: error: {error}\n")
        return EXIT_BAD_INPUT
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _shown_as_ours(warnings.showwarning)
            return _command(args)
    except ConfigError as error:
        sys.stderr.write(f"{error}\n")
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return _closed_pipe()
    except KeyboardInterrupt:
        return interrupted(PROG)
    except Exception as error:
        # A bug of ours still gets one line and exit 2 rather than a traceback.
        sys.stderr.write(f"{PROG}: internal error: {type(error).__name__}: {error}\n")
        return EXIT_BAD_INPUT


def _command(args: argparse.Namespace) -> int:
    if args.command == "run":
        return _run(args)
    if args.command == "check":
        return _check(args)
    if args.command == "trace":
        return _trace(args)
    return _fix(args)


def _shown_as_ours(show: Callable[..., None]) -> Callable[..., None]:
    """``warnings.showwarning`` that shows hostoffload's own warning of a libtpu it does not
    know as one line of this command's, and every other warning (the script's) as ``show``."""

    def show_warning(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, UnknownLibtpuWarning):
            sys.stderr.write(f"{PROG}: warning: {message}\n")
        else:
            show(message, category, filename, lineno, file, line)

    return show_warning


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Find XLA's host-offload error E1200 in StableHLO before XLA does.",
    )
    parser.add_argument("--version", action="version", version=f"hostoffload {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser(
        "check",
        help="report E1200 and the host-offload warnings",
        description="Exit status: 0 clean, 1 errors found, 2 bad input or usage.",
    )
    check.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a module; - reads stdin; a directory: the dump files of JAX and XLA in it",
    )
    output = check.add_mutually_exclusive_group()
    output.add_argument(
        "--format",
        choices=FORMATS,
        help="text (default, or [tool.hostoffload] format in pyproject.toml; in colour on a "
        "terminal unless NO_COLOR is set), json (one report per FILE, one per line), sarif "
        "(one SARIF 2.1.0 log for all FILEs), github (GitHub Actions annotations)",
    )
    output.add_argument(
        "--json", dest="format", action="store_const", const="json", help="--format json"
    )
    output.add_argument(
        "--sarif", dest="format", action="store_const", const="sarif", help="--format sarif"
    )
    check.add_argument(
        "--json-locations",
        choices=LOCATION_FORMS,
        default="inline",
        help="json: every location written in place (default), or each distinct one once in a "
        "'locations' table that the findings refer to by index (smaller for large models)",
    )
    _add_entry(check)
    _add_strict(check)
    _add_xla_release(check)
    _add_compiled_for(check)
    check.add_argument(
        "--allow-h2h-copy",
        action="store_true",
        help="with --strict, a copy on host memory is allowed (XLA's "
        "xla_allow_h2h_copy_when_automatic_host_compute_offload_disabled)",
    )
    _add_ignore(check)
    check.add_argument(
        "--warnings-as-errors",
        action="store_true",
        help="report every warning (not ignored) as an error, and exit 1 on it",
    )
    check.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="text: print the findings only (no summary line per FILE, no JAX fix)",
    )

    fix = commands.add_parser(
        "fix",
        help="apply one fix to every E1200",
        description="Writes the fixed module in MLIR's generic form, with its locations.",
    )
    fix.add_argument("file", metavar="FILE", help="a module; - reads stdin")
    fix.add_argument(
        "--strategy",
        required=True,
        choices=["host", "device"],
        help="host: declare the outputs pinned_host; device: move the values back to device",
    )
    _add_entry(fix)
    _add_xla_release(fix)
    _add_compiled_for(fix)
    fix.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")

    trace = commands.add_parser(
        "trace",
        help="show where every tensor in host memory goes",
        description="For every start (a pinned_host argument, a move to host): its tensor, the "
        "ops its host memory passes through, and its fates (moved to device, computed on the "
        "host, returned in host memory, E1200, unused), with totals per step and per line. "
        "Exit status: 0 traced, 1 an output fails with E1200, 2 bad input or usage.",
    )
    trace.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a module; - reads stdin; a directory: the dump files of JAX and XLA in it",
    )
    trace.add_argument(
        "--format",
        choices=TRACE_FORMATS,
        default="text",
        help="text (default: grouped by line), json (one trace per FILE, one per line; "
        "trace.schema.json), html (one page, for one FILE: the way of each start to its fates, "
        "searchable)",
    )
    _add_entry(trace)
    _add_xla_release(trace)
    _add_compiled_for(trace)
    trace.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")

    run = commands.add_parser(
        "run",
        help="run a Python script with every program JAX compiles checked first",
        description="Runs SCRIPT as `python SCRIPT ARGS` would, under hostoffload.watch: a "
        "program with an error raises hostoffload.MismatchError instead of being compiled.",
    )
    run.add_argument(
        "--warn", action="store_true", help="warn (MismatchWarning) and compile instead"
    )
    _add_strict(run)
    run.add_argument(
        "--platform",
        type=_platform,
        default=None,
        help="the lowering checked when JAX compiles for CPU: tpu (default, or the "
        "[tool.hostoffload] table's, or $HOSTOFFLOAD_PLATFORM) or cuda; a TPU or GPU "
        "compile is checked as it is",
    )
    _add_xla_release(run)
    _add_ignore(run)
    run.add_argument("script", metavar="SCRIPT", help="the Python script")
    run.add_argument("script_args", nargs=argparse.REMAINDER, metavar="ARGS")
    return parser


def _add_entry(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--entry", metavar="NAME", help="the entry function (default: @main, else the only public)"
    )


def _add_strict(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--strict",
        action=argparse.BooleanOptionalAction,
        help="device compute on host memory is error HOE101 (--no-strict: it is warning "
        "HOW101, whatever pyproject.toml says)",
    )


def _add_compiled_for(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--platform",
        type=_platform,
        default=None,
        help="the platform the program is compiled for, whose XLA to model: tpu (XLA:TPU, "
        "default, or the [tool.hostoffload] table's, or $HOSTOFFLOAD_PLATFORM) or cuda (XLA:GPU)",
    )


def _add_xla_release(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--xla-release",
        type=_xla_release,
        metavar="RELEASE",
        help="the XLA to model where releases differ: an XLA release such as 2026-06 or a "
        "libtpu release such as 0.0.42.1 (default: $HOSTOFFLOAD_XLA_RELEASE, else the "
        "[tool.hostoffload] table's, else the libtpu installed here, else the newest; "
        "docs/semantics.md)",
    )


def _xla_release(text: str) -> str:
    """``text`` as given, for the report to name it, once it is known to name a release."""
    try:
        xla_release_named(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _release_request(given: str | None, config: Config) -> ReleaseRequest:
    """What ``--xla-release`` and the ``[tool.hostoffload]`` table say of the release."""
    return ReleaseRequest(
        given, given_as="--xla-release {}", configured=config.xla_release, configured_in=config.path
    )


def _add_ignore(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        type=_code,
        metavar="CODE",
        help="leave out the findings of CODE, e.g. HOW101 (repeatable)",
    )


def _code(text: str) -> str:
    try:
        code = code_named(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if code != text.strip().upper():
        sys.stderr.write(
            f"hostoffload: --ignore {text}: the code is {code} now (docs/diagnostics.md)\n"
        )
    return code


def _platform(text: str) -> Platform:
    try:
        return chosen_platform(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _read(file: str) -> tuple[object, str | None]:
    if file == STDIN:
        return sys.stdin.buffer.read(), STDIN_NAME
    # A Path, so that a command-line argument is never taken for MLIR text.
    return Path(file), None


def _check(args: argparse.Namespace) -> int:
    # One output for all files: its format is the current directory's, as ruff's is.
    args.format = args.format or find().format or "text"
    root = sarif.repository_root() if args.format in ("sarif", "github") else None
    colour = args.format == "text" and _colour_wanted()
    reports: list[Report] = []
    failures: list[InputError] = []
    configs: dict[Path, Config] = {}
    for file in _expand_directories(args.files):
        config = _config_of(file, configs)
        try:
            report = api.check_named(
                *_read(file),
                entry=args.entry or config.entry,
                strict=args.strict if args.strict is not None else bool(config.strict),
                allow_h2h_copy=args.allow_h2h_copy,
                xla_release=_release_request(args.xla_release, config),
                platform=args.platform or chosen_platform(config.platform),
            )
        except InputError as error:
            sys.stderr.write(f"{error}\n")
            failures.append(error)
            if args.format == "json":
                print(json.dumps(error.to_json()))
            elif args.format == "github":
                _print_lines(github.failure_annotations(error, root))
            continue
        report = report.ignoring([*args.ignore, *config.ignore])
        if args.warnings_as_errors:
            report = report.with_warnings_as_errors()
        reports.append(report)
        if args.format == "json":
            print(report.to_json(locations=args.json_locations))
        elif args.format == "github":
            _print_lines(github.annotations(report, root))
        elif args.format == "text":
            quiet = args.quiet
            text = report.to_text(colour=colour, summary=not quiet, jax_fix=not quiet)
            if text:
                print(text)
    if args.format == "sarif":
        print(sarif.to_sarif(reports, failures, root=root))
    sys.stdout.flush()
    if failures:
        return EXIT_BAD_INPUT
    return EXIT_ERRORS if any(not report.ok for report in reports) else EXIT_CLEAN


def _trace(args: argparse.Namespace) -> int:
    files = _expand_directories(args.files)
    if args.format == "html" and len(files) != 1:
        sys.stderr.write(
            f"{PROG} trace: error: --format html draws one module, and {len(files)} were given "
            "(a directory gives each dump file in it): name one file\n"
        )
        return EXIT_BAD_INPUT
    outputs: list[str] = []
    failed = mismatched = False
    configs: dict[Path, Config] = {}
    for file in files:
        config = _config_of(file, configs)
        try:
            trace = api.trace_named(
                *_read(file),
                entry=args.entry or config.entry,
                xla_release=_release_request(args.xla_release, config),
                platform=args.platform or chosen_platform(config.platform),
            )
        except InputError as error:
            sys.stderr.write(f"{error}\n")
            if args.format == "json":
                outputs.append(json.dumps(error.to_json()))
            failed = True
            continue
        mismatched = mismatched or trace.totals.mismatches > 0
        if args.format == "json":
            outputs.append(trace.to_json())
        elif args.format == "html":
            outputs.append(trace.to_html())
        else:
            outputs.append(trace.to_text())
    text = "".join(f"{output}\n" for output in outputs)
    if args.output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        try:
            Path(args.output).write_text(text, encoding="utf-8", errors="surrogateescape")
        except OSError as error:
            sys.stderr.write(f"{args.output}: error: cannot write the file: {error.strerror}\n")
            return EXIT_BAD_INPUT
    if failed:
        return EXIT_BAD_INPUT
    return EXIT_ERRORS if mismatched else EXIT_CLEAN


def _config_of(file: str, configs: dict[Path, Config]) -> Config:
    """The ``[tool.hostoffload]`` table for ``file``, found from its directory upward (stdin:
    the current directory); ``configs`` holds the tables of the directories seen."""
    directory = Path.cwd() if file == STDIN else Path(os.path.abspath(file)).parent
    if directory not in configs:
        configs[directory] = find(directory)
    return configs[directory]


def _expand_directories(files: Sequence[str]) -> list[str]:
    """``files`` with each directory replaced by the dump files in it (docs/input-forms.md);
    a directory without any stays, and gets the error that it is a directory."""
    expanded: list[str] = []
    for file in files:
        path = Path(file)
        found = _forms.find_dump_files(path) if file != STDIN and path.is_dir() else []
        if found:
            expanded.extend(str(dump) for dump in found)
        else:
            expanded.append(file)
    return expanded


def _print_lines(lines: Sequence[str]) -> None:
    for line in lines:
        print(line)


def _colour_wanted() -> bool:
    # https://no-color.org: a NO_COLOR that is set and not empty turns colour off.
    if os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def _fix(args: argparse.Namespace) -> int:
    try:
        config = _config_of(args.file, {})
        fixed = api.fix_named(
            *_read(args.file),
            args.strategy,
            entry=args.entry or config.entry,
            xla_release=_release_request(args.xla_release, config),
            platform=args.platform or chosen_platform(config.platform),
        )
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


def _run(args: argparse.Namespace) -> int:
    from hostoffload._frames import to_last_user_frame
    from hostoffload.compile_hook import MismatchError, watch

    script = Path(args.script)
    if not script.is_file():
        sys.stderr.write(f"{args.script}: error: cannot run the script: no such file\n")
        return EXIT_BAD_INPUT
    sys.argv = [args.script, *args.script_args]
    # The script's directory comes first on the path, as with `python SCRIPT`.
    sys.path.insert(0, str(script.resolve().parent))
    # The script's settings are those of the project it is run in: the current directory's.
    config = find()
    try:
        platform = args.platform or chosen_platform(config.platform)
    except ValueError as error:
        sys.stderr.write(f"{PROG}: error: {error}\n")
        return EXIT_BAD_INPUT
    action = "warn" if args.warn else "error"
    strict = args.strict if args.strict is not None else bool(config.strict)
    ignore = [*args.ignore, *config.ignore]
    release = _release_request(args.xla_release, config)
    with watch(action, strict=strict, ignore=ignore, platform=platform, xla_release=release):
        try:
            # By the absolute path that `python SCRIPT` names the script's frames by.
            runpy.run_path(os.path.join(os.getcwd(), args.script), run_name="__main__")
        except SystemExit as exit:
            return _exit_status(exit.code)
        except Exception as error:
            # The script's own error (a MismatchError among them), as `python SCRIPT` shows it:
            # by sys.excepthook, from the script's frames on (the hook shows the traceback the
            # exception holds), and exit status 1.
            trace = _without_own_frames(error.__traceback__)
            if isinstance(error, MismatchError):
                # It points at the script's call that made JAX compile, not into JAX or the hook.
                trace = to_last_user_frame(trace)
            error.with_traceback(trace)
            sys.excepthook(type(error), error, error.__traceback__)
            return 1
    return EXIT_CLEAN


# The modules whose frames `hostoffload run` puts before the script's own.
_OWN_MODULES = frozenset({__name__, runpy.__name__})


def _without_own_frames(trace: TracebackType | None) -> TracebackType | None:
    """``trace`` from its first frame that is not of this module or runpy: None for an error
    raised before the script ran (a SyntaxError in it), which then shows no frames."""
    while trace is not None and trace.tb_frame.f_globals.get("__name__") in _OWN_MODULES:
        trace = trace.tb_next
    return trace


def _exit_status(code: object) -> int:
    if code is None:
        return EXIT_CLEAN
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return 1


def _closed_pipe() -> int:
    # Whatever is still buffered for the closed pipe would fail again when Python flushes
    # stdout at exit: point stdout at /dev/null first, as the Python docs advise.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_CLOSED_PIPE
