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


def _differential_counts() -> dict[str, int]:
    """The differential suite's modules with an XLA verdict, counted from verdicts.json."""
    verdicts = json.loads((REPO_ROOT / "test" / "differential" / "verdicts.json").read_text())
    counts = {"single": 0, "multi": 0, "program": 0, "mutant": 0, "fix": 0}
    for module in verdicts["modules"].values():
        if module.get("xla", {}).get("status") not in ("ok", "e1200", "error"):
            continue
        counts["single" if module.get("devices", 1) == 1 else "multi"] += 1
        kind = module["kind"]
        counts["fix" if kind.startswith("fix") else "mutant" if "mutant" in kind else kind] += 1
    return counts


def test_the_readme_counts_the_differential_suite_as_it_is() -> None:
    counts = _differential_counts()
    sentence = " ".join(README.split("differential suite XLA gives a verdict on:", 1)[1].split())
    match = re.match(
        r"([\d,]+) single-device and ([\d,]+) multi-device JAX lowerings .*?of the ([\d,]+), "
        r"([\d,]+) are JAX programs as JAX lowers them, ([\d,]+) their mutants, ([\d,]+) fixed",
        sentence,
    )
    assert match is not None, sentence[:300]
    said = [int(number.replace(",", "")) for number in match.groups()]
    total = counts["single"] + counts["multi"]
    assert said == [
        counts["single"],
        counts["multi"],
        total,
        counts["program"],
        counts["mutant"],
        counts["fix"],
    ]
