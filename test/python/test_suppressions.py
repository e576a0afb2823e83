"""``# hostoffload: ignore[CODE]`` on the Python line a finding points at leaves the finding out,
on every route: check_jax, check of a lowering, the command line, watch and assert_no_mismatch.

Each function below is lowered for TPU on CPU by ``jax.jit``; its twin without the comment
shows what the comment leaves out.
"""

import linecache
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import REPO_ROOT

import hostoffload
from hostoffload import check, check_jax
from hostoffload.report import Report
from hostoffload.suppressions import SuppressionWarning
from hostoffload.testing import assert_no_mismatch

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from jax.sharding import SingleDeviceSharding  # noqa: E402

CPU = jax.devices("cpu")[0]
DEVICE = SingleDeviceSharding(CPU, memory_kind="device")
PINNED = SingleDeviceSharding(CPU, memory_kind="pinned_host")
PARAMS = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=DEVICE)
STATE = jax.ShapeDtypeStruct((8,), jnp.float32, sharding=PINNED)


def step(params: jax.Array, opt_state: jax.Array) -> tuple[jax.Array, jax.Array]:
    new_state = opt_state * 0.9 + params
    return params - new_state, new_state


def step_host_compute_ignored(
    params: jax.Array, opt_state: jax.Array
) -> tuple[jax.Array, jax.Array]:
    new_state = opt_state * 0.9 + params  # hostoffload: ignore[HOW101]
    return params - new_state, new_state


def step_all_ignored_on_return(
    params: jax.Array, opt_state: jax.Array
) -> tuple[jax.Array, jax.Array]:
    new_state = opt_state * 0.9 + params
    return params - new_state, new_state  # hostoffload: ignore


def step_two_codes_ignored(params: jax.Array, opt_state: jax.Array) -> tuple[jax.Array, jax.Array]:
    new_state = opt_state * 0.9 + params  # Hostoffload: ignore[e1200 , W1201]
    return params - new_state, new_state


def step_unknown_code(params: jax.Array, opt_state: jax.Array) -> tuple[jax.Array, jax.Array]:
    new_state = opt_state * 0.9 + params  # hostoffload: ignore[HOW101, HOW999]
    return params - new_state, new_state


def step_no_code(params: jax.Array, opt_state: jax.Array) -> tuple[jax.Array, jax.Array]:
    new_state = opt_state * 0.9 + params  # hostoffload: ignore[]
    return params - new_state, new_state


def step_not_a_directive(params: jax.Array, opt_state: jax.Array) -> tuple[jax.Array, jax.Array]:
    new_state = opt_state * 0.9 + params  # hostoffload: ignored, hostoffload: ignore-me
    return params - new_state, new_state


def findings(report: Report) -> list[tuple[str, int | None]]:
    """Each finding as its code and its line relative to the function's first line (the
    twins are the same function at other lines)."""
    first = min(f.location.line or 0 for f in report.findings)
    return sorted((f.code, (f.location.line or 0) - first) for f in report.findings)


def line_of(function: object, text: str) -> int:
    code = function.__code__  # type: ignore[attr-defined]
    lines = Path(code.co_filename).read_text().splitlines()
    return next(
        number
        for number, line in enumerate(lines, start=1)
        if number > code.co_firstlineno and text in line
    )


UNCOMMENTED = check_jax(step, PARAMS, STATE)


def test_the_twin_without_comments_has_every_finding() -> None:
    # E1200 on both outputs (at the line of each), host compute at the update's line.
    update = line_of(step, "new_state = ")
    returned = update + 1
    assert sorted((f.code, f.location.line) for f in UNCOMMENTED.findings) == [
        ("E1200", update),
        ("E1200", returned),
        ("HOW101", update),
    ]


def test_a_code_in_brackets_leaves_out_that_code_on_that_line() -> None:
    report = check_jax(step_host_compute_ignored, PARAMS, STATE)
    assert findings(report) == [("E1200", 0), ("E1200", 1)]
    assert [f.code for f in report.errors] == ["E1200", "E1200"]


def test_no_brackets_leaves_out_every_code_on_that_line() -> None:
    report = check_jax(step_all_ignored_on_return, PARAMS, STATE)
    kept = [(f.code, f.location.line) for f in report.findings]
    update = line_of(step_all_ignored_on_return, "new_state = ")
    assert sorted(kept) == [("E1200", update), ("HOW101", update)]
    assert [f.output_index for f in report.errors] == [1]


def test_several_codes_any_case_and_former_codes() -> None:
    report = check_jax(step_two_codes_ignored, PARAMS, STATE)
    assert [(f.code, f.output_index) for f in report.findings] == [("E1200", 0)]


def test_an_unknown_code_warns_at_the_comment_and_the_others_still_apply() -> None:
    with pytest.warns(SuppressionWarning, match="unknown code 'HOW999'") as caught:
        report = check_jax(step_unknown_code, PARAMS, STATE)
    assert (caught[0].filename, caught[0].lineno) == (
        __file__,
        line_of(step_unknown_code, "new_state = "),
    )
    assert findings(report) == [("E1200", 0), ("E1200", 1)]


def test_empty_brackets_warn_and_ignore_nothing() -> None:
    with pytest.warns(SuppressionWarning, match=r"names no code and ignores nothing"):
        report = check_jax(step_no_code, PARAMS, STATE)
    assert findings(report) == findings(UNCOMMENTED)


def test_words_that_only_start_like_the_comment_ignore_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = check_jax(step_not_a_directive, PARAMS, STATE)
    assert findings(report) == findings(UNCOMMENTED)


def test_check_of_a_lowering_and_of_its_text_with_debug_info(tmp_path: Path) -> None:
    lowered = jax.jit(step_host_compute_ignored).trace(PARAMS, STATE)
    lowered = lowered.lower(lowering_platforms=("tpu",))
    assert findings(check(lowered)) == [("E1200", 0), ("E1200", 1)]
    module = tmp_path / "step.mlir"
    module.write_text(lowered.as_text(debug_info=True))
    result = subprocess.run(
        [sys.executable, "-m", "hostoffload", "check", module],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
    )
    assert result.returncode == 1
    assert ": warning: HOW101: " not in result.stdout
    assert result.stdout.count(": error: E1200: ") == 2


@pytest.mark.usefixtures("cpu_host_memory")
def test_watch() -> None:
    with hostoffload.watch("record") as watcher:
        jax.jit(step_all_ignored_on_return).trace(PARAMS, STATE).lower().compile()
    (report,) = watcher.reports
    assert [f.output_index for f in report.errors] == [1]


def test_assert_no_mismatch() -> None:
    def offloaded_output(x: jax.Array) -> jax.Array:
        return x * 2.0  # hostoffload: ignore[E1200]

    assert [f.code for f in assert_no_mismatch(offloaded_output, STATE).findings] == ["HOW101"]


def test_a_file_changed_since_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "model_step.py"
    body = "def update(x):\n    return x * 2.0{comment}\n"
    source.write_text(body.format(comment=""))
    monkeypatch.syspath_prepend(str(tmp_path))
    import model_step  # type: ignore[import-not-found]

    assert {f.code for f in check_jax(model_step.update, STATE).findings} == {"E1200", "HOW101"}
    source.write_text(body.format(comment="  # hostoffload: ignore[HOW101]"))
    assert {f.code for f in check_jax(model_step.update, STATE).findings} == {"E1200"}


def test_a_notebook_cell_is_read_from_linecache() -> None:
    # IPython compiles a cell under a name of its own and puts its lines in linecache.
    name = "<ipython-input-7-hostoffload>"
    cell = "def update(x):\n    return x * 2.0  # hostoffload: ignore[HOW101]\n"
    linecache.cache[name] = (len(cell), None, cell.splitlines(keepends=True), name)
    try:
        namespace: dict[str, object] = {}
        exec(compile(cell, name, "exec"), namespace)
        report = check_jax(namespace["update"], STATE)
    finally:
        del linecache.cache[name]
    assert [(f.code, f.location.file) for f in report.findings] == [("E1200", name)]


def test_a_comment_in_a_module_that_is_not_python_is_not_read(tmp_path: Path) -> None:
    # Every line of the module carries the text of the comment, after MLIR's own "//".
    lines = [
        '"func.func"() <{arg_attrs = [{mhlo.memory_kind = "pinned_host"}], function_type = '
        '(tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({',
        "^bb0(%arg0: tensor<4xf32>):",
        '  "func.return"(%arg0) : (tensor<4xf32>) -> ()',
        "}) : () -> ()",
    ]
    module = tmp_path / "m.mlir"
    module.write_text("".join(f"{line}  // # hostoffload: ignore\n" for line in lines))
    (finding,) = check(module).findings
    assert (finding.code, finding.location.file) == ("E1200", str(module))
