"""The ``[tool.hostoffload]`` table of pyproject.toml: found from a file's directory upward,
read strictly, and applied by ``hostoffload check``, ``fix``, ``run`` and ``pytest
--hostoffload``, with the command line winning over it."""

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import EXAMPLE, REPO_ROOT

from hostoffload.config import Config, ConfigError, find

pytest_plugins = ["pytester"]


def write_table(directory: Path, body: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "pyproject.toml"
    path.write_text(f'[project]\nname = "model"\n\n[tool.hostoffload]\n{textwrap.dedent(body)}')
    return path


def hostoffload(
    cwd: Path, *args: str | Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hostoffload", *map(str, args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def codes_in(text: str) -> set[str]:
    return {code for code in ("E1200", "HOW101", "HOE101") if f": {code}: " in text}


def test_the_nearest_table_from_the_directory_upward(tmp_path: Path) -> None:
    outer = write_table(tmp_path, 'ignore = ["HOW101"]\nplatform = "CUDA"\n')
    # A pyproject.toml without the table is passed over, as ruff passes over one without its own.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    deep = tmp_path / "pkg" / "sub"
    deep.mkdir()
    assert find(deep) == Config(path=outer, ignore=("HOW101",), platform="cuda")
    # The nearest table is the whole configuration: the tables above it are not merged in.
    inner = write_table(deep, "strict = true\n")
    assert find(deep) == Config(path=inner, strict=True)
    assert find(tmp_path / "pkg") == find(tmp_path)


def test_every_key_read(tmp_path: Path) -> None:
    path = write_table(
        tmp_path,
        """\
        ignore = ["HOW103", "w1201"]
        strict = false
        entry = "step"
        platform = "tpu"
        format = "sarif"
        xla_release = "0.0.42.1"
        """,
    )
    # A former code names the code it became, as --ignore reads it; the release is kept as
    # written, for the report to say where it came from.
    assert find(tmp_path) == Config(
        path=path,
        ignore=("HOW103", "HOW101"),
        strict=False,
        entry="step",
        platform="tpu",
        format="sarif",
        xla_release="0.0.42.1",
    )


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("colour = true", "[tool.hostoffload] has no key 'colour'; the keys are ignore, strict"),
        ('ignore = "HOW101"', "[tool.hostoffload] ignore: must be a list of codes"),
        ('ignore = ["HOW999"]', "[tool.hostoffload] ignore: unknown code 'HOW999'; the codes"),
        ('strict = "yes"', "[tool.hostoffload] strict: must be true or false, not 'yes'"),
        ('entry = ""', "[tool.hostoffload] entry: must be the name of a function"),
        ('platform = "gpu"', "[tool.hostoffload] platform: platform must be 'tpu' or 'cuda'"),
        ('format = "xml"', "[tool.hostoffload] format: must be one of text, json, sarif, github"),
        ("xla_release = 42", '[tool.hostoffload] xla_release: must be a string, e.g. "0.0.42.1"'),
        ('xla_release = "0.0.44"', "[tool.hostoffload] xla_release: unknown XLA release '0.0.44'"),
    ],
)
def test_a_bad_key_or_value_names_the_file_and_the_key(
    tmp_path: Path, body: str, says: str
) -> None:
    path = write_table(tmp_path, body)
    with pytest.raises(ConfigError) as raised:
        find(tmp_path)
    assert str(raised.value).startswith(f"{path}: error: {says}")


def test_unreadable_toml_and_a_table_that_is_not_one(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.hostoffload]\nignore = [\nstrict = true\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml: error: not valid TOML: .*line"):
        find(tmp_path)
    path.write_text("[tool]\nhostoffload = 3\n")
    with pytest.raises(ConfigError, match=r"tool.hostoffload must be a table"):
        find(tmp_path)


def test_without_a_toml_reader_the_table_is_an_error_not_dropped(tmp_path: Path) -> None:
    """Python 3.10 without tomli: the modules are made unimportable, as they are there."""
    with_table = tmp_path / "with"
    write_table(with_table, 'ignore = ["HOW101"]\n')
    without_table = tmp_path / "without"
    without_table.mkdir()
    (without_table / "pyproject.toml").write_text('[project]\nname = "x"\n')
    program = textwrap.dedent(
        """\
        import sys
        sys.modules["tomllib"] = sys.modules["tomli"] = None
        from hostoffload.config import ConfigError, find
        print(find(sys.argv[2]).path)
        try:
            find(sys.argv[1])
        except ConfigError as error:
            print(error)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", program, with_table, without_table],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.splitlines() == [
        "None",
        f"{with_table / 'pyproject.toml'}: error: [tool.hostoffload] can only be read with "
        "Python 3.11 or newer, or with the tomli package on Python 3.10: pip install tomli",
    ]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose module (the bundled example: E1200 on two outputs, HOW101) is two
    directories below its pyproject.toml."""
    (tmp_path / "build" / "lowered").mkdir(parents=True)
    shutil.copy(EXAMPLE, tmp_path / "build" / "lowered" / "step.mlir")
    return tmp_path


MODULE = Path("build/lowered/step.mlir")


def test_check_reads_the_table_of_the_checked_file(project: Path) -> None:
    before = hostoffload(REPO_ROOT, "check", project / MODULE)
    assert codes_in(before.stdout) == {"E1200", "HOW101"}
    write_table(project, 'ignore = ["HOW101"]\n')
    # Run from elsewhere: the table is the file's, not the current directory's.
    after = hostoffload(REPO_ROOT, "check", project / MODULE)
    assert (after.returncode, codes_in(after.stdout)) == (1, {"E1200"})
    # The command line's codes are ignored as well as the table's.
    both = hostoffload(REPO_ROOT, "check", "--ignore", "E1200", project / MODULE)
    assert (both.returncode, codes_in(both.stdout)) == (0, set())


def test_strict_from_the_table_and_no_strict_on_the_command_line(project: Path) -> None:
    write_table(project, "strict = true\n")
    strict = hostoffload(project, "check", MODULE)
    assert codes_in(strict.stdout) == {"E1200", "HOE101"}
    overridden = hostoffload(project, "check", "--no-strict", MODULE)
    assert codes_in(overridden.stdout) == {"E1200", "HOW101"}


def test_entry_from_the_table_for_check_and_fix(project: Path) -> None:
    write_table(project, 'entry = "train_step"\n')
    for command in (["check"], ["fix", "--strategy", "host"]):
        named = hostoffload(project, *command, MODULE)
        assert named.returncode == 2
        assert "train_step" in named.stderr
        overridden = hostoffload(project, *command, "--entry", "main", MODULE)
        assert overridden.returncode == (1 if command == ["check"] else 0), overridden.stderr


def test_format_is_the_current_directory_s(project: Path) -> None:
    write_table(project, 'format = "json"\n')
    as_json = hostoffload(project, "check", MODULE)
    assert json.loads(as_json.stdout)["entry"] == "main"
    as_text = hostoffload(project, "check", "--format", "text", MODULE)
    assert as_text.stdout.startswith("examples/offloaded_state.py:19:12: error: E1200: ")
    # One output for every file checked: the table of a file elsewhere does not choose it.
    elsewhere = hostoffload(REPO_ROOT, "check", project / MODULE)
    assert elsewhere.stdout.startswith("examples/offloaded_state.py:19:12: error: E1200: ")


def test_stdin_uses_the_current_directory_s_table(project: Path) -> None:
    write_table(project, 'ignore = ["HOW101"]\n')
    result = hostoffload(project, "check", "-", stdin=EXAMPLE.read_text())
    assert codes_in(result.stdout) == {"E1200"}


def test_a_bad_table_exits_2_with_one_line(project: Path) -> None:
    path = write_table(project, 'platform = "gpu"\n')
    (project / "x.py").write_text("")
    for command in (["check", MODULE], ["fix", "--strategy", "host", MODULE], ["run", "x.py"]):
        result = hostoffload(project, *command)
        assert (result.returncode, result.stdout) == (2, ""), command
        assert result.stderr == (
            f"{path}: error: [tool.hostoffload] platform: platform must be 'tpu' or 'cuda', "
            "not 'gpu'\n"
        )


SCRIPT = """\
import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

HOST = SingleDeviceSharding(jax.devices("cpu")[0], memory_kind="pinned_host")
jax.jit(lambda x: x * 2).lower(jax.ShapeDtypeStruct((4,), jnp.float32, sharding=HOST)).compile()
"""


@pytest.mark.usefixtures("cpu_host_memory")
def test_run_reads_the_current_directory_s_table(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(SCRIPT)
    write_table(tmp_path, 'platform = "cuda"\n')
    on_cuda = hostoffload(tmp_path, "run", "train.py")
    assert on_cuda.returncode == 1
    assert "@main (CUDA lowering): 1 error, 1 warning" in on_cuda.stderr
    write_table(tmp_path, 'ignore = ["E1200"]\n')
    assert hostoffload(tmp_path, "run", "train.py").returncode == 0


TESTS = """\
import jax
import jax.numpy as jnp
from jax.sharding import SingleDeviceSharding

HOST = SingleDeviceSharding(jax.devices("cpu")[0], memory_kind="pinned_host")
STATE = jax.ShapeDtypeStruct((4,), jnp.float32, sharding=HOST)


def test_offloaded_state_returned_as_device():
    jax.jit(lambda x: x * 2).lower(STATE).compile()


def test_offloaded_state_returned_as_host():
    jax.jit(lambda x: x * 3, out_shardings=HOST).lower(STATE).compile()
"""


@pytest.mark.usefixtures("cpu_host_memory")
def test_pytest_reads_the_rootdir_s_table(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_model=TESTS)
    pytester.makepyprojecttoml('[tool.hostoffload]\nstrict = true\nplatform = "cuda"\n')
    strict = pytester.runpytest_subprocess("--hostoffload", "-p", "no:cacheprovider")
    strict.assert_outcomes(failed=2)
    strict.stdout.fnmatch_lines(["*error: HOE101: *", "*@main (CUDA lowering): *"])
    not_strict = pytester.runpytest_subprocess(
        "--hostoffload", "--no-hostoffload-strict", "-p", "no:cacheprovider"
    )
    not_strict.assert_outcomes(passed=1, failed=1)
    pytester.makepyprojecttoml('[tool.hostoffload]\nignore = ["E1200"]\n')
    pytester.runpytest_subprocess("--hostoffload", "-p", "no:cacheprovider").assert_outcomes(
        passed=2
    )
    pytester.makepyprojecttoml("[tool.hostoffload]\nstrict = 1\n")
    bad = pytester.runpytest_subprocess("--hostoffload", "-p", "no:cacheprovider")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*pyproject.toml: error: [[]tool.hostoffload] strict: must be*"])


def test_the_table_of_the_docs_is_read_as_they_say(tmp_path: Path) -> None:
    doc = (REPO_ROOT / "docs" / "python-api.md").read_text()
    (table,) = re.findall(r"```toml\n(.*?)```", doc, flags=re.DOTALL)
    (tmp_path / "pyproject.toml").write_text(table)
    assert find(tmp_path) == Config(
        path=tmp_path / "pyproject.toml",
        ignore=("HOW101",),
        strict=False,
        entry="main",
        platform="tpu",
        format="text",
        xla_release="0.0.42.1",
    )
