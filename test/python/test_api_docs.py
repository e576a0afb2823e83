"""Every Python example of docs/python-api.md runs as it is, from the repository root, and
every relative link of README.md and docs/ leads somewhere."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

DOC = REPO_ROOT / "docs" / "python-api.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


def test_the_doc_has_examples() -> None:
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("code", EXAMPLES, ids=[f"example{i}" for i in range(len(EXAMPLES))])
def test_example_runs(code: str) -> None:
    if "import jax" in code:
        pytest.importorskip("jax")
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT
    )
    assert result.returncode == 0, result.stderr


# --- Links -----------------------------------------------------------------------------------

DOCUMENTS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCED_CODE = re.compile(r"^```.*?^```", flags=re.DOTALL | re.MULTILINE)
HEADING = re.compile(r"^#+ (.*)$", flags=re.MULTILINE)


def anchors(document: Path) -> set[str]:
    """GitHub's anchors of the document's headings: lower case, punctuation dropped, spaces
    made hyphens."""
    text = FENCED_CODE.sub("", document.read_text())
    return {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        for heading in HEADING.findall(text)
    }


def relative_links(document: Path) -> list[str]:
    text = FENCED_CODE.sub("", document.read_text())
    return [link for link in LINK.findall(text) if not re.match(r"[a-z]+:", link)]


def test_the_documents_have_relative_links() -> None:
    assert sum(len(relative_links(document)) for document in DOCUMENTS) >= 10


def leads_nowhere(document: Path, link: str) -> bool:
    """A link to a file that does not exist, outside the repository (a clone has nothing
    there), or to a heading the file does not have."""
    path_part, _, anchor = link.partition("#")
    target = (document.parent / path_part).resolve() if path_part else document
    if not target.is_relative_to(REPO_ROOT) or not target.exists():
        return True
    return bool(anchor) and target.suffix == ".md" and anchor not in anchors(target)


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_relative_link_leads_to_a_file_of_the_repository(document: Path) -> None:
    assert [link for link in relative_links(document) if leads_nowhere(document, link)] == []
