"""The HTML page of a trace (``hostoffload.trace_page``), opened in a real headless Chromium:
what its DOM shows after its script ran (``--dump-dom``), for hand-made traces that follow
``trace.schema.json`` and a synthetic one of a 100k-op model. The browser tests skip where no
Chromium is installed; the fixtures are checked against the schema everywhere."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from conftest import EXAMPLE, REPO_ROOT, differential_module
from jsonschema import Draft202012Validator

import hostoffload
from hostoffload.trace_page import COLLAPSED_ABOVE_STARTS, GROUP_BATCH, START_BATCH, render_page

SCHEMA: dict[str, Any] = json.loads(
    (REPO_ROOT / "python" / "hostoffload" / "trace.schema.json").read_text()
)
VALIDATOR = Draft202012Validator(SCHEMA)
CHROMIUM = next(
    (
        found
        for name in ("chromium", "chromium-browser", "google-chrome")
        if (found := shutil.which(name))
    ),
    None,
)
needs_browser = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium on PATH (chromium, chromium-browser or google-chrome): the page's "
    "browser tests open it in one; on Debian or Ubuntu: apt-get install chromium",
)
# Of the element types MLIR spells, those the fixtures use, by their size in bytes.
ELEMENT_BYTES = {"f32": 4, "bf16": 2, "i8": 1, "i32": 4}
# What a 100k-op model gives the page: its starts, the ops each start's memory passes through.
LARGE_STARTS = 20_000
LARGE_THROUGH = 5
# Seconds Chromium may take to open the page of a 100k-op trace and search it.
LARGE_PAGE_SECONDS = 20.0
# Modules whose traces, together, hold every kind of fate, a joined walk and a long path:
# the bundled example (host compute, E1200), a scan that offloads its remat residuals (moves to
# device, E1200, walks that join, long paths), a call on the host, an optimizer state returned
# in host memory.
TRACED = {
    "example": EXAMPLE,
    **{
        name: differential_module(name)
        for name in (
            "remat_offload_scan_grad_weights_on_host",
            "compute_on_host_arg",
            "m8_adam_state_on_host__out2_unpinned_host",
        )
    },
}

Json = dict[str, Any]


# --- traces as trace.schema.json declares them ----------------------------------------------
def location(file: str | None, line: int | None, column: int = 5, scope: str = "jit(step)") -> Json:
    """A location of a JAX lowering: its name stack around the Python frame."""
    if file is None or line is None:
        return {"file": None, "line": None, "column": None, "mlir": "loc(unknown)"}
    mlir = f'loc("{scope}"("{file}":{line}:{column - 1} to :{column + 20}))'
    return {"file": file, "line": line, "column": column, "mlir": mlir}


def op(name: str, file: str | None, line: int | None, column: int = 5) -> Json:
    return {"op": name, "location": location(file, line, column), "name": f"jit(step)/{name}"}


def tensor(dtype: str, *shape: int) -> Json:
    count = 1
    for size in shape:
        count *= size
    return {
        "type": f"tensor<{'x'.join(map(str, (*shape, dtype)))}>",
        "shape": list(shape),
        "dtype": dtype,
        "bytes": count * ELEMENT_BYTES[dtype],
    }


def fate(kind: str, way: Sequence[Json], *, omitted: int = 0, **fields: Any) -> Json:
    """A fate at the last op of ``way``, the ops before it its path, its start's op first."""
    return {
        "kind": kind,
        "at": way[-1],
        "path": list(way[:-1]),
        "path_steps_omitted": omitted,
    } | fields


def start(
    index: int,
    name: str,
    at: Json,
    held: Json,
    fates: Sequence[Json],
    *,
    argument: int | None = None,
    host_compute_ops: int = 0,
    through: Sequence[Json] = (),
) -> Json:
    """A start: an entry argument when ``argument`` is its number, else an annotation."""
    kind = (
        {"kind": "annotation"}
        if argument is None
        else {"kind": "argument", "argument_index": argument}
    )
    reason = (
        'declared mhlo.memory_kind = "pinned_host"'
        if argument is not None
        else 'moved to host by annotate_device_placement (_xla_buffer_placement = "pinned_host")'
    )
    return {
        "index": index,
        **kind,
        "name": name,
        "reason": reason,
        "location": at["location"],
        "tensor": held,
        "fates": list(fates),
        "host_compute_ops": host_compute_ops,
        "through": list(
            {id(each): each for each in (at, *through, *(f["at"] for f in fates))}.values()
        ),
    }


def trace(starts: Sequence[Json], **fields: Any) -> Json:
    """The trace of ``starts``: their totals and their lines, as the schema defines them."""
    lines: dict[tuple[str | None, int | None], Json] = {}
    outputs: dict[int, int] = {}
    for each in starts:
        key = (each["location"]["file"], each["location"]["line"])
        line = lines.setdefault(
            key,
            {
                "file": key[0],
                "line": key[1],
                "starts": [],
                "bytes_to_host": 0,
                "bytes_to_device": 0,
                "host_compute_ops": 0,
            },
        )
        line["starts"].append(each["index"])
        if not each.get("already_in_host"):
            line["bytes_to_host"] += each["tensor"]["bytes"]
        line["host_compute_ops"] += each["host_compute_ops"]
        for end in each["fates"]:
            if end["kind"] == "device":
                line["bytes_to_device"] += end["tensor"]["bytes"]
            if end["kind"] == "output":
                outputs[end["output_index"]] = end["tensor"]["bytes"]
    mismatches = {
        end["output_index"] for each in starts for end in each["fates"] if end["kind"] == "mismatch"
    }
    totals = {
        "starts": len(starts),
        "bytes_to_host": sum(line["bytes_to_host"] for line in lines.values()),
        "bytes_to_device": sum(line["bytes_to_device"] for line in lines.values()),
        "bytes_output_in_host": sum(outputs.values()),
        "host_compute_ops": sum(line["host_compute_ops"] for line in lines.values()),
        "mismatches": len(mismatches),
        "unused_starts": sum(not each["fates"] for each in starts),
    }
    return {
        "entry": "main",
        "starts": list(starts),
        "totals": totals,
        "lines": list(lines.values()),
    } | fields


def training_step() -> Json:
    """A training step with a start of every kind of fate, a long path, a joined walk, an
    unused start and one without a source line."""
    train, model = "train.py", "model/layers.py"
    state = op("func.func @main argument 1", train, 18, 17)
    multiply = op("stablehlo.multiply", train, 18, 17)
    add = op("stablehlo.add", train, 18, 29)
    subtract = op("stablehlo.subtract", train, 19, 12)
    returned = op("func.return", train, 19, 5)
    opt_state = start(
        0,
        "argument 'opt_state'",
        state,
        tensor("f32", 1024, 1024),
        [
            fate("host_compute", [state, multiply]),
            fate(
                "mismatch",
                [state, multiply, add, subtract, returned],
                output_index=0,
                tensor=tensor("f32", 1024, 1024),
            ),
            fate(
                "mismatch",
                [state, multiply, add, returned],
                output_index=1,
                tensor=tensor("f32", 1024, 1024),
            ),
        ],
        argument=1,
        host_compute_ops=3,
        through=[multiply, add, subtract],
    )
    to_host = op("stablehlo.custom_call @annotate_device_placement", model, 42, 13)
    # A long way: its first six steps and its last six, 30 between them omitted.
    first = [op("stablehlo.dynamic_update_slice", model, 43 + i, 9) for i in range(5)]
    last = [op("stablehlo.dynamic_slice", model, 50 + i, 9) for i in range(6)]
    back = op("stablehlo.custom_call @annotate_device_placement", model, 57, 13)
    activations = start(
        1,
        "annotation 'activations' (to host)",
        to_host,
        tensor("bf16", 8, 512, 1024),
        [
            fate(
                "device",
                [to_host, *first, *last, back],
                omitted=30,
                tensor=tensor("bf16", 8, 512, 1024),
            )
        ],
        through=[*first, *last],
    )
    residual_host = op("stablehlo.custom_call @annotate_device_placement", model, 42, 40)
    residual = start(
        2,
        "annotation 'residual' (to host)",
        residual_host,
        tensor("bf16", 8, 512, 1024),
        [
            fate(
                "device",
                [to_host, first[0], back],
                from_start=1,
                tensor=tensor("bf16", 8, 512, 1024),
            )
        ],
    ) | {"already_in_host": True}
    cache = start(
        3,
        "argument 'cache'",
        op("func.func @main argument 2", train, 10, 1),
        tensor("i8", 4096, 256),
        [],
        argument=2,
    )
    offloaded = op("stablehlo.custom_call @annotate_device_placement", model, 77, 11)
    kept = op("func.return", model, 80, 5)
    kept_in_host = start(
        4,
        "annotation 'kv_cache' (to host)",
        offloaded,
        tensor("bf16", 2, 1024, 128),
        [fate("output", [offloaded, kept], output_index=2, tensor=tensor("bf16", 2, 1024, 128))],
    )
    host_moved = op("stablehlo.custom_call @annotate_device_placement", model, 90, 7)
    called = op("call @host_fn", model, 91, 7)
    host_call = start(
        5,
        "annotation 'grads' (to host)",
        host_moved,
        tensor("f32", 256, 256),
        [fate("host_call", [host_moved, called])],
    )
    nowhere = op("stablehlo.custom_call @annotate_device_placement", None, None)
    unlocated = start(
        6,
        "annotation #7 (to host)",
        nowhere,
        tensor("i32", 64),
        [
            fate(
                "device",
                [nowhere, op("stablehlo.custom_call @annotate_device_placement", None, None)],
                tensor=tensor("i32", 64),
            )
        ],
    )
    return trace(
        [opt_state, activations, residual, cache, kept_in_host, host_call, unlocated],
        source="train_step.mlir",
        platform="tpu",
        xla_release="2026-09",
        xla_release_reason="libtpu 0.0.52, installed here",
    )


def numbered_starts(count: int, *, per_line: int, through: int = 0) -> list[Json]:
    """``count`` starts, ``per_line`` to a Python line, each moved to host, its memory passing
    through ``through`` ops, and moved back to device (every seventh one unused, every
    eleventh returned as an E1200 mismatch)."""
    made = []
    for index in range(count):
        line = 100 + index // per_line
        moved = op("stablehlo.custom_call @annotate_device_placement", "model.py", line, 9)
        passed = [
            op(f"stablehlo.op_{index}_{step}", "model.py", line, 9 + step)
            for step in range(through)
        ]
        end = (
            op("func.return", "model.py", 9000)
            if index % 11 == 0
            else op("stablehlo.custom_call @annotate_device_placement", "model.py", line + 1, 9)
        )
        if index % 7 == 0:
            fates = []
        elif index % 11 == 0:
            fates = [
                fate(
                    "mismatch",
                    [moved, *passed, end],
                    output_index=index,
                    tensor=tensor("f32", 128, index + 1),
                )
            ]
        else:
            fates = [fate("device", [moved, *passed, end], tensor=tensor("f32", 128, index + 1))]
        made.append(
            start(
                index,
                f"annotation 'layer_{index}' (to host)",
                moved,
                tensor("f32", 128, index + 1),
                fates,
                through=passed,
            )
        )
    return made


# --- what Chromium shows -----------------------------------------------------------------------
class Element:
    """An element of the DOM Chromium dumps."""

    def __init__(self, tag: str, attrs: dict[str, str], parent: Element | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Element | str] = []

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    @property
    def text(self) -> str:
        return "".join(child if isinstance(child, str) else child.text for child in self.children)

    @property
    def shown(self) -> bool:
        """Whether neither the element nor one around it is hidden."""
        return "hidden" not in self.attrs and (self.parent is None or self.parent.shown)

    def all(
        self, tag: str | None = None, *, class_: str | None = None, **attrs: str
    ) -> Iterator[Element]:
        """The elements inside this one, in document order, of ``tag``, of the class
        ``class_`` and with the attributes ``attrs``, where given."""
        for child in self.children:
            if isinstance(child, str):
                continue
            if (
                tag in (None, child.tag)
                and (class_ is None or class_ in child.classes)
                and all(child.attrs.get(key) == value for key, value in attrs.items())
            ):
                yield child
            yield from child.all(tag, class_=class_, **attrs)

    def all_children(self) -> Iterator[Element]:
        """The elements right inside this one."""
        return (child for child in self.children if isinstance(child, Element))

    def one(self, tag: str | None = None, *, class_: str | None = None, **attrs: str) -> Element:
        (found,) = self.all(tag, class_=class_, **attrs)
        return found


class DomReader(HTMLParser):
    VOID = {"meta", "input", "br", "img", "link", "hr", "area", "base", "col", "source", "wbr"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {}, None)
        self.current = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {key: value or "" for key, value in attrs}, self.current)
        self.current.children.append(element)
        if tag not in self.VOID:
            self.current = element

    def handle_endtag(self, tag: str) -> None:
        element: Element | None = self.current
        while element is not None and element.tag != tag:
            element = element.parent
        if element is not None and element.parent is not None:
            self.current = element.parent

    def handle_data(self, data: str) -> None:
        self.current.children.append(data)


def write_page(directory: Path, document: Json, name: str = "trace.html") -> Path:
    page = directory / name
    page.write_text(render_page(document), encoding="utf-8")
    return page


def open_page(page: Path, search: str | None = None) -> tuple[Element, float]:
    """The DOM of ``page`` once its script ran in headless Chromium (with ``#search=`` when a
    search is given), and the seconds Chromium took."""
    assert CHROMIUM is not None
    address = page.as_uri() + ("" if search is None else f"#search={search}")
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        f"--user-data-dir={page.parent / 'chromium-profile'}",
        "--dump-dom",
        address,
    ]
    began = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    seconds = time.monotonic() - began
    assert done.returncode == 0, done.stderr
    reader = DomReader()
    reader.feed(done.stdout)
    body = reader.root.one("body")
    # The script sets it last: it ran to the end without an error.
    assert body.attrs.get("data-ready") == "true", done.stderr[-2000:]
    return reader.root, seconds


def starts_shown(dom: Element) -> list[int]:
    return [int(card.attrs["data-index"]) for card in dom.all(class_="start") if card.shown]


def total(dom: Element, key: str) -> str:
    return dom.one(class_="card", **{"data-total": key}).one(class_="value").text


def ways(dom: Element, index: int) -> list[tuple[str, list[str]]]:
    """Each way drawn in the tree of start ``index``, in the order of its fates: the fate's
    kind and the ops of the boxes from the root of the tree to the fate's box."""
    found: dict[int, tuple[str, list[str]]] = {}

    def follow(branch: Element, before: list[str]) -> None:
        ops = list(before)
        for part in branch.all_children():
            if "chain" in part.classes:
                for box in part.all(class_="node"):
                    if "data-op" in box.attrs:
                        ops.append(box.attrs["data-op"])
                    if "unused" in box.classes:
                        found[-1] = ("unused", list(ops))
                        continue
                    fates = box.attrs.get("data-fates", "").split()
                    for fate, label in zip(fates, box.all(class_="kind"), strict=True):
                        found[int(fate)] = (label.attrs["data-kind"], list(ops))
            if "tree" in part.classes:
                for next_branch in part.all_children():
                    follow(next_branch, ops)

    for branch in dom.one(id=f"start-{index}").one(class_="ways").all_children():
        follow(branch, [])
    return [found[fate] for fate in sorted(found)]


# --- the tests --------------------------------------------------------------------------------
def test_the_fixtures_follow_the_trace_schema() -> None:
    """The hand-made traces are what the analysis writes, as far as the schema says."""
    for document in (training_step(), trace(numbered_starts(60, per_line=3, through=2))):
        assert [error.message for error in VALIDATOR.iter_errors(document)] == []


def test_a_document_without_the_parts_of_a_trace_is_refused() -> None:
    with pytest.raises(ValueError, match="lacks starts, totals, lines"):
        render_page({"entry": "main", "findings": []})


def test_the_page_has_nothing_to_load() -> None:
    """No address at all, and a policy that would refuse one: the page works offline and
    tells no one it was opened."""
    page = render_page(training_step())
    for sign in ("http:", "https:", "src=", "href=", "url(", "@import"):
        assert sign not in page.lower(), sign
    assert "default-src 'none'" in page


# Markup in a start's name, its file and the title of its page, and the page's own markers.
MARKUP_NAME = "argument '</script><script>document.body.dataset.taken = 1</script><!--__SCRIPT__'"
MARKUP_FILE = "x</script><!--.py"
MARKUP_TITLE = "<b>step</b> </script> __TRACE__"


def marked_up_page(directory: Path) -> Path:
    document = training_step()
    document["starts"][0]["name"] = MARKUP_NAME
    document["starts"][0]["location"] = location(MARKUP_FILE, 18, 17)
    page = directory / "trace.html"
    page.write_text(render_page(document, title=MARKUP_TITLE), encoding="utf-8")
    return page


def test_the_text_of_a_trace_cannot_end_its_script_element(tmp_path: Path) -> None:
    """The embedded JSON neither ends its <script> element nor opens a comment; the title
    is escaped; neither fills in the page's markers."""
    page = marked_up_page(tmp_path).read_text(encoding="utf-8")
    # The three of the page: its settings, the trace, the script that draws it.
    assert page.count("</script>") == 3
    assert "<!--" not in page
    assert "<b>" not in page


@needs_browser
def test_markup_in_a_trace_is_shown_as_text(tmp_path: Path) -> None:
    dom, _ = open_page(marked_up_page(tmp_path))
    assert "data-taken" not in dom.one("body").attrs
    card = dom.one(id="start-0")
    assert card.one(class_="start-name").text == MARKUP_NAME
    assert card.one(class_="start-head").one(class_="loc").text == f"{MARKUP_FILE}:18:17"
    assert dom.one(id="title").text == MARKUP_TITLE
    assert dom.one("title").text == MARKUP_TITLE


@needs_browser
def test_the_header_shows_the_totals_per_step(tmp_path: Path) -> None:
    document = training_step()
    document["totals"] = {
        "starts": 7,
        "bytes_to_host": 1536 * 1024,
        "bytes_to_device": 512,
        "bytes_output_in_host": 3 * 1024**3,
        "host_compute_ops": 1234,
        "mismatches": 2,
        "unused_starts": 0,
    }
    dom, _ = open_page(write_page(tmp_path, document))
    shown = {key: total(dom, key) for key in document["totals"]}
    assert shown == {
        "starts": "7",
        "bytes_to_host": "1.5 MiB",
        "bytes_to_device": "512 B",
        "bytes_output_in_host": "3 GiB",
        "host_compute_ops": "1,234",
        "mismatches": "2",
        "unused_starts": "0",
    }
    # Only the mismatches that XLA rejects stand out.
    bad = [card.attrs["data-total"] for card in dom.all(class_="card") if "bad" in card.classes]
    assert bad == ["mismatches"]
    meta = dom.one(id="meta").text
    assert "train_step.mlir" in meta and "@main" in meta and "tpu" in meta
    # Which XLA the trace models, and why.
    assert "modelled on XLA 2026-09: libtpu 0.0.52, installed here" in meta
    assert dom.one("title").text == "hostoffload trace: train_step.mlir"


@needs_browser
def test_the_starts_are_grouped_by_their_source_line(tmp_path: Path) -> None:
    document = training_step()
    dom, _ = open_page(write_page(tmp_path, document))
    groups = list(dom.all(class_="group"))
    assert [(group.attrs["data-file"], group.attrs["data-line"]) for group in groups] == [
        (line["file"] or "", str(line["line"] or "")) for line in document["lines"]
    ]
    # A small trace opens with every group expanded, its starts in the line's order.
    for group, line in zip(groups, document["lines"], strict=True):
        assert "open" in group.classes
        assert [int(card.attrs["data-index"]) for card in group.all(class_="start")] == line[
            "starts"
        ]
    heads = {
        group.attrs["data-file"] + ":" + group.attrs["data-line"]: group.one(class_="stats").text
        for group in groups
    }
    assert "2 starts" in heads["model/layers.py:42"]
    # The residual is in the activations' host memory already: its bytes are counted once.
    assert "8 MiB to host" in heads["model/layers.py:42"]
    assert "16 MiB to device" in heads["model/layers.py:42"]
    assert "E1200 × 2" in heads["train.py:18"]
    assert "3 host-compute ops" in heads["train.py:18"]
    assert "1 unused" in heads["train.py:10"]
    assert "E1200" not in heads["model/layers.py:42"]
    assert groups[-1].one(class_="where-line").text == "no source line"
    assert [group.attrs["data-line"] for group in groups if "problem" in group.classes] == ["18"]


@needs_browser
def test_each_fate_is_drawn_as_the_way_to_it(tmp_path: Path) -> None:
    dom, _ = open_page(write_page(tmp_path, training_step()))
    state = "func.func @main argument 1"
    assert ways(dom, 0) == [
        ("host_compute", [state, "stablehlo.multiply"]),
        (
            "mismatch",
            [state, "stablehlo.multiply", "stablehlo.add", "stablehlo.subtract", "func.return"],
        ),
        ("mismatch", [state, "stablehlo.multiply", "stablehlo.add", "func.return"]),
    ]
    opt_state = dom.one(id="start-0")
    # A tree: the steps its ways share are drawn once, and the ways fork where they part;
    # the host compute at the multiply marks a step of the others' way.
    drawn = [box.attrs["data-op"] for box in opt_state.all(class_="node")]
    assert [drawn.count(op) for op in (state, "stablehlo.multiply", "stablehlo.add")] == [1, 1, 1]
    assert drawn.count("func.return") == 2
    fates = [node for node in opt_state.all(class_="node") if "fate" in node.classes]
    assert [node.one(class_="kind").text for node in fates] == [
        "host compute",
        "E1200 · output 0",
        "E1200 · output 1",
    ]
    assert "mismatch" in fates[1].classes
    assert "f32[1024,1024]4 MiB" in fates[1].text
    head = opt_state.one(class_="start-head")
    assert head.one(class_="tensor").text == "f32[1024,1024]4 MiB"
    assert head.one(class_="badge").text == "argument 1"
    where = head.one(class_="loc")
    assert where.text == "train.py:18:17"
    assert where.attrs["title"].startswith('loc("jit(step)"("train.py":18:16')
    assert opt_state.one(class_="more-compute").text == "+ 2 more host-compute ops (3 in all)"
    # A long way: its first and last steps, the ones between counted where they were.
    (chain,) = dom.one(id="start-1").all(class_="chain")
    boxes = [node.attrs.get("data-op", node.text) for node in chain.all(class_="node")]
    assert boxes == [
        "stablehlo.custom_call @annotate_device_placement",
        *["stablehlo.dynamic_update_slice"] * 5,
        "… 30 steps …",
        *["stablehlo.dynamic_slice"] * 6,
        "stablehlo.custom_call @annotate_device_placement",
    ]
    # A walk that joined another start's names it.
    assert dom.one(id="start-2").one(class_="already").text == "already in host memory"
    assert list(dom.one(id="start-0").all(class_="already")) == []
    joins = dom.one(id="start-2").one(class_="joins")
    assert joins.one("a").text == "annotation 'activations' (to host)"
    assert ways(dom, 3) == [("unused", ["func.func @main argument 2"])]
    assert "nothing uses it in host memory" in dom.one(id="start-3").text
    assert [kind for kind, _ in ways(dom, 4)] == ["output"]
    assert "output 2 · in host" in dom.one(id="start-4").text
    assert ways(dom, 5) == [
        ("host_call", ["stablehlo.custom_call @annotate_device_placement", "call @host_fn"])
    ]
    # Drawn, the page still refers to nothing it would load.
    assert [element.tag for element in dom.all() if {"src", "href"} & set(element.attrs)] == []


@needs_browser
@pytest.mark.parametrize(
    ("search", "found"),
    [
        ("bf16", [1, 2, 4]),
        ("mismatch", [0]),
        ("unused", [3]),
        ("layers.py:9", [5]),
        ("TRAIN.PY subtract", [0]),
        ("host_fn", [5]),
        ("dynamic_update_slice", [1, 2]),
        ("no such op", []),
    ],
)
def test_a_search_in_the_address_shows_only_the_starts_it_finds(
    tmp_path: Path, search: str, found: list[int]
) -> None:
    dom, _ = open_page(write_page(tmp_path, training_step()), search=quote(search))
    count = dom.one(id="count")
    assert count.attrs["data-matches"] == str(len(found))
    assert sorted(starts_shown(dom)) == found
    lines = {
        (group.attrs["data-file"], group.attrs["data-line"]) for group in dom.all(class_="group")
    }
    assert len(lines) == len(
        {
            (group["file"], group["line"])
            for group in training_step()["lines"]
            if set(group["starts"]) & set(found)
        }
    )
    if not found:
        assert dom.one(class_="empty").text == "No start matches."
    else:
        assert count.text.startswith(f"{len(found)} of 7 starts match")


@needs_browser
def test_a_trace_of_many_starts_opens_collapsed(tmp_path: Path) -> None:
    few = open_page(
        write_page(tmp_path, trace(numbered_starts(COLLAPSED_ABOVE_STARTS, per_line=3)), "few.html")
    )[0]
    assert all("open" in group.classes for group in few.all(class_="group"))
    assert len(starts_shown(few)) == COLLAPSED_ABOVE_STARTS
    many = trace(numbered_starts(COLLAPSED_ABOVE_STARTS + 1, per_line=3))
    dom, _ = open_page(write_page(tmp_path, many, "many.html"))
    groups = list(dom.all(class_="group"))
    assert len(groups) == len(many["lines"])
    assert not any("open" in group.classes for group in groups)
    assert starts_shown(dom) == []
    # A search opens the groups of the starts it finds: layer_1 and layer_10 to layer_19.
    dom, _ = open_page(tmp_path / "many.html", search="layer_1")
    assert sorted(starts_shown(dom)) == [1, *range(10, 20)]
    assert all("open" in group.classes for group in dom.all(class_="group"))


@needs_browser
def test_a_long_line_shows_its_starts_a_batch_at_a_time(tmp_path: Path) -> None:
    count = START_BATCH + 5
    dom, _ = open_page(
        write_page(tmp_path, trace(numbered_starts(count, per_line=count))), search="layer"
    )
    assert starts_shown(dom) == list(range(START_BATCH))
    (group,) = dom.all(class_="group")
    assert group.one(class_="more").text == "Show 5 more starts (5 left)"


@needs_browser
def test_a_trace_of_a_100k_op_model_opens_and_searches_in_time(tmp_path: Path) -> None:
    """20,000 starts on 2,000 lines, whose memory passes through 100,000 ops: the page builds
    a batch of collapsed lines, and a search finds one start among them."""
    starts = numbered_starts(LARGE_STARTS, per_line=10, through=LARGE_THROUGH)
    assert sum(len(each["through"]) for each in starts) >= 100_000
    page = write_page(tmp_path, trace(starts))
    dom, opened = open_page(page)
    assert opened < LARGE_PAGE_SECONDS, f"Chromium took {opened:.1f} s to open the page"
    assert dom.one(id="count").text == "20,000 starts on 2,000 lines"
    assert len(list(dom.all(class_="group"))) == GROUP_BATCH
    assert dom.one(id="more-lines").text == f"Show {GROUP_BATCH} more lines (1,900 left)"
    assert starts_shown(dom) == []
    dom, searched = open_page(page, search="layer_12345")
    assert searched < LARGE_PAGE_SECONDS, f"Chromium took {searched:.1f} s to search the page"
    assert starts_shown(dom) == [12345]
    # A search by an op the memory of one start passes through.
    dom, _ = open_page(page, search="stablehlo.op_777_4")
    assert starts_shown(dom) == [777]
    size = page.stat().st_size / 2**20
    print(f"100k-op page: {size:.1f} MiB, opened in {opened:.1f} s, searched in {searched:.1f} s")


def test_the_traced_modules_hold_every_kind_of_fate() -> None:
    """The traces of the modules the next test draws are real and exercise the page."""
    seen: set[str] = set()
    for path in TRACED.values():
        document = json.loads(hostoffload.trace(path).to_json())
        assert [error.message for error in VALIDATOR.iter_errors(document)] == []
        for each in document["starts"]:
            for end in each["fates"]:
                seen.add(end["kind"])
                if "from_start" in end:
                    seen.add("from_start")
                if end["path_steps_omitted"]:
                    seen.add("path_steps_omitted")
    assert seen == set(SCHEMA["$defs"]["fate"]["properties"]["kind"]["enum"]) | {
        "from_start",
        "path_steps_omitted",
    }


@needs_browser
@pytest.mark.parametrize("name", TRACED)
def test_the_page_of_a_real_trace_draws_each_start_s_way(tmp_path: Path, name: str) -> None:
    """What ``hostoffload trace --format html`` writes: every start of the trace, each fate
    drawn as its path and the op it ends at, in the trace's order."""
    traced = hostoffload.trace(TRACED[name])
    document = json.loads(traced.to_json())
    page = tmp_path / "trace.html"
    page.write_text(traced.to_html(), encoding="utf-8")
    dom, _ = open_page(page)
    assert total(dom, "starts") == str(len(document["starts"]))
    assert total(dom, "mismatches") == str(document["totals"]["mismatches"])
    assert len(list(dom.all(class_="group"))) == len(document["lines"])
    assert sorted(starts_shown(dom)) == sorted(each["index"] for each in document["starts"])
    for each in document["starts"]:
        drawn = [
            (end["kind"], [*(step["op"] for step in end["path"]), end["at"]["op"]])
            for end in each["fates"]
        ] or [("unused", [each["through"][0]["op"]])]
        assert ways(dom, each["index"]) == drawn


@needs_browser
def test_the_page_of_the_example_shows_its_two_mismatches(tmp_path: Path) -> None:
    """The bundled example's E1200 outputs, as the check reports them, at its Python line."""
    outputs = sorted(finding.output_index for finding in hostoffload.check(EXAMPLE).errors)
    page = tmp_path / "trace.html"
    page.write_text(hostoffload.trace(EXAMPLE).to_html(), encoding="utf-8")
    dom, _ = open_page(page)
    labels = [node.text for node in dom.one(id="start-0").all(class_="kind")]
    assert sorted(label for label in labels if label.startswith("E1200")) == [
        f"E1200 · output {output}" for output in outputs
    ]
    (group,) = dom.all(class_="group")
    assert group.one(class_="where-line").text == "examples/offloaded_state.py:18"
    assert "E1200 × 2" in group.text
