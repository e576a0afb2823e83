"""Host calls with tuple results in HLO: jaxlib's importer makes an invalid
``mhlo.async_done`` of them; ``hostoffload._async_calls`` splits its result so that the module
reads, and the check follows it as any other host call."""

import re
from pathlib import Path

import pytest
from conftest import e1200_outputs_in, run_offload_opt

import hostoffload
from hostoffload import _async_calls, _convert, _forms

pytest.importorskip("jax", reason="HLO text is converted through jaxlib")

# A host call returning two values: output 0 is its first result moved to host memory,
# output 1 its second result, left in device memory.
HOST_CALL_OF_TWO = """\
HloModule two_results, entry_computation_layout={(f32[8]{0})->(f32[8]{0:S(SPACE)}, f32[8]{0})}

%b {
  %x = f32[8] parameter(0)
  ROOT %pair = (f32[8], f32[8]) custom-call(%x), custom_call_target="HostExecute"
}, execution_thread="host"

ENTRY %main {
  %a = f32[8] parameter(0)
  %s = ((f32[8]), (f32[8], f32[8]), u32[]) async-start(%a), async_execution_thread="host", calls=%b
  %done = (f32[8], f32[8]) async-done(%s)
  %first = f32[8] get-tuple-element(%done), index=0
  %second = f32[8] get-tuple-element(%done), index=1
  %to_host = f32[8] custom-call(%first), custom_call_target="MoveToHost"
  ROOT %out = (f32[8], f32[8]) tuple(%to_host, %second)
}
"""


def generic(memory_space: int) -> str:
    text = HOST_CALL_OF_TWO.replace("SPACE", str(memory_space)).encode()
    return _convert.to_generic(text, _forms.Form.HLO, "two.hlo", "two.hlo").decode()


def test_the_host_call_reads_with_one_result_per_element() -> None:
    text = generic(5)
    assert '"mhlo.async_start"' in text
    assert re.search(r'%\d+:2 = "mhlo.async_done"', text), text
    assert '"stablehlo.tuple"' in text


def test_its_results_are_traced_as_xla_does() -> None:
    """XLA's host call results are device memory: the one moved to host must be declared
    host memory (S(5)), and is E1200 where it is not."""
    assert hostoffload.check(generic(5)).errors == ()
    errors = hostoffload.check(generic(0)).errors
    assert [(f.code, f.output_index) for f in errors] == [("E1200", 0)]


def test_the_driver_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "two.hlo"
    path.write_text(HOST_CALL_OF_TWO.replace("SPACE", "0"))
    result = run_offload_opt(path, "--host-offload-check")
    assert result.returncode == 1, result.stderr
    assert e1200_outputs_in(result.stderr) == [0]


@pytest.mark.parametrize(
    "text",
    [
        '%0 = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc(#loc1)',
        '    %1 = "mhlo.async_done"(%0) {} : (!mhlo.async_bundle<tuple<tensor<f32>>, '
        "tuple<tuple<tensor<f32>>, tensor<f32>>, tensor<ui32>>) -> "
        "tuple<tuple<tensor<f32>>, tensor<f32>> loc(#loc1)",
    ],
    ids=["no host call", "nested tuple"],
)
def test_nothing_it_cannot_split_is_changed(text: str) -> None:
    assert _async_calls.with_flat_async_done(text) is None


def test_a_flat_tuple_is_split() -> None:
    line = (
        '    %1 = "mhlo.async_done"(%0) {called_computation = @c} : '
        "(!mhlo.async_bundle<tuple<tensor<8xf32>>, tuple<tensor<8xf32>, tensor<2x8xf32>>, "
        "tensor<ui32>>) -> tuple<tensor<8xf32>, tensor<2x8xf32>> loc(#loc7)"
    )
    split = _async_calls.with_flat_async_done(line)
    assert split is not None
    done, tuple_ = split.splitlines()
    assert done == (
        '    %hostoffload_async_done_0:2 = "mhlo.async_done"(%0) {called_computation = @c} : '
        "(!mhlo.async_bundle<tuple<tensor<8xf32>>, tuple<tensor<8xf32>, tensor<2x8xf32>>, "
        "tensor<ui32>>) -> (tensor<8xf32>, tensor<2x8xf32>) loc(#loc7)"
    )
    assert tuple_ == (
        '    %1 = "stablehlo.tuple"(%hostoffload_async_done_0#0, %hostoffload_async_done_0#1) : '
        "(tensor<8xf32>, tensor<2x8xf32>) -> tuple<tensor<8xf32>, tensor<2x8xf32>> loc(#loc7)"
    )
