"""``hostoffload trace`` against XLA's own HostOffloader trace, without libtpu.

``tools/differential/xla_trace.py record`` (opt-in, needs libtpu) compiled the programs of the
HLO dumps (``test/differential/hlo``) with HostOffloader's log on, and recorded in
``test/differential/xla-trace-libtpu-<version>.json`` each start XLA walks, the instructions
its walks visit and put in host memory, where they end, and ``memory_analysis()``'s host
sizes. Here the trace of each ``<program>.host_offloader`` dump must agree with that record
(``xla_trace.compare``); the log parser is checked on log lines kept from the same run
(``data/xla_trace/<program>.log``), and ``compare`` on traces written by hand to the schema
(``data/xla_trace/<program>.trace.json``). See docs/differential.md, "XLA's own trace".
"""

import copy
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import hostoffload
from hostoffload.releases import xla_release_of_platform_version
from tools.differential import layout, xla_trace

DATA = Path(__file__).parent / "data" / "xla_trace"
RECORDS = sorted(layout.SUITE.glob("xla-trace-libtpu-*.json"))
SCHEMA = json.loads((Path(hostoffload.__file__).parent / "trace.schema.json").read_text())
# Each record's modules, by ``<record file>:<module>``.
MODULES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    f"{path.name}:{name}": (document, module)
    for path in RECORDS
    for document in [json.loads(path.read_text())]
    for name, module in sorted(document["modules"].items())
}
LOGS = sorted(DATA.glob("*.log"))
HAND_WRITTEN = sorted(DATA.glob("*.trace.json"))

# Modules whose trace differs from XLA's log, each with the differences and why: none is
# ever left out silently.
KNOWN_DIFFERENCES: dict[str, tuple[list[str], str]] = {
    "host_arg_reshape.host_offloader": (
        ["start 0 (argument 'x'): 0 host compute ops, XLA converts 1 (reshape.1)"],
        # The analysis takes every stablehlo.reshape for a bitcast (it moves no data, and XLA
        # keeps host memory through it either way, so no E1200 changes). XLA:TPU decides after
        # layout assignment, where the tiling of f32[8] (T(128)) and f32[2,4] (T(2,128))
        # differ: that reshape copies, and XLA makes it host compute.
        "XLA:TPU's tiling makes this reshape a copy, which the analysis takes for a bitcast",
    ),
}


def module_of(key: str) -> dict[str, Any]:
    return MODULES[key][1]


def dump_of(key: str) -> Path:
    return layout.HLO_SUITE / f"{key.split(':', 1)[1]}.hlo.txt"


def test_the_records_cover_twenty_programs() -> None:
    assert RECORDS, "no record of XLA's trace: run tools/differential/xla_trace.py record"
    for path in RECORDS:
        document = json.loads(path.read_text())
        for key in ("jax", "jaxlib", "libtpu", "platform_version", "date", "log"):
            assert document["generated"].get(key), (path.name, key)
        assert path.name == f"xla-trace-libtpu-{document['generated']['libtpu']}.json"
        walked = [
            name
            for name, module in document["modules"].items()
            if any(start["walks"] for start in module["starts"])
        ]
        assert len(walked) >= 20, walked


@pytest.mark.parametrize("key", sorted(MODULES))
def test_the_record_is_of_the_dump_on_disk(key: str) -> None:
    module = module_of(key)
    sha256 = hashlib.sha256(dump_of(key).read_bytes()).hexdigest()
    assert module["module_sha256"] == sha256, (
        f"{dump_of(key).name} changed since XLA's trace was recorded: record it again "
        "(tools/differential/xla_trace.py record, docs/differential.md)"
    )
    assert module["same_instructions"], "the compile's dump has other instructions"
    assert module["status"] in ("ok", "e1200"), module["message"]


@pytest.mark.parametrize("log", LOGS, ids=[path.stem for path in LOGS])
def test_the_parser_reads_what_was_recorded(log: Path) -> None:
    """The log lines kept from the recording run parse to the starts the record holds."""
    origins = xla_trace.parse_log(log.read_text().splitlines())
    (document,) = [json.loads(path.read_text()) for path in RECORDS[-1:]]
    recorded = document["modules"][f"{log.stem}.{xla_trace.FORM}"]["starts"]
    assert [origin.kind for origin in origins] == [start["kind"] for start in recorded]
    for origin, start in zip(origins, recorded, strict=True):
        assert origin.parameter == start.get("parameter")
        assert origin.operand == start.get("operand")
        walks = [
            {k: v for k, v in walk.items() if k != "after_annotation"} for walk in start["walks"]
        ]
        assert [json.loads(json.dumps(walk.to_json())) for walk in origin.walks] == walks


def test_the_parser_reads_each_kind_of_message() -> None:
    """Two walks from one MoveToHost: the first ends at a MoveToDevice, the second at the E1200
    of output 0; a parameter's walk through a conditional, with host compute and the trace."""
    (origin,) = xla_trace.parse_log(
        (DATA / "device_put_host_and_back__out0_device.log").read_text().splitlines()
    )
    assert (origin.kind, origin.operand) == ("annotation", "mul.1")
    first, second = origin.walks
    assert (first.start, first.insert_copy_before) == (("custom-call.1", []), True)
    assert first.move_to_device == ["custom-call.1"] and first.error_trace is None
    assert second.visited == [("tuple.1", [0])] and second.error_trace == [("tuple.1", [0])]
    (origin,) = xla_trace.parse_log((DATA / "cond_host.log").read_text().splitlines())
    (walk,) = origin.walks
    assert (origin.kind, origin.parameter, origin.shape) == ("argument", 1, "f32[8]{0:T(128)S(5)}")
    assert walk.host_compute == ["add.1", "mul.3"]
    assert walk.error_trace is not None and walk.error_trace[-1] == ("cond.7", [0])
    assert walk.set_to_host == []  # the walk failed before XLA set anything
    (origin,) = xla_trace.parse_log(
        (DATA / "fori_stream_into_host_buffer_host_out.log").read_text().splitlines()
    )
    (walk,) = origin.walks
    assert walk.streamed == [("custom-call", [])]
    assert [name for name, _ in walk.set_to_host][-1] == "custom-call"
    assert origin.removed_move_to_host == ["custom-call"]


def test_the_parser_ignores_other_lines() -> None:
    lines = [
        'I1207 14:44:09.825096   14444 b295d63588a.cc:809] Offloading "x" to host.',
        'W1207 14:44:09.960851   14482 host_offloader.cc:301] Found an instruction ("m") which '
        "does device compute in host memory space.",
    ]
    assert xla_trace.parse_log(lines) == []


@pytest.mark.parametrize(
    ("shape", "logical", "tiled"),
    [
        ("f32[8]{0:T(128)S(5)}", 32, 512),
        ("f32[4,128]{1,0:T(4,128)S(5)}", 2048, 2048),
        ("f32[3,8]{1,0:T(4,128)}", 96, 2048),
        ("f32[128,2]{0,1:T(2,128)}", 1024, 1024),
        ("bf16[5,200]{1,0:T(8,128)(2,1)}", 2000, 8 * 256 * 2),
        ("s32[]{:T(128)}", 4, 512),
    ],
)
def test_shape_bytes(shape: str, logical: int, tiled: int) -> None:
    assert xla_trace.shape_bytes(shape, tiled=False) == logical
    assert xla_trace.shape_bytes(shape, tiled=True) == tiled


def hand_written(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A trace written by hand for a module, valid under the schema, and the module's record."""
    trace = json.loads(path.read_text())
    errors = [error.message for error in Draft202012Validator(SCHEMA).iter_errors(trace)]
    assert errors == []
    program = path.name.removesuffix(".trace.json")
    (key,) = [k for k in MODULES if k.endswith(f":{program}.{xla_trace.FORM}")][-1:]
    return trace, module_of(key)


@pytest.mark.parametrize("path", HAND_WRITTEN, ids=[p.name for p in HAND_WRITTEN])
def test_compare_accepts_a_trace_that_agrees(path: Path) -> None:
    trace, module = hand_written(path)
    assert xla_trace.compare(module, trace) == []


def test_compare_finds_each_kind_of_difference() -> None:
    trace, module = hand_written(DATA / "fori_stream_into_host_buffer_host_out.trace.json")
    start = trace["starts"][0]

    def differences(change: Any) -> list[str]:
        changed = copy.deepcopy(trace)
        change(changed)
        return xla_trace.compare(module, json.dumps(changed))

    def drop_while(document: dict[str, Any]) -> None:
        through = document["starts"][0]["through"]
        through[:] = [op for op in through if op.get("name") != "while.3"]

    assert differences(drop_while) == [
        "start 0 (argument 'buf'): XLA reaches 'while.3' (while), the trace does not"
    ]
    assert differences(
        lambda d: d["starts"][0]["through"].append({**start["through"][0], "name": "add.24"})
    ) == ["start 0 (argument 'buf'): the trace passes through 'add.24', XLA does not"]

    def mismatch(document: dict[str, Any]) -> None:
        document["starts"][0]["fates"][0]["kind"] = "mismatch"
        document["totals"]["mismatches"] = 1

    assert differences(mismatch) == [
        "start 0 (argument 'buf'): XLA ends output at output 0, the trace does not",
        "start 0 (argument 'buf'): the trace ends mismatch at output 0, XLA does not",
        "totals: 1 mismatches and 0 host compute ops; XLA compiles it, converting 0",
    ]
    assert differences(lambda d: d["starts"][0].update(xla_name="buf")) == [
        "start 0 (argument 'buf'): xla_name 'buf', XLA starts from ['buf.1']"
    ]

    def drop_argument(document: dict[str, Any]) -> None:
        document["starts"][0]["kind"] = "annotation"

    found = differences(drop_argument)
    assert "XLA's host parameter #0: no start of the trace is it" in found
    assert differences(lambda d: d["totals"].update(bytes_output_in_host=512)) == [
        "host outputs: the trace has 512 bytes, XLA's ['f32[4,128]{1,0:T(4,128)S(5)}'] have 2048"
    ]


@functools.cache
def trace_of(key: str) -> str:
    document = MODULES[key][0]
    release = xla_release_of_platform_version(document["generated"]["platform_version"])
    return hostoffload.trace(dump_of(key), xla_release=release).to_json()


@pytest.mark.parametrize("key", sorted(MODULES))
def test_the_trace_agrees_with_xla(key: str) -> None:
    found = xla_trace.compare(module_of(key), trace_of(key))
    expected, reason = KNOWN_DIFFERENCES.get(key.split(":", 1)[1], ([], ""))
    assert found == expected, "\n".join(["the trace and XLA's log differ:", *found, reason])
