"""The installed distribution: its commands, its pytest plugin, its metadata, the wheel script.

tools/build_wheel.sh builds, repairs (manylinux) and smoke-tests a wheel in a fresh venv; it
takes minutes, so the suite checks its syntax only, and docs/python-api.md says how to run it.
"""

import re
import subprocess
from importlib.metadata import distribution, entry_points

from conftest import REPO_ROOT

from hostoffload._forms import FIRST_JAXLIB_AFTER, OLDEST_JAXLIB
from hostoffload.codes import help_uri


def test_console_scripts() -> None:
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert scripts["hostoffload"] == "hostoffload.cli:main"
    assert scripts["offload-opt"] == "hostoffload._driver:main"


def test_pytest_plugin_entry_point() -> None:
    (plugin,) = [ep for ep in entry_points(group="pytest11") if ep.name == "hostoffload"]
    assert plugin.value == "hostoffload.pytest_plugin"


def test_project_urls_name_the_diagnostics_page() -> None:
    urls = dict(
        entry.split(", ", 1)
        for entry in distribution("hostoffload").metadata.get_all("Project-URL")
    )
    assert {"Homepage", "Source", "Issues", "Documentation", "Diagnostics"} <= urls.keys()
    assert urls["Diagnostics"].endswith("/docs/diagnostics.md")
    assert help_uri() == urls["Diagnostics"]


def test_classifiers() -> None:
    metadata = distribution("hostoffload").metadata
    classifiers = metadata.get_all("Classifier")
    assert {"Framework :: Pytest", "Typing :: Typed", "Operating System :: POSIX :: Linux"} <= set(
        classifiers
    )
    # The license is metadata of its own (License or, per PEP 639, License-Expression), and
    # license classifiers are deprecated alongside it.
    assert not [c for c in classifiers if c.startswith("License ::")]


def test_build_wheel_script_parses() -> None:
    script = REPO_ROOT / "tools" / "build_wheel.sh"
    result = subprocess.run(["bash", "-n", script], capture_output=True, text=True)
    assert (result.returncode, result.stderr) == (0, "")


def test_the_jax_extra_allows_the_releases_the_converter_reads() -> None:
    requirements = distribution("hostoffload").requires or []
    extra = [r for r in requirements if re.search(r"""extra\s*==\s*["']jax["']""", r)]
    for package in ("jax", "jaxlib"):
        (requirement,) = [r for r in extra if re.match(rf"{package}[<>=\s]", r)]
        bounds = set(re.findall(r"([<>]=?)\s*([\d.]+)", requirement.split(";")[0]))
        assert bounds == {(">=", OLDEST_JAXLIB), ("<", FIRST_JAXLIB_AFTER)}, requirement


def test_the_start_up_hook_is_installed_beside_the_package() -> None:
    # The .pth file sits in site-packages itself: Python reads .pth files only there.
    files = distribution("hostoffload").files or []
    (hook,) = [file for file in files if file.name == "hostoffload-watch.pth"]
    assert hook.parent.name == ""
    installed = hook.locate().read_text()
    assert installed == (REPO_ROOT / "python" / "hostoffload-watch.pth").read_text()
    assert installed.startswith("import ")  # Python runs only the .pth lines that import.
