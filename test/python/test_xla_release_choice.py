"""The XLA release every route models unless told: the one given, then
``$HOSTOFFLOAD_XLA_RELEASE``, then ``[tool.hostoffload] xla_release``, then the libtpu of the
TPU backend JAX has started, then the libtpu package installed here, then the newest
(docs/semantics.md, section 15).

A libtpu "installed here" is a ``libtpu-VERSION.dist-info`` put first on the path: only its
metadata, as pip leaves it, without the library. A started TPU backend is a client with a
``platform_version`` in JAX's table of started backends. The program whose verdict depends on
it: a ``lax.scan`` writing rows moved to host into a carried device buffer, which libtpu
0.0.42.1 (XLA 2026-06) compiles and runs and later releases reject (HOE102).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import REPO_ROOT

import hostoffload
from hostoffload import releases
from hostoffload.releases import (
    ENVIRONMENT_VARIABLE,
    ChosenXlaRelease,
    ReleaseRequest,
    UnknownLibtpuWarning,
    chosen_xla_release,
    newest_xla_release,
)
from hostoffload.testing import assert_no_mismatch
from tools.differential import layout

pytest_plugins = ["pytester"]

jax = pytest.importorskip("jax")
from jax._src import xla_bridge  # noqa: E402

# libtpu 0.0.42.1 carries XLA 2026-06, 0.0.45 XLA 2026-07, 0.0.52 the newest (2026-09).
BUILD_OF_0_0_42_1 = (
    "PJRT C API\nTFRT TPU v5 lite\nBuilt on Jun 17 2026 11:08:48 (1781719728) cl/933746096"
)
BUILD_OF_0_0_45 = (
    "PJRT C API\nTFRT TPU v5 lite\nBuilt on Jul 31 2026 18:15:08 (1785546908) cl/957406610"
)
UNKNOWN_BUILD = "PJRT C API\nTFRT TPU v7\nBuilt on Jan 5 2027 01:02:03 (1799110923) cl/1100000000"
# The recorded lowering of the scan (tools/differential/catalogue_sibling.py): HOE102 from
# XLA 2026-07 on, compiled by libtpu 0.0.42.1 and 0.0.43.2.
SCAN_INTO_DEVICE_CARRY = layout.SIBLING_SUITE / "s_scan_offload_into_device_carry.mlir"
HOE102 = "error: HOE102: "
NEWEST = newest_xla_release()

# The same scan as a JAX program, compiled on CPU: the watch checks its lowering for TPU.
SCAN_PROGRAM = """\
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import SingleDeviceSharding

import hostoffload

CPU = jax.devices("cpu")[0]
DEVICE = SingleDeviceSharding(CPU, memory_kind="device")
HOST = SingleDeviceSharding(CPU, memory_kind="pinned_host")


def scan_offloading_rows(buf, x):
    def step(carry, i):
        row = jax.device_put(jnp.sin(x) * i.astype(x.dtype), jax.memory.Space.Host)
        return lax.dynamic_update_slice(carry, row, (i, 0)), None

    out, _ = lax.scan(step, jax.device_put(buf, jax.memory.Space.Host), jnp.arange(8))
    return out


def compile_scan():
    buf = jax.ShapeDtypeStruct((8, 128), jnp.float32, sharding=DEVICE)
    x = jax.ShapeDtypeStruct((1, 128), jnp.float32, sharding=DEVICE)
    return jax.jit(scan_offloading_rows, out_shardings=HOST).lower(buf, x).compile()
"""
RUN_SCRIPT = (
    SCAN_PROGRAM
    + """
try:
    compile_scan()
    print("compiled")
except hostoffload.MismatchError as error:
    print("stopped:", [f.code for f in error.report.errors], error.report.xla_release_reason)
"""
)


def fake_libtpu(directory: Path, version: str) -> Path:
    """``directory`` holding the metadata pip installs for libtpu ``version`` and no library:
    put first on the path, it is the libtpu installed here."""
    info = directory / f"libtpu-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: libtpu\nVersion: {version}\n")
    (info / "RECORD").write_text("")
    return directory


def environment(site: Path | None = None, **variables: str) -> dict[str, str]:
    """This process's environment without hostoffload's variables, with ``site`` first on
    the path and ``variables`` set."""
    kept = {
        key: value
        for key, value in os.environ.items()
        if key not in (ENVIRONMENT_VARIABLE, "HOSTOFFLOAD_WATCH", "HOSTOFFLOAD_PLATFORM")
    }
    if site is not None:
        kept["PYTHONPATH"] = os.pathsep.join(
            [str(site), str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        )
    return {**kept, **variables}


def run_python(
    code: str, env: dict[str, str], cwd: Path = REPO_ROOT
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env, cwd=cwd
    )


def hostoffload_command(
    *args: str | Path, env: dict[str, str], cwd: Path = REPO_ROOT
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hostoffload", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=cwd,
    )


@pytest.fixture
def here(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[SimpleNamespace]:
    """This process with no release named, no TPU backend started (JAX's CPU backend is) and no
    libtpu installed; ``install(version)`` installs one (its metadata), ``start(build)`` starts
    a TPU backend (a client in JAX's table of started backends) whose build line is ``build``."""
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    jax.devices("cpu")
    started = {name: client for name, client in xla_bridge._backends.items() if name != "tpu"}
    monkeypatch.setattr(xla_bridge, "_backends", started)
    monkeypatch.setattr(releases, "_warned_builds", set())
    # A libtpu of this machine's own (the [oracle] extra) is left out of these tests.
    read_metadata = releases._installed_libtpu_version
    monkeypatch.setattr(releases, "_installed_libtpu_version", lambda: None)

    def install(version: str) -> None:
        # Its metadata first on the path, read as the release choice reads it.
        monkeypatch.syspath_prepend(str(fake_libtpu(tmp_path / version, version)))
        monkeypatch.setattr(releases, "_installed_libtpu_version", read_metadata)

    def start(build: str) -> None:
        started["tpu"] = SimpleNamespace(platform="tpu", platform_version=build)

    yield SimpleNamespace(install=install, start=start)


# --- the order -----------------------------------------------------------------------------


def test_without_libtpu_the_newest(here: SimpleNamespace) -> None:
    assert chosen_xla_release() == ChosenXlaRelease(NEWEST, "the newest; no libtpu installed here")


def test_the_libtpu_installed_here_by_its_metadata(here: SimpleNamespace) -> None:
    here.install("0.0.42.1")
    chosen = chosen_xla_release()
    assert chosen == ChosenXlaRelease("2026-06", "libtpu 0.0.42.1, installed here")
    assert chosen.describe() == "XLA 2026-06: libtpu 0.0.42.1, installed here"


def test_the_tpu_backend_jax_started_before_the_libtpu_installed(here: SimpleNamespace) -> None:
    here.install("0.0.42.1")
    here.start(BUILD_OF_0_0_45)
    assert chosen_xla_release() == ChosenXlaRelease(
        "2026-07", "libtpu 0.0.45, of the TPU backend JAX started"
    )


def test_a_backend_of_another_platform_is_not_the_tpu_one(here: SimpleNamespace) -> None:
    here.install("0.0.45")
    assert "cpu" in xla_bridge._backends
    assert chosen_xla_release().name == "2026-07"


def test_the_project_setting_before_the_libtpu(here: SimpleNamespace, tmp_path: Path) -> None:
    here.start(BUILD_OF_0_0_42_1)
    request = ReleaseRequest(configured="0.0.45", configured_in=tmp_path / "pyproject.toml")
    assert request.chosen() == ChosenXlaRelease(
        "2026-07", f"xla_release = '0.0.45' in {tmp_path / 'pyproject.toml'}"
    )


def test_the_environment_before_the_project_setting(
    here: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "0.0.42.1")
    request = ReleaseRequest(configured="2026-09")
    assert request.chosen() == ChosenXlaRelease("2026-06", f"{ENVIRONMENT_VARIABLE}=0.0.42.1")


def test_the_argument_before_the_environment(
    here: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "0.0.42.1")
    assert chosen_xla_release("2026-07") == ChosenXlaRelease("2026-07", "xla_release='2026-07'")
    request = ReleaseRequest("0.0.52", given_as="--xla-release {}", configured="2026-06")
    assert request.chosen() == ChosenXlaRelease("2026-09", "--xla-release 0.0.52")


def test_a_bad_environment_value_names_the_variable(
    here: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "0.0.44")
    with pytest.raises(ValueError, match=f"^{ENVIRONMENT_VARIABLE}: unknown XLA release '0.0.44'"):
        chosen_xla_release()


@pytest.mark.parametrize(
    ("where", "named"),
    [
        ("installed", "libtpu 0.0.99, installed here"),
        ("backend", "the libtpu of the TPU backend JAX started (Built on Jan 5 2027"),
    ],
)
def test_an_unknown_libtpu_is_the_newest_with_one_line(
    here: SimpleNamespace, where: str, named: str
) -> None:
    if where == "installed":
        here.install("0.0.99")
    else:
        here.start(UNKNOWN_BUILD)
    with pytest.warns(UnknownLibtpuWarning) as caught:
        chosen = chosen_xla_release()
    assert chosen.name == NEWEST
    assert named in chosen.reason
    assert chosen.reason.endswith("which is not one known")
    (warning,) = caught
    assert str(warning.message).startswith(named)
    assert f"the check models the newest XLA it knows, {NEWEST}" in str(warning.message)
    # One line, for the user's call; none the second time.
    assert warning.filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert chosen_xla_release() == chosen


# --- the routes, in this process ------------------------------------------------------------


def test_check_trace_and_fix_model_the_libtpu_installed(here: SimpleNamespace) -> None:
    here.install("0.0.42.1")
    report = hostoffload.check(SCAN_INTO_DEVICE_CARRY)
    assert report.ok, str(report)
    assert (report.xla_release, report.xla_release_reason) == (
        "2026-06",
        "libtpu 0.0.42.1, installed here",
    )
    assert str(report).endswith(
        "@main: no errors or warnings (modelled on XLA 2026-06: libtpu 0.0.42.1, installed here)"
    )
    data = json.loads(report.to_json())
    assert (data["xla_release"], data["xla_release_reason"]) == (
        "2026-06",
        "libtpu 0.0.42.1, installed here",
    )
    assert hostoffload.Report.from_json(report.to_json()) == report
    trace = hostoffload.trace(SCAN_INTO_DEVICE_CARRY)
    assert (trace.xla_release, trace.xla_release_reason) == report_release(report)
    assert json.loads(trace.to_json())["xla_release_reason"] == "libtpu 0.0.42.1, installed here"
    assert trace.to_text().endswith("(modelled on XLA 2026-06: libtpu 0.0.42.1, installed here)")
    # XLA 2026-06 accepts the device buffer: the host fix leaves it device.
    fixed = hostoffload.fix(SCAN_INTO_DEVICE_CARRY, "host")
    assert fixed == hostoffload.fix(SCAN_INTO_DEVICE_CARRY, "host", xla_release="2026-06")
    assert fixed != hostoffload.fix(SCAN_INTO_DEVICE_CARRY, "host", xla_release="2026-09")


def report_release(report: hostoffload.Report) -> tuple[str | None, str | None]:
    return report.xla_release, report.xla_release_reason


def test_check_models_the_backend_jax_started(here: SimpleNamespace) -> None:
    here.install("0.0.52")
    assert [f.code for f in hostoffload.check(SCAN_INTO_DEVICE_CARRY).errors] == ["HOE102"]
    here.start(BUILD_OF_0_0_42_1)
    report = hostoffload.check(SCAN_INTO_DEVICE_CARRY)
    assert report.ok
    assert report_release(report) == ("2026-06", "libtpu 0.0.42.1, of the TPU backend JAX started")


def test_check_jax_models_the_libtpu_installed(here: SimpleNamespace) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(SCAN_PROGRAM, "<scan>", "exec"), namespace)
    here.install("0.0.42.1")
    device = namespace["DEVICE"]
    buf = jax.ShapeDtypeStruct((8, 128), jax.numpy.float32, sharding=device)
    x = jax.ShapeDtypeStruct((1, 128), jax.numpy.float32, sharding=device)
    report = hostoffload.check_jax(
        namespace["scan_offloading_rows"], buf, x, out_shardings=namespace["HOST"]
    )
    assert report.ok, str(report)
    assert report_release(report) == ("2026-06", "libtpu 0.0.42.1, installed here")
    newest = hostoffload.check_jax(
        namespace["scan_offloading_rows"],
        buf,
        x,
        xla_release="0.0.52",
        out_shardings=namespace["HOST"],
    )
    assert [f.code for f in newest.errors] == ["HOE102"]
    assert newest.xla_release_reason == "xla_release='0.0.52'"
    scan, host = namespace["scan_offloading_rows"], namespace["HOST"]
    assert assert_no_mismatch(scan, buf, x, out_shardings=host).xla_release == "2026-06"
    with pytest.raises(AssertionError, match="HOE102"):
        assert_no_mismatch(scan, buf, x, xla_release="2026-09", out_shardings=host)


@pytest.mark.usefixtures("cpu_host_memory")
def test_watch_models_the_libtpu_as_each_program_is_checked(here: SimpleNamespace) -> None:
    namespace: dict[str, Any] = {}
    exec(compile(SCAN_PROGRAM, "<scan>", "exec"), namespace)
    with hostoffload.watch("record") as watcher:
        here.install("0.0.42.1")
        namespace["compile_scan"]()
        assert watcher.reports == []
        # A TPU backend started after the watch decides the next check.
        here.start(BUILD_OF_0_0_45)
        namespace["compile_scan"]()
    assert watcher.xla_release is None
    (report,) = watcher.reports
    assert [f.code for f in report.errors] == ["HOE102"]
    assert report_release(report) == ("2026-07", "libtpu 0.0.45, of the TPU backend JAX started")
    with hostoffload.watch("record", xla_release="2026-09") as given:
        namespace["compile_scan"]()
    assert [r.xla_release_reason for r in given.reports] == ["xla_release='2026-09'"]


# --- the routes, as processes -----------------------------------------------------------------


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A directory holding libtpu 0.0.42.1's metadata, to put first on a process's path."""
    return fake_libtpu(tmp_path / "site", "0.0.42.1")


def test_the_command_line_models_the_libtpu_installed(site: Path) -> None:
    # The false HOE102 of issue 68: libtpu 0.0.42.1 compiles and runs this scan.
    installed = hostoffload_command("check", SCAN_INTO_DEVICE_CARRY, env=environment(site))
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert HOE102 not in installed.stdout
    assert installed.stdout.endswith(
        "@main: no errors or warnings (modelled on XLA 2026-06: libtpu 0.0.42.1, installed here)\n"
    )
    as_json = hostoffload_command(
        "check", "--format", "json", SCAN_INTO_DEVICE_CARRY, env=environment(site)
    )
    data = json.loads(as_json.stdout)
    assert (data["xla_release"], data["xla_release_reason"]) == (
        "2026-06",
        "libtpu 0.0.42.1, installed here",
    )
    newest = hostoffload_command(
        "check", "--xla-release", "2026-09", SCAN_INTO_DEVICE_CARRY, env=environment(site)
    )
    assert newest.returncode == 1
    assert HOE102 in newest.stdout
    assert "(modelled on XLA 2026-09: --xla-release 2026-09)" in newest.stdout


def test_the_command_line_order(site: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    module = project / "scan.mlir"
    module.write_bytes(SCAN_INTO_DEVICE_CARRY.read_bytes())
    (project / "pyproject.toml").write_text('[tool.hostoffload]\nxla_release = "2026-09"\n')
    configured = hostoffload_command("check", module, env=environment(site))
    assert configured.returncode == 1
    assert f"(modelled on XLA 2026-09: xla_release = '2026-09' in {project}" in configured.stdout
    from_environment = hostoffload_command(
        "check", module, env=environment(site, **{ENVIRONMENT_VARIABLE: "0.0.43.2"})
    )
    assert from_environment.returncode == 0
    assert f"(modelled on XLA 2026-06: {ENVIRONMENT_VARIABLE}=0.0.43.2)" in (
        from_environment.stdout
    )
    given = hostoffload_command(
        "check",
        "--xla-release",
        "0.0.45",
        module,
        env=environment(site, **{ENVIRONMENT_VARIABLE: "0.0.43.2"}),
    )
    assert given.returncode == 1
    assert "(modelled on XLA 2026-07: --xla-release 0.0.45)" in given.stdout


def test_the_command_line_refuses_a_bad_environment_value(site: Path) -> None:
    bad = hostoffload_command(
        "check", SCAN_INTO_DEVICE_CARRY, env=environment(site, **{ENVIRONMENT_VARIABLE: "2027"})
    )
    assert bad.returncode == 2
    assert bad.stderr.startswith(f"hostoffload: error: {ENVIRONMENT_VARIABLE}: unknown XLA release")
    assert "Traceback" not in bad.stderr


def test_the_command_line_names_an_unknown_libtpu_in_one_line(tmp_path: Path) -> None:
    site = fake_libtpu(tmp_path / "site", "0.0.99")
    result = hostoffload_command(
        "check", SCAN_INTO_DEVICE_CARRY, SCAN_INTO_DEVICE_CARRY, env=environment(site)
    )
    assert result.returncode == 1
    assert result.stderr == (
        "hostoffload: warning: libtpu 0.0.99, installed here: not a libtpu release hostoffload "
        f"knows; the check models the newest XLA it knows, {NEWEST} (docs/semantics.md, "
        "section 15)\n"
    )
    assert result.stdout.count(HOE102) == 2


def test_trace_models_the_libtpu_installed(site: Path) -> None:
    text = hostoffload_command("trace", SCAN_INTO_DEVICE_CARRY, env=environment(site))
    assert text.returncode == 0
    assert text.stdout.splitlines()[-1].endswith(
        "(modelled on XLA 2026-06: libtpu 0.0.42.1, installed here)"
    )
    as_json = hostoffload_command(
        "trace", "--format", "json", SCAN_INTO_DEVICE_CARRY, env=environment(site)
    )
    data = json.loads(as_json.stdout)
    assert (data["xla_release"], data["xla_release_reason"]) == (
        "2026-06",
        "libtpu 0.0.42.1, installed here",
    )


def test_the_check_neither_loads_libtpu_nor_starts_a_backend(site: Path) -> None:
    # A libtpu module that refuses to be imported, beside its metadata.
    (site / "libtpu").mkdir()
    (site / "libtpu" / "__init__.py").write_text("raise ImportError('libtpu was loaded')\n")
    code = f"""
import sys
import jax
from jax._src import xla_bridge
import hostoffload

report = hostoffload.check({str(SCAN_INTO_DEVICE_CARRY)!r})
watcher = hostoffload.watch()
print(report.xla_release, report.xla_release_reason, sep="|")
print("libtpu" in sys.modules, xla_bridge.backends_are_initialized(), dict(xla_bridge._backends))
"""
    result = run_python(code, environment(site))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "2026-06|libtpu 0.0.42.1, installed here",
        "False False {}",
    ]


@pytest.mark.usefixtures("cpu_host_memory")
def test_run_models_the_libtpu_installed(site: Path, tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(RUN_SCRIPT)
    installed = hostoffload_command("run", script, env=environment(site), cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout == "compiled\n"
    given = hostoffload_command(
        "run", "--xla-release", "2026-09", script, env=environment(site), cwd=tmp_path
    )
    assert given.stdout == "stopped: ['HOE102'] --xla-release 2026-09\n", given.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.hostoffload]\nxla_release = "0.0.52"\n')
    configured = hostoffload_command("run", script, env=environment(site), cwd=tmp_path)
    assert configured.stdout == (
        f"stopped: ['HOE102'] xla_release = '0.0.52' in {tmp_path / 'pyproject.toml'}\n"
    )


@pytest.mark.usefixtures("cpu_host_memory")
def test_the_environment_watch_models_the_libtpu_installed(site: Path) -> None:
    # The start-up hook installed with the package starts the watch; the script never imports
    # hostoffload but through its MismatchError.
    installed = run_python(RUN_SCRIPT, environment(site, HOSTOFFLOAD_WATCH="error"))
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout == "compiled\n"
    named = run_python(
        RUN_SCRIPT,
        environment(site, HOSTOFFLOAD_WATCH="error", **{ENVIRONMENT_VARIABLE: "2026-09"}),
    )
    assert named.stdout == f"stopped: ['HOE102'] {ENVIRONMENT_VARIABLE}=2026-09\n", named.stderr


def test_the_environment_watch_refuses_a_bad_release() -> None:
    result = run_python(
        "import hostoffload.compile_hook as hook; print(hook._active)",
        environment(HOSTOFFLOAD_WATCH="error", **{ENVIRONMENT_VARIABLE: "2027"}),
    )
    assert result.stdout == "[]\n"
    assert f"{ENVIRONMENT_VARIABLE}: unknown XLA release '2027'" in result.stderr
    assert "not watching" in result.stderr


PYTEST_TESTS = (
    SCAN_PROGRAM
    + """

def test_scan():
    compile_scan()
"""
)


@pytest.mark.usefixtures("cpu_host_memory")
def test_the_pytest_plugin_models_the_libtpu_installed(
    pytester: pytest.Pytester, site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in environment(site).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    pytester.makepyfile(test_scan=PYTEST_TESTS)
    installed = pytester.runpytest_subprocess("--hostoffload", "-p", "no:cacheprovider")
    installed.assert_outcomes(passed=1)
    given = pytester.runpytest_subprocess(
        "--hostoffload", "--hostoffload-xla-release", "2026-09", "-p", "no:cacheprovider"
    )
    given.assert_outcomes(failed=1)
    given.stdout.fnmatch_lines(
        [
            "*error: HOE102: *",
            "*(modelled on XLA 2026-09: --hostoffload-xla-release 2026-09)",
        ]
    )
    pytester.makepyprojecttoml('[tool.hostoffload]\nxla_release = "2026-07"\n')
    configured = pytester.runpytest_subprocess("--hostoffload", "-p", "no:cacheprovider")
    configured.assert_outcomes(failed=1)
    configured.stdout.fnmatch_lines(["*(modelled on XLA 2026-07: xla_release = '2026-07' in *"])
    bad = pytester.runpytest_subprocess(
        "--hostoffload", "--hostoffload-xla-release", "0.0.44", "-p", "no:cacheprovider"
    )
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--hostoffload-xla-release: unknown XLA release '0.0.44'*"])
