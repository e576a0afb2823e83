"""The XLA release the check models: the newest by default, another by ``xla_release=``,
``--xla-release`` or ``xla-release=``, each release-dependent rule both ways
(docs/semantics.md, section 15)."""

import json
import re

import pytest
from conftest import differential_module, run_hostoffload

import hostoffload
from hostoffload.compile_hook import watch
from hostoffload.releases import (
    newest_xla_release,
    xla_release_named,
    xla_release_of_platform_version,
    xla_releases,
)
from tools.differential import layout

SCAN_INTO_DEVICE_CARRY = layout.SIBLING_SUITE / "s_scan_offload_into_device_carry.mlir"
UNPINNED_SINGLE_OUTPUT = differential_module("unpinned_host_single_output")
BUILD_OF_0_0_42_1 = (
    "PJRT C API\nTFRT TPU v5 lite\nBuilt on Jun 17 2026 11:08:48 (1781719728) cl/933746096"
)


def codes(report: hostoffload.Report) -> list[str]:
    return [finding.code for finding in report.findings]


def test_the_releases_are_ordered_and_each_carried_by_libtpu() -> None:
    names = list(xla_releases())
    assert names == sorted(names)
    assert newest_xla_release() == names[-1]
    for release in xla_releases().values():
        assert release.libtpu, release.name
        assert all(libtpu.xla_release == release.name for libtpu in release.libtpu)


def test_a_release_is_named_by_itself_or_by_a_libtpu_that_carries_it() -> None:
    assert xla_release_named(None) == newest_xla_release()
    assert xla_release_named("2026-07") == "2026-07"
    # Numbers do not order the sources: 0.0.43.2 was built after 0.0.45, from June's.
    assert xla_release_named("0.0.43.2") == "2026-06"
    assert xla_release_named("0.0.45") == "2026-07"
    with pytest.raises(ValueError, match=r"unknown XLA release '0\.0\.44'.*2026-06"):
        xla_release_named("0.0.44")


def test_a_libtpu_is_known_by_its_build_line() -> None:
    assert xla_release_of_platform_version(BUILD_OF_0_0_42_1) == "2026-06"
    with pytest.raises(ValueError, match="no known libtpu release"):
        xla_release_of_platform_version("Built on Jan 1 2030 00:00:00 (1) cl/1")


def test_hoe102_walks_up_through_a_copy_from_2026_07() -> None:
    for release in ("2026-07", "2026-09", None):
        report = hostoffload.check(SCAN_INTO_DEVICE_CARRY, xla_release=release)
        assert codes(report) == ["HOE102"], release
        assert report.errors[0].message.startswith(
            'HOE102: Entry computation parameter "buf" (shape index {}) is not in host memory'
        )
    assert hostoffload.check(SCAN_INTO_DEVICE_CARRY, xla_release="0.0.42.1").ok


@pytest.mark.parametrize(
    ("release", "code", "xla_message"),
    [
        ("2026-06", "HOE104", "FAILED_PRECONDITION: Unimplemented DMA from hbm to hbm;"),
        (
            "0.0.48.1",
            "HOE104",
            "Check failed: source->memory_space() != MemorySpace::kHost (host vs. host);",
        ),
        ("2026-09", "HOW108", "Check failed: CopyArrayExplicit("),
    ],
)
def test_a_lone_unpinned_host_output_moved_to_host(
    release: str, code: str, xla_message: str
) -> None:
    report = hostoffload.check(UNPINNED_SINGLE_OUTPUT, xla_release=release)
    assert codes(report) == [code]
    (finding,) = report.findings
    assert finding.message.startswith(f"{code}: {xla_message}")
    assert "without an error" not in finding.message
    assert finding.output_index == 0
    assert [fix.strategy for fix in finding.fixes] == ["host"]
    assert 'mhlo.memory_kind = "pinned_host" on result 0' in finding.fixes[0].module_change


def test_the_report_names_the_release_it_models() -> None:
    report = hostoffload.check(UNPINNED_SINGLE_OUTPUT, xla_release="0.0.42.1")
    assert report.xla_release == "2026-06"
    assert json.loads(report.to_json())["xla_release"] == "2026-06"
    assert hostoffload.Report.from_json(report.to_json()).xla_release == "2026-06"
    assert str(report).endswith(
        "@main: 1 error, 0 warnings (modelled on XLA 2026-06: xla_release='0.0.42.1')"
    )
    # A report read from JSON that does not say why names the libtpu releases that carry it.
    data = json.loads(report.to_json())
    del data["xla_release_reason"]
    assert str(hostoffload.Report.from_json(data)).endswith(
        "(modelled on XLA 2026-06: libtpu 0.0.42.1 to 0.0.43.2)"
    )
    assert hostoffload.check(UNPINNED_SINGLE_OUTPUT).xla_release == newest_xla_release()


def test_an_unknown_release_is_refused_before_reading() -> None:
    with pytest.raises(ValueError, match="unknown XLA release"):
        hostoffload.check("no such file", xla_release="2027-01")
    with pytest.raises(ValueError, match="unknown XLA release"):
        watch(xla_release="0.0.44")


def test_watch_keeps_the_release_it_is_given() -> None:
    assert watch(xla_release="0.0.45").xla_release == "2026-07"
    assert watch().xla_release is None


def test_fix_declares_the_arguments_its_release_rejects() -> None:
    newest = hostoffload.fix(SCAN_INTO_DEVICE_CARRY, "host")
    june = hostoffload.fix(SCAN_INTO_DEVICE_CARRY, "host", xla_release="2026-06")
    first_argument = re.compile(r'arg_attrs = \[\{mhlo\.memory_kind = "([a-z_]+)"')
    assert first_argument.search(newest)[1] == "pinned_host"  # type: ignore[index]
    assert first_argument.search(june)[1] == "device"  # type: ignore[index]
    assert hostoffload.check(newest).ok


def test_the_command_line_takes_a_release() -> None:
    old = run_hostoffload("check", "--xla-release", "0.0.42.1", str(SCAN_INTO_DEVICE_CARRY))
    assert old.returncode == 0, old.stderr
    assert "(modelled on XLA 2026-06: --xla-release 0.0.42.1)" in old.stdout
    new = run_hostoffload("check", str(SCAN_INTO_DEVICE_CARRY))
    assert new.returncode == 1
    assert "error: HOE102: " in new.stdout
    bad = run_hostoffload("check", "--xla-release", "0.0.44", str(SCAN_INTO_DEVICE_CARRY))
    assert bad.returncode == 2
    assert "unknown XLA release '0.0.44'" in bad.stderr
