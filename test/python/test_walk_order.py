"""The order of the walk, which decides what a finding names: its path is a shortest way from a
start (ties to the start first in the module), and warnings come in the order the walk finds
them, many starts or few."""

import re
from pathlib import Path

import hostoffload
from tools.generate import BINARY, UNARY, func_return, main_header, write_module

# Many starts, each with uses of its own.
STARTS = 70


def add(result: str, operand: str, other: str | None = None) -> str:
    return f'  {result} = "stablehlo.add"({operand}, {other or operand}) : {BINARY}'


def reshape(result: str, operand: str) -> str:
    return f'  {result} = "stablehlo.reshape"({operand}) : {UNARY}'


def module(body: list[str], results: list[str], returned: list[str]) -> str:
    lines = [
        '"builtin.module"() ({',
        main_header(["pinned_host"] * STARTS, results),
        *body,
        func_return(returned),
        "}) : () -> ()",
    ]
    return "\n".join(lines) + "\n"


def own_uses(first: int) -> list[str]:
    """Host compute of its own for each argument from `first` on, at a line of its own."""
    return [add(f"%own{i}", f"%arg{i}") for i in range(first, STARTS)]


def started_from(finding: hostoffload.Finding) -> int:
    match = re.search(r"starting from argument #(\d+)", finding.message)
    assert match, finding.message
    return int(match.group(1))


def path_of(finding: hostoffload.Finding) -> str:
    [path] = [note.message for note in finding.notes if note.message.startswith("path: ")]
    return path.removeprefix("path: ")


def test_where_two_starts_meet_the_path_is_the_shortest_way() -> None:
    # Argument 0 reaches %x in four steps, argument 1 in two: the walk of argument 0 alone
    # would name it, the breadth-first walk names argument 1.
    body = [
        add("%a1", "%arg0"),
        add("%a2", "%a1"),
        add("%a3", "%a2"),
        add("%b1", "%arg1"),
        add("%x", "%a3", "%b1"),
        *own_uses(2),
    ]
    report = hostoffload.check(module(body, ["device"], ["%x"]))

    [error] = report.errors
    assert error.code == "E1200"
    assert started_from(error) == 1
    assert path_of(error) == "argument #1 -> stablehlo.add -> stablehlo.add -> output 0"


def test_where_two_starts_meet_at_the_same_distance_the_first_is_named() -> None:
    body = [add("%a1", "%arg0"), add("%b1", "%arg1"), add("%x", "%b1", "%a1"), *own_uses(2)]
    report = hostoffload.check(module(body, ["device"], ["%x"]))

    [error] = report.errors
    assert started_from(error) == 0
    assert path_of(error) == "argument #0 -> stablehlo.add -> stablehlo.add -> output 0"


def test_warnings_come_in_the_order_the_breadth_first_walk_finds_them() -> None:
    # Argument 0 reaches host compute after three reshapes, every other argument at once: its
    # warning comes last although its start comes first.
    body = [
        reshape("%r1", "%arg0"),
        reshape("%r2", "%r1"),
        reshape("%r3", "%r2"),
        add("%h0", "%r3"),
        *own_uses(1),
    ]
    report = hostoffload.check(module(body, [], []))

    warnings = [f for f in report.findings if f.code == "HOW101"]
    assert [started_from(f) for f in warnings] == [*range(1, STARTS), 0]


def test_starts_apart_in_a_long_chain_each_report_their_own_host_compute(tmp_path: Path) -> None:
    # `chain` moves its value to host every 1,000 ops and back 499 ops later: 80 starts whose
    # host memory never meets, each computed on by 499 adds.
    path = write_module("chain", 80_000, tmp_path / "chain.mlir")
    report = hostoffload.check(str(path))

    assert not report.errors
    assert len(report.starts) == 80
    # One warning per start, in the order of the starts, at the add right after each.
    warnings = [f for f in report.findings if f.code == "HOW101"]
    assert [f.location.line for f in warnings] == [s.location.line + 1 for s in report.starts]
