"""Our own copy of the MLIR Python API at ``hostoffload.mlir``."""

import importlib
import json
import pkgutil

import pytest

import hostoffload.mlir._mlir_libs as mlir_libs
from hostoffload.mlir import ir, passmanager

GENERIC_MAIN = """
"func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "main"}> ({
^bb0(%arg0: tensor<4xf32>):
  %0 = "stablehlo.tanh"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  "func.return"(%0) : (tensor<4xf32>) -> ()
}) : () -> ()
"""


def test_every_extension_module_imports() -> None:
    names = {m.name for m in pkgutil.iter_modules(mlir_libs.__path__) if m.name.startswith("_")}
    assert {"_mlir", "_site_initialize_0"} <= names
    for name in names:
        importlib.import_module(f"hostoffload.mlir._mlir_libs.{name}")


def test_dialect_modules_import() -> None:
    from hostoffload.mlir.dialects import builtin, func

    with ir.Context(), ir.Location.unknown():
        module = builtin.ModuleOp()
        with ir.InsertionPoint(module.body):
            function = func.FuncOp("main", ([], []))
        assert function.sym_name.value == "main"


def test_new_context_parses_stablehlo_without_registration() -> None:
    with ir.Context():
        module = ir.Module.parse(GENERIC_MAIN)
        op_names = [op.operation.name for op in module.body.operations[0].regions[0].blocks[0]]
        assert op_names == ["stablehlo.tanh", "func.return"]


def test_check_pass_is_registered_by_the_site_initializer() -> None:
    with ir.Context():
        module = ir.Module.parse(GENERIC_MAIN)
        before = str(module)
        passmanager.PassManager.parse("builtin.module(host-offload-check)").run(module.operation)
        assert str(module) == before


def test_pass_errors_reach_the_diagnostic_handler() -> None:
    seen: list[tuple[str, str]] = []

    def handler(diagnostic: ir.Diagnostic) -> bool:
        seen.append((str(diagnostic.severity), diagnostic.message))
        return True

    with ir.Context() as context:
        context.emit_error_diagnostics = True
        context.attach_diagnostic_handler(handler)
        module = ir.Module.parse(GENERIC_MAIN)
        pipeline = passmanager.PassManager.parse("builtin.module(host-offload-check{entry=absent})")
        with pytest.raises(ir.MLIRError):
            pipeline.run(module.operation)
    assert seen == [
        (
            "DiagnosticSeverity.ERROR",
            "entry function '@absent' (from option entry=absent) is not a func.func in this "
            "module: its functions are 'main'",
        )
    ]


def test_parse_verifies_unless_told_the_text_is_verified() -> None:
    from hostoffload.mlir._mlir_libs import _hostoffload

    # Parses, but func.return gives no value for the declared result.
    invalid = b"""
    "func.func"() <{function_type = () -> tensor<4xf32>, sym_name = "main"}> ({
      "func.return"() : () -> ()
    }) : () -> ()
    """
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        module, errors = _hostoffload.parse(context, invalid, b"m.mlir")
        assert module is None
        assert "has 0 operands, but enclosing function (@main) returns 1" in errors
        module, errors = _hostoffload.parse(context, invalid, b"m.mlir", False)
        assert module is not None and errors == ""


@pytest.mark.parametrize(
    ("attribute", "error"),
    [
        ('#a$b.c<"x">', ""),
        ("#_x9.y<1>", ""),
        ("#a-b.c<1>", """invalid dialect namespace '"a-b"'"""),
        ("#$a.c<1>", """invalid dialect namespace '"$a"'"""),
    ],
)
def test_parse_reads_dialect_namespaces_by_mlirs_rule(attribute: str, error: str) -> None:
    # Our link replaces MLIR's regex for the namespace of an unregistered dialect's
    # attribute; what it accepts and rejects is MLIR's.
    from hostoffload.mlir._mlir_libs import _hostoffload

    text = f'"test.op"() {{a = {attribute}}} : () -> ()'.encode()
    with ir.Context() as context:
        context.allow_unregistered_dialects = True
        module, errors = _hostoffload.parse(context, text, b"m.mlir")
        if error:
            assert module is None
            assert [e["message"] for e in json.loads(errors)["errors"]] == [error]
        else:
            assert attribute in str(module)
