"""The README's first command prints what the README says it prints."""

import json
import re
import shlex
import subprocess

from conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()


def _first_command() -> list[str]:
    """The `offload-opt ...` that ends the README's install command."""
    match = re.search(r"```sh\n(python3 -m venv [^\n]*)\n```", README)
    assert match is not None, "the README's install command is gone"
    return shlex.split(match[1].rsplit("&& ", 1)[1])


def _sample_output() -> list[str]:
    """The output the README shows for it: the block after "On the bundled example"."""
    after = README.split("On the bundled example", 1)[1]
    match = re.search(r"```\n(.*?)```", after, flags=re.DOTALL)
    assert match is not None, "the README's sample output is gone"
    return match[1].splitlines()


def test_the_readme_sample_is_what_the_first_command_prints() -> None:
    command = _first_command()
    assert command[0] == "offload-opt"
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT, timeout=60)
    assert result.returncode == 1  # E1200
    printed = result.stderr.splitlines()
    sample = _sample_output()
    # A sample may end with "..." where the README leaves the rest out.
    if sample[-1] == "...":
        sample = sample[:-1]
        printed = printed[: len(sample)]
    assert sample == printed


def test_the_readme_counts_the_differential_suite_as_it_is() -> None:
    from tools.differential import outcomes

    suite = REPO_ROOT / "test" / "differential"
    oldest = outcomes.table(suite / "verdicts.json", suite / "chip.json")
    newest = outcomes.table(suite / "verdicts-libtpu-0.0.52.json", None)
    modules = json.loads((suite / "verdicts.json").read_text())["modules"].values()
    single = sum(1 for module in modules if module.get("devices", 1) == 1)
    text = " ".join(README.split())
    match = re.search(
        r"on the ([\d,]+) JAX lowerings of the differential suite \(([\d,]+) single-device, "
        r"([\d,]+) on meshes.*?outcome on ([\d,]+):.*?at run time \(([\d,]+) modules.*?"
        r"checked as that release, ([\d,]+) agree\. The ([\d,]+) and ([\d,]+) others",
        text,
    )
    assert match is not None, "the README's sentence on the differential suite has changed"
    said = [int(number.replace(",", "")) for number in match.groups()]
    assert said == [
        oldest["modules"],
        single,
        oldest["modules"] - single,
        oldest["agree"],
        oldest["by_outcome"]["halt"]["modules"],
        newest["agree"],
        oldest["modules"] - oldest["agree"],
        newest["modules"] - newest["agree"],
    ]
