"""XLA's own HostOffloader unit tests read as HLO, against XLA:TPU (opt-in, needs libtpu).

``xla/hlo/transforms/host_offloader_test.cc`` holds each test's HLO module as a C++ raw string
(``R"(...)"``). For every test this reads the module with ``hostoffload.check``, as ``hostoffload
check`` reads HLO text, compiles it with XLA:TPU compile-only in a process of its own
(``worker.py compile``), and compares the two verdicts as the HLO-dump suite does: the same set
of E1200 outputs; a module XLA rejects with another error counts as no E1200, and a module our
check cannot read never agrees. A libtpu abort is no verdict.

XLA compiles the module as jaxlib translates it to MLIR (``hlo_to_stablehlo``; where that does
not verify, a host call with a tuple result, ``xla_computation_to_mlir_module`` with the host
call split as ``hostoffload._async_calls`` splits it), with the entry memory spaces of its
``entry_computation_layout`` declared as ``mhlo.memory_kind`` (how PJRT's MLIR path reads them)
and large constants made zeros (their values move nothing). XLA's full set of E1200 outputs is
probed as ``run.py`` probes it. The test file is XLA's: fetch it, never commit it. From the
repository root::

    git -C XLA show main:xla/hlo/transforms/host_offloader_test.cc > /tmp/host_offloader_test.cc
    flock /tmp/libtpu.lock ../oracle-venv/bin/python -m tools.differential.xla_tests \\
        /tmp/host_offloader_test.cc --out /tmp/xla-tests.json --xla-commit COMMIT

``--reuse-xla`` takes XLA's verdicts from an earlier output of the same libtpu build (the same
modules): only our check runs again. ``--gpu-target h100`` compiles with XLA:GPU instead
(``gpu.py``, in a venv with ``.[oracle-gpu]``). See docs/differential.md.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tools.differential import gpu

REPO_ROOT = Path(__file__).resolve().parents[2]
TOPOLOGY = "v5e:2x2"
FRONT_END_REFUSAL = "that was explicitly marked illegal"
# `TEST_F(Fixture, Name) {` or `TEST(Suite, Name) {`, the name possibly on the next line.
_TEST = re.compile(r"^\s*TEST(?:_F|_P)?\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{", re.MULTILINE)
# A C++ raw string's opening: R"delimiter( with a delimiter of up to 16 characters.
_RAW_STRING = re.compile(r'\bR"([^()\\\s"]{0,16})\(')
_HLO_MODULE = re.compile(r"\s*HloModule\s")


def raw_strings(source: str) -> list[str]:
    """The contents of the C++ raw string literals in ``source``, in order."""
    found = []
    position = 0
    while (opening := _RAW_STRING.search(source, position)) is not None:
        closing = f'){opening[1]}"'
        end = source.find(closing, opening.end())
        if end < 0:
            raise ValueError(f"unterminated raw string at offset {opening.start()}")
        found.append(source[opening.end() : end])
        position = end + len(closing)
    return found


def hlo_modules(source: str) -> dict[str, list[str]]:
    """Each test of the C++ test file ``source`` (by name, in order) with the HLO modules of
    its raw strings (those that start with ``HloModule``)."""
    heads = list(_TEST.finditer(source))
    tests: dict[str, list[str]] = {}
    for index, head in enumerate(heads):
        end = heads[index + 1].start() if index + 1 < len(heads) else len(source)
        if head[1] in tests:
            raise ValueError(f"two tests named {head[1]}")
        body = source[head.end() : end]
        tests[head[1]] = [text for text in raw_strings(body) if _HLO_MODULE.match(text)]
    return tests


def module_names(tests: dict[str, list[str]]) -> dict[str, str]:
    """One name per module: the test's, with ``#i`` where a test has several."""
    named = {}
    for test, modules in tests.items():
        for index, text in enumerate(modules):
            named[test if len(modules) == 1 else f"{test}#{index}"] = text
    return named


# --- our check ----------------------------------------------------------------------------------


def our_verdict(text: str, xla_release: str | None, platform: str = "tpu") -> dict[str, Any]:
    """What ``hostoffload.check`` says of the HLO ``text`` compiled for ``platform``: its E1200
    outputs and other error codes, or that it cannot read it, and why."""
    import hostoffload

    try:
        report = hostoffload.check(text, xla_release=xla_release, platform=platform)
    except hostoffload.InputError as error:
        return {"read": False, "reason": str(error).splitlines()[0][:600]}
    e1200 = sorted({f.output_index for f in report.errors if f.code == "E1200"})
    others = sorted({f.code for f in report.errors if f.code != "E1200"})
    return {"read": True, "e1200_outputs": e1200, "other_errors": others}


# --- XLA's verdict ------------------------------------------------------------------------------


def xla_input(text: str) -> str:
    """The module XLA:TPU compiles for the HLO ``text`` (generic MLIR; see the module's
    documentation). Raises ValueError where jaxlib cannot make one."""
    from jax._src.interpreters import mlir as jax_mlir
    from jaxlib import _hlo as xla_hlo
    from jaxlib import _jax

    from hostoffload import _async_calls, _convert, _hlo

    try:
        hlo_module = xla_hlo.hlo_module_from_text(text)
    except Exception as error:  # XLA's parser refuses it
        raise ValueError(f"XLA's HLO parser: {str(error).splitlines()[0]}") from None
    proto = hlo_module.as_serialized_hlo_module_proto()
    computation = xla_hlo.XlaComputation(proto)
    ir = jax_mlir.ir
    with jax_mlir.make_ir_context():
        try:
            module = ir.Module.parse(_jax.mlir.hlo_to_stablehlo(proto))
        except ir.MLIRError:
            flat = _async_calls.with_flat_async_done(
                _jax.mlir.xla_computation_to_mlir_module(computation)
            )
            if flat is None:
                raise ValueError("XLA's HLO to MLIR translation does not verify") from None
            module = ir.Module.parse(flat)
        _splat_large_constants(module)
        main = _convert._entry_function(module)
        function_type = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
        arguments, results = _hlo.memory_spaces(computation.program_shape()) or ([], [])
        for attrs_key, spaces, count in (
            ("arg_attrs", arguments, len(function_type.inputs)),
            ("res_attrs", results, len(function_type.results)),
        ):
            if spaces and len(spaces) != count:
                raise ValueError(f"{len(spaces)} entry memory spaces for {count} {attrs_key}")
            kinds = [_MEMORY_KINDS.get(space, "device") for space in spaces] or ["device"] * count
            _declare_memory_kinds(main, attrs_key, kinds)
        generic: str = module.operation.get_asm(print_generic_op_form=True)
    return generic


# The memory kind PJRT's MLIR path reads for each memory space of an HLO layout.
_MEMORY_KINDS = {"5": "pinned_host", "6": "unpinned_host"}


def _declare_memory_kinds(main: Any, attrs_key: str, kinds: list[str]) -> None:
    """``mhlo.memory_kind`` of each argument (``arg_attrs``) or result (``res_attrs``)."""
    from jax._src.interpreters import mlir as jax_mlir

    ir = jax_mlir.ir
    old = list(ir.ArrayAttr(main.attributes[attrs_key])) if attrs_key in main.attributes else []
    new = []
    for index, kind in enumerate(kinds):
        entries = ir.DictAttr(old[index]) if index < len(old) else ir.DictAttr.get({})
        fields = {entries[k].name: entries[k].attr for k in range(len(entries))}
        fields["mhlo.memory_kind"] = ir.StringAttr.get(kind)
        new.append(ir.DictAttr.get(fields))
    main.attributes[attrs_key] = ir.ArrayAttr.get(new)


# Constants of more elements than this become zeros: XLA's parser fills an elided literal
# (`constant({...})`) of the tests' f32[1,8,6,2048,2048] with 805 MB of data, and no value of
# a constant changes where HostOffloader puts it.
LARGE_CONSTANT = 1 << 16


def _splat_large_constants(module: Any) -> None:
    from jax._src.interpreters import mlir as jax_mlir

    ir = jax_mlir.ir

    def splat(op: Any) -> Any:
        if op.name == "stablehlo.constant":
            value = ir.DenseElementsAttr(op.attributes["value"])
            element = ir.ShapedType(value.type).element_type
            if not value.is_splat and len(value) > LARGE_CONSTANT:
                zero = (
                    ir.FloatAttr.get(element, 0.0)
                    if isinstance(element, ir.FloatType)
                    else ir.IntegerAttr.get(element, 0)
                )
                op.attributes["value"] = ir.DenseElementsAttr.get_splat(value.type, zero)
        return ir.WalkResult.ADVANCE

    with ir.Location.unknown():
        module.operation.walk(splat)


def xla_verdict(settings: Any, name: str, text: str) -> dict[str, Any]:
    """XLA:TPU's verdict on the HLO ``text``, each compile in a process of its own."""
    from tools.differential import mlir_text, run

    try:
        compiled = xla_input(text)
    except ValueError as error:
        return {"status": "not_compiled", "message": str(error)[:1500], "e1200_outputs": None}
    target = run.Target(settings.topology, 1)
    record = run.xla_record(run.xla_compile(settings, name, compiled, target))
    if record["status"] == "e1200":
        count = len(mlir_text.results(compiled))
        outputs, details = run.probe_e1200_outputs(settings, name, compiled, count, target)
        record["e1200_outputs"] = outputs
        record["probe"] = details
    return record


def agrees(xla: dict[str, Any], ours: dict[str, Any]) -> bool | None:
    """The same E1200 outputs; None without an XLA verdict; never where ours read nothing."""
    if xla["e1200_outputs"] is None:
        return None
    return bool(ours["read"]) and ours["e1200_outputs"] == xla["e1200_outputs"]


def summary(modules: dict[str, dict[str, Any]]) -> dict[str, Any]:
    def names(test: Any) -> list[str]:
        return sorted(name for name, entry in modules.items() if test(entry))

    return {
        "modules": len(modules),
        "agree": len(names(lambda e: e["agrees"] is True)),
        "disagree": names(lambda e: e["agrees"] is False),
        "no_xla_verdict": names(lambda e: e["agrees"] is None),
        "not_read": names(lambda e: not e["ours"]["read"]),
        # PJRT's MLIR path refuses mhlo.copy, mhlo.bitcast and mhlo.async_start before XLA's
        # compiler runs: no E1200, as XLA says, but no pass of XLA's ran on the module.
        "front_end_refused": names(lambda e: FRONT_END_REFUSAL in e["xla"]["message"]),
        "xla_status": {
            status: len(names(lambda e, s=status: e["xla"]["status"] == s))
            for status in sorted({e["xla"]["status"] for e in modules.values()})
        },
    }


def reusable(path: Path | None, platform_version: str) -> dict[str, dict[str, Any]]:
    """XLA's verdicts of an earlier output by the same libtpu build, by module sha256 (a
    module without a verdict is compiled again)."""
    if path is None:
        return {}
    earlier = json.loads(path.read_text())
    if earlier["generated"]["platform_version"] != platform_version:
        raise SystemExit(f"--reuse-xla: {path} was recorded by another libtpu build")
    return {
        entry["module_sha256"]: entry["xla"]
        for entry in earlier["modules"].values()
        if entry["xla"]["e1200_outputs"] is not None
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("test_file", type=Path, help="XLA's host_offloader_test.cc")
    parser.add_argument("--out", type=Path, required=True, help="the JSON results")
    parser.add_argument("--xla-commit", default="", help="XLA's commit of the test file")
    parser.add_argument("--only", help="regex: the tests it matches")
    parser.add_argument("--reuse-xla", type=Path, help="XLA's verdicts from an earlier --out")
    parser.add_argument("--xla-release", help="the XLA release our check models")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per compile")
    parser.add_argument("--memory-gb", type=float, default=8.0, help="address space per compile")
    parser.add_argument(
        "--gpu-target", choices=sorted(gpu.TARGETS), help="compile with XLA:GPU (gpu.py)"
    )
    args = parser.parse_args()
    if not args.test_file.is_file():
        parser.error(f"no such file: {args.test_file}")

    from hostoffload.releases import xla_release_named
    from tools.differential import run

    tests = hlo_modules(args.test_file.read_text())
    modules = module_names(tests)
    if args.only:
        modules = {n: t for n, t in modules.items() if re.search(args.only, n)}
    without = sorted(test for test, found in tests.items() if not found)
    print(f"{len(tests)} tests, {len(modules)} HLO modules; without one: {without}", flush=True)
    with tempfile.TemporaryDirectory(prefix="hostoffload-xla-tests-") as staging:
        settings = run.Settings(
            offload_opt="",
            timeout=args.timeout,
            memory_gb=args.memory_gb,
            topology=gpu.TOPOLOGY if args.gpu_target else TOPOLOGY,
            lock_wait=600.0,
            staging=Path(staging),
            log=True,
            serve=bool(args.gpu_target),
            gpu_target=args.gpu_target or "",
        )
        versions = run.worker(settings, "versions", "versions").get("versions")
        if versions is None:
            raise SystemExit("the worker could not start its compiler")
        release = (
            xla_release_named(args.xla_release)
            if args.xla_release
            else run.modelled_release(versions)
        )
        earlier = reusable(args.reuse_xla, versions["platform_version"])
        results: dict[str, dict[str, Any]] = {}
        started = time.monotonic()
        for name, text in modules.items():
            sha256 = hashlib.sha256(text.encode()).hexdigest()
            xla = earlier.get(sha256) or xla_verdict(settings, name, text)
            ours = our_verdict(text, release, settings.platform)
            results[name] = {"module_sha256": sha256, "xla": xla, "ours": ours}
            results[name]["agrees"] = agrees(xla, ours)
            mark = {True: "agree", False: "DISAGREE", None: "no XLA verdict"}[
                results[name]["agrees"]
            ]
            shown = ours.get("e1200_outputs", f"cannot read: {ours.get('reason')}")
            print(f"{name}: xla {xla['status']} {xla['e1200_outputs']}, ours {shown} -> {mark}")
        run.SERVER.stop()
    document = {
        "generated": {
            **versions,
            "date": datetime.date.today().isoformat(),
            "xla_test_file": args.test_file.name,
            "xla_commit": args.xla_commit,
            "tests": len(tests),
            "xla_release_modelled": release,
            "command": "python -m tools.differential.xla_tests " + " ".join(sys.argv[1:]),
        },
        "summary": summary(results),
        "modules": results,
    }
    args.out.write_text(json.dumps(document, indent=1) + "\n")
    found = document["summary"]
    print(
        f"\n{found['agree']} of {found['modules']} agree; disagree {found['disagree']}; "
        f"no XLA verdict {found['no_xla_verdict']}; not read {found['not_read']}; "
        f"refused by PJRT's MLIR front end {len(found['front_end_refused'])}; "
        f"XLA {found['xla_status']}; {time.monotonic() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
