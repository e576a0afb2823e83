"""The HTML page of a trace (``hostoffload trace --format html``): one self-contained document,
no network, that draws each start's way from host memory to its fates, grouped by source line.

The page reads the trace document of ``trace.schema.json``, embedded as JSON, and builds its
parts in the browser only when they are shown, so that the trace of a large model does not
become a node for each of its ops: a group's starts when it is expanded or a search finds them,
a long list a batch at a time.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any

#: With more starts than this in a trace, the page opens with every line's group collapsed.
COLLAPSED_ABOVE_STARTS = 50
#: The groups (lines) the page builds at a time; a "show more" button builds the next ones.
GROUP_BATCH = 100
#: The starts of one group the page builds at a time.
START_BATCH = 50
#: The ops a start's memory passes through that the page lists at a time.
OP_BATCH = 200
#: A search that finds at most this many starts expands every group it finds them in.
EXPANDED_MATCHES = 200

# The page's settings, from the constants above, for its script.
_SETTINGS = {
    "collapsedAboveStarts": COLLAPSED_ABOVE_STARTS,
    "groupBatch": GROUP_BATCH,
    "startBatch": START_BATCH,
    "opBatch": OP_BATCH,
    "expandedMatches": EXPANDED_MATCHES,
}


def _script_json(value: Any) -> str:
    """``value`` as JSON that cannot end the <script> element holding it: '<' begins both
    '</script' and '<!--', and occurs only inside JSON strings, where its escape reads back
    the same."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _packed(trace: Mapping[str, Any]) -> dict[str, Any]:
    """``trace`` with each distinct op written once, in a table ``ops`` that the starts'
    ``through`` and their fates' ``at`` and ``path`` refer to by index: a fate's path repeats
    ops its start passes through, and on a large model those ops are most of the trace."""
    ops: list[Any] = []
    index_of: dict[str, int] = {}

    def refer(op: Any) -> int:
        # repr tells two ops apart as surely as their JSON does, and sooner.
        key = repr(op)
        if key not in index_of:
            index_of[key] = len(ops)
            ops.append(op)
        return index_of[key]

    starts = [
        {
            **start,
            "through": [refer(op) for op in start["through"]],
            "fates": [
                {**fate, "at": refer(fate["at"]), "path": [refer(op) for op in fate["path"]]}
                for fate in start["fates"]
            ],
        }
        for start in trace["starts"]
    ]
    return {"trace": {**trace, "starts": starts}, "ops": ops}


def render_page(trace: Mapping[str, Any], *, title: str | None = None) -> str:
    """The HTML page of ``trace``, a document of ``trace.schema.json`` (``Trace.to_json``
    read back): totals, the starts grouped by source line, each start's paths to its fates,
    and a search (also from the address: ``page.html#search=TEXT``)."""
    schema = json.loads(resources.files("hostoffload").joinpath("trace.schema.json").read_text())
    missing = [key for key in schema["required"] if key not in trace]
    if missing:
        raise ValueError(
            f"render_page: the trace lacks {', '.join(missing)}; give it the document of "
            "trace.schema.json, e.g. json.loads(trace.to_json())"
        )
    if title is None:
        title = f"hostoffload trace: {trace.get('source') or '@' + str(trace['entry'])}"
    parts = {
        "TITLE": html.escape(title),
        "STYLE": _STYLE,
        "SCRIPT": _SCRIPT,
        "SETTINGS": _script_json(_SETTINGS),
        "TRACE": _script_json(_packed(trace)),
    }
    # One pass over the template: a title or a trace may hold the markers' text themselves.
    return re.sub("__([A-Z]+)__", lambda marker: parts[marker[1]], _TEMPLATE)


# Nothing may load: the policy stops any request a page could make, even one a trace's text
# slipped in.
_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>__STYLE__</style>
</head>
<body>
<header class="top">
  <h1 id="title">__TITLE__</h1>
  <p class="meta" id="meta"></p>
  <div class="cards" id="totals"></div>
  <div class="fatebar big" id="fatebar"></div>
  <div class="legend" id="legend"></div>
</header>
<div class="controls">
  <input id="search" type="search" autocomplete="off" spellcheck="false"
    placeholder="Search starts by name, op, file, line, dtype, fate…  ( / )"
    aria-label="Search starts">
  <span id="count" class="count"></span>
  <button id="expand-all" type="button">Expand all</button>
  <button id="collapse-all" type="button">Collapse all</button>
</div>
<main id="groups"><noscript>This page draws the trace with JavaScript; turn it on to see
it.</noscript></main>
<script type="application/json" id="trace-settings">__SETTINGS__</script>
<script type="application/json" id="trace-data">__TRACE__</script>
<script>__SCRIPT__</script>
</body>
</html>
"""

_STYLE = """
:root {
  --bg: #f5f6f8; --panel: #fff; --text: #1b2130; --muted: #667085; --faint: #98a2b3;
  --border: #e2e5ea; --node: #f8f9fb; --accent: #3b5bdb; --mark: #fff3bf;
  --device: #1c6fd1; --device-bg: #e8f1fd;
  --host_compute: #d9480f; --host_compute-bg: #fff0e6;
  --output: #2b8a3e; --output-bg: #e7f6ea;
  --mismatch: #e03131; --mismatch-bg: #fdeaea;
  --host_call: #7048e8; --host_call-bg: #f0ebff;
  --unused: #868e96; --unused-bg: #f1f3f5;
  --mono: ui-monospace, "SF Mono", SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono",
    "Liberation Mono", monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14171c; --panel: #1c2027; --text: #e4e7ec; --muted: #98a2b3; --faint: #667085;
    --border: #2e343e; --node: #232830; --accent: #7b93f5; --mark: #5c4d12;
    --device: #5ea3f5; --device-bg: #17283d; --host_compute: #ff8f4d; --host_compute-bg: #3a2313;
    --output: #5fc777; --output-bg: #16301d; --mismatch: #ff6b6b; --mismatch-bg: #3d1a1a;
    --host_call: #a48bff; --host_call-bg: #261f40; --unused: #98a2b3; --unused-bg: #262a31;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
    sans-serif;
}
.top { background: var(--panel); border-bottom: 1px solid var(--border); padding: 22px 32px 18px; }
h1 { font-size: 19px; font-weight: 650; margin: 0; letter-spacing: -0.01em; }
.meta { color: var(--muted); margin: 4px 0 0; font-size: 13px; }
.meta code { font-family: var(--mono); font-size: 12.5px; color: var(--text); }
.cards {
  display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px;
  margin: 16px 0 14px;
}
.card { border: 1px solid var(--border); border-radius: 10px; padding: 9px 14px 10px; }
.card .value {
  display: block; font-size: 22px; font-weight: 650; font-variant-numeric: tabular-nums;
}
.card .label { display: block; color: var(--muted); font-size: 12px; }
.card.bad { border-color: var(--mismatch); background: var(--mismatch-bg); }
.card.bad .value { color: var(--mismatch); }
.card .swatch {
  display: inline-block; width: 8px; height: 8px; border-radius: 2px; margin-right: 6px;
}
.fatebar {
  display: flex; height: 6px; border-radius: 3px; overflow: hidden; background: var(--border);
}
.fatebar.big { height: 8px; border-radius: 4px; }
.fatebar span { display: block; height: 100%; }
.legend {
  display: flex; flex-wrap: wrap; gap: 16px; margin-top: 8px; color: var(--muted);
  font-size: 12.5px;
}
.legend span::before {
  content: ""; display: inline-block; width: 10px; height: 10px; border-radius: 3px;
  margin-right: 6px; vertical-align: -1px; background: var(--k);
}
.controls {
  position: sticky; top: 0; z-index: 2; display: flex; align-items: center; gap: 10px;
  padding: 10px 32px; background: color-mix(in srgb, var(--bg) 88%, transparent);
  backdrop-filter: blur(6px); border-bottom: 1px solid var(--border);
}
.controls input {
  flex: 1; max-width: 620px; font: inherit; font-size: 15px; padding: 7px 12px;
  border: 1px solid var(--border); border-radius: 8px; background: var(--panel); color: var(--text);
}
.controls input:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
.count { color: var(--muted); font-variant-numeric: tabular-nums; margin-right: auto; }
button {
  font: inherit; font-size: 13px; color: var(--text); background: var(--panel);
  border: 1px solid var(--border); border-radius: 7px; padding: 5px 11px; cursor: pointer;
}
button:hover { border-color: var(--accent); }
main { padding: 16px 32px 80px; }
.group {
  background: var(--panel); border: 1px solid var(--border); border-radius: 10px;
  margin-bottom: 10px;
}
.group.problem { box-shadow: inset 3px 0 0 var(--mismatch); }
.group-head {
  all: unset; box-sizing: border-box; display: flex; align-items: center; gap: 14px;
  width: 100%; padding: 10px 16px; cursor: pointer; border-radius: 10px;
}
.group-head:focus-visible { outline: 2px solid var(--accent); }
.caret { width: 10px; color: var(--faint); transition: transform 0.12s; }
.group.open .caret { transform: rotate(90deg); }
.where-line {
  font-family: var(--mono); font-size: 13px; flex: 1 1 auto; min-width: min(40%, 22em);
}
.where-line .dir { color: var(--muted); }
.where-line .base { white-space: nowrap; }
.where-line .none { font-family: inherit; font-style: italic; color: var(--muted); }
.stats {
  margin-left: auto; display: flex; flex-wrap: wrap; justify-content: flex-end; align-items: center;
  gap: 4px 14px; color: var(--muted); font-size: 12.5px; white-space: nowrap;
  font-variant-numeric: tabular-nums;
}
.stats .fatebar { width: 110px; flex: none; }
.stat { text-align: right; }
.stat-0 { min-width: 70px; }
.stat-1 { min-width: 120px; }
.stat-2 { min-width: 130px; }
.stat-3 { min-width: 140px; }
@media (max-width: 1100px) { .stat[class] { min-width: 0; } .stat:empty { display: none; } }
.pill { border-radius: 999px; padding: 1px 8px; font-size: 12px; font-weight: 600; }
.pill.mismatch { color: var(--mismatch); background: var(--mismatch-bg); }
.pill.unused { color: var(--unused); background: var(--unused-bg); }
.pill.match {
  color: var(--accent); background: color-mix(in srgb, var(--accent) 12%, transparent);
}
.group-body { border-top: 1px solid var(--border); }
.start { padding: 12px 18px 14px 40px; border-top: 1px solid var(--border); }
.start:first-child { border-top: 0; }
.start.flash { animation: flash 1.6s ease-out; }
@keyframes flash { from { background: var(--mark); } to { background: transparent; } }
.start-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px 10px; }
.start-name { font-weight: 650; }
.badge {
  font-size: 11.5px; color: var(--muted); border: 1px solid var(--border); border-radius: 5px;
  padding: 0 6px;
}
.badge.already { color: var(--accent); border-color: currentColor; }
.tensor { font-family: var(--mono); font-size: 12.5px; }
.tensor .bytes { font-family: system-ui, sans-serif; color: var(--muted); margin-left: 6px; }
.loc { font-family: var(--mono); font-size: 12px; color: var(--muted); }
.start-head .loc { margin-left: auto; }
.reason { margin: 2px 0 0; color: var(--muted); font-size: 12.5px; }
.tree { list-style: none; margin: 0; padding: 0; }
.ways { margin-top: 8px; }
.ways > .branch + .branch { margin-top: 10px; }
/* Boxes line up at their tops, and every arrow meets a box 20px below its top. A fork's
   branches hang off a line down its left, as in a tree of files. */
.tree .tree { margin-left: 16px; }
.tree .tree > .branch { position: relative; padding: 8px 0 0 26px; }
.tree .tree > .branch::before {
  content: ""; position: absolute; left: 0; top: 0; bottom: 0; border-left: 2px solid var(--faint);
}
.tree .tree > .branch:last-child::before { bottom: auto; height: 29px; }
.tree .tree > .branch::after {
  content: ""; position: absolute; left: 0; top: 27px; width: 18px;
  border-top: 2px solid var(--faint);
}
.joins { font-size: 12px; color: var(--muted); margin-bottom: 4px; }
.joins a { color: var(--accent); cursor: pointer; }
.chain {
  list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap;
  align-items: flex-start; row-gap: 8px;
}
.chain > li { display: flex; align-items: flex-start; }
.chain > li + li::before {
  content: ""; width: 26px; height: 2px; margin: 19px 2px 0 4px; background: var(--faint);
}
.chain > li + li > .node, .tree .tree > .branch > .chain > li:first-child > .node {
  position: relative;
}
.chain > li + li > .node { margin-left: 6px; }
.chain > li + li > .node::before,
.tree .tree > .branch > .chain > li:first-child > .node::before {
  content: ""; position: absolute; left: -8px; top: 15px;
  border: 5px solid transparent; border-left: 6px solid var(--faint); border-right: 0;
}
.node {
  border: 1px solid var(--border); background: var(--node); border-radius: 8px;
  padding: 4px 10px 5px; max-width: 340px;
}
.node .op { display: block; font-family: var(--mono); font-size: 12.5px; overflow-wrap: anywhere; }
.node .loc { display: block; font-size: 11px; }
.node.origin { border-style: solid; border-color: var(--faint); }
.node.gap {
  background: transparent; border-style: dashed; color: var(--muted); font-size: 12px;
  padding: 10px;
}
.node.fate { border-width: 1.5px; border-color: var(--k); background: var(--kbg); }
.node.fate .kind { display: block; font-size: 11.5px; font-weight: 700; color: var(--k);
  text-transform: uppercase; letter-spacing: 0.04em; }
.node.fate .tensor { display: block; font-size: 11.5px; color: var(--muted); }
.more-compute { font-size: 12.5px; color: var(--host_compute); margin: 2px 0 0; }
details.through { margin-top: 8px; font-size: 12.5px; color: var(--muted); }
details.through summary { cursor: pointer; }
details.through ol { margin: 6px 0 0; padding-left: 26px; }
details.through li { font-family: var(--mono); font-size: 12px; color: var(--text); }
details.through li .loc { margin-left: 8px; }
.more { display: block; width: 100%; margin: 6px 0 0; padding: 8px; color: var(--accent); }
.group-body > .more {
  margin: 0; border: 0; border-top: 1px solid var(--border); border-radius: 0 0 10px 10px;
}
.empty { color: var(--muted); padding: 30px 0; text-align: center; }
"""

_SCRIPT = r"""
"use strict";
(() => {
const settings = JSON.parse(document.getElementById("trace-settings").textContent);
const packed = JSON.parse(document.getElementById("trace-data").textContent);
const trace = packed.trace;
const starts = trace.starts;
for (const start of starts) {
  start.through = start.through.map((index) => packed.ops[index]);
  for (const fate of start.fates) {
    fate.at = packed.ops[fate.at];
    fate.path = fate.path.map((index) => packed.ops[index]);
  }
}
const startOf = new Map(starts.map((start) => [start.index, start]));
// Each kind of fate, by how it is named, in the order the page draws the kinds.
const FATES = {
  mismatch: "E1200 mismatch",
  device: "back to device",
  output: "output in host",
  host_compute: "host compute",
  host_call: "host call",
};
const FATE_ORDER = Object.keys(FATES);
const number = (n) => n.toLocaleString("en-US");
const plural = (n, word) => `${number(n)} ${word}${n === 1 ? "" : "s"}`;

function bytes(n) {
  if (n === null || n === undefined) return "size unknown";
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let value = n, unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  if (unit === 0) return `${n} B`;
  return `${value >= 100 ? Math.round(value) : Number(value.toFixed(1))} ${units[unit]}`;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function where(location, withColumn) {
  if (location.file === null) return location.mlir;
  let text = location.file;
  if (location.line !== null) text += `:${location.line}`;
  if (withColumn && location.line !== null && location.column !== null) {
    text += `:${location.column}`;
  }
  return text;
}

function tensorText(tensor) {
  if (tensor.dtype === null || tensor.shape === null) return tensor.type;
  return `${tensor.dtype}[${tensor.shape.join(",")}]`;
}

function tensorNode(tensor, className) {
  const node = el("span", className, tensorText(tensor));
  node.title = tensor.type;
  node.append(el("span", "bytes", bytes(tensor.bytes)));
  return node;
}

function locNode(location, withColumn) {
  const node = el("span", "loc", where(location, withColumn));
  node.title = location.mlir;
  return node;
}

function fateCounts(list) {
  const counts = Object.fromEntries(FATE_ORDER.map((kind) => [kind, 0]));
  let unused = 0;
  for (const start of list) {
    if (start.fates.length === 0) unused += 1;
    for (const fate of start.fates) counts[fate.kind] += 1;
  }
  return {counts, unused};
}

function fateBar({counts, unused}, className) {
  const bar = el("div", className);
  const total = FATE_ORDER.reduce((sum, kind) => sum + counts[kind], unused);
  const parts = FATE_ORDER.map((kind) => [kind, counts[kind]]).concat([["unused", unused]]);
  for (const [kind, count] of parts) {
    if (count === 0) continue;
    const part = el("span");
    part.style.width = `${(100 * count) / total}%`;
    part.style.background = `var(--${kind})`;
    part.title = `${kind === "unused" ? "unused" : FATES[kind]}: ${number(count)}`;
    bar.append(part);
  }
  return bar;
}

// --- the header -----------------------------------------------------------------------------
function drawHeader() {
  const meta = document.getElementById("meta");
  const facts = [["entry", `@${trace.entry}`]];
  if (trace.source !== undefined) facts.unshift(["source", trace.source]);
  if (trace.platform !== undefined) facts.push(["platform", trace.platform]);
  if (trace.xla_release !== undefined) facts.push(["modelled on XLA", trace.xla_release]);
  facts.forEach(([label, value], i) => {
    if (i > 0) meta.append(" · ");
    meta.append(`${label} `, el("code", null, value));
  });
  meta.append(" · totals per step (one run of the entry function)");
  const totals = trace.totals;
  const cards = [
    ["starts", number(totals.starts), "starts"],
    ["bytes_to_host", bytes(totals.bytes_to_host), "to host"],
    ["bytes_to_device", bytes(totals.bytes_to_device), "back to device", "device"],
    ["bytes_output_in_host", bytes(totals.bytes_output_in_host), "output in host", "output"],
    ["host_compute_ops", number(totals.host_compute_ops), "host-compute ops", "host_compute"],
    ["mismatches", number(totals.mismatches), "E1200 mismatches", "mismatch"],
    ["unused_starts", number(totals.unused_starts), "unused starts", "unused"],
  ];
  const box = document.getElementById("totals");
  for (const [key, value, label, kind] of cards) {
    const card = el("div", "card");
    card.dataset.total = key;
    if (key === "mismatches" && totals.mismatches > 0) card.classList.add("bad");
    const labelNode = el("span", "label");
    if (kind) {
      const swatch = el("span", "swatch");
      swatch.style.background = `var(--${kind})`;
      labelNode.append(swatch);
    }
    labelNode.append(label);
    card.append(el("span", "value", value), labelNode);
    box.append(card);
  }
  document.getElementById("fatebar").replaceWith(fateBar(fateCounts(starts), "fatebar big"));
  const legend = document.getElementById("legend");
  for (const kind of FATE_ORDER.concat(["unused"])) {
    const item = el("span", null, kind === "unused" ? "unused" : FATES[kind]);
    item.style.setProperty("--k", `var(--${kind})`);
    legend.append(item);
  }
}

// --- one start ----------------------------------------------------------------------------
function opNode(op, className) {
  const node = el("div", `node ${className}`);
  node.dataset.op = op.op;
  node.append(el("span", "op", op.op), locNode(op.location, false));
  node.title = (op.name ? `${op.name}\n` : "") + op.location.mlir;
  return node;
}

function fateLabel(fate) {
  const output = fate.output_index === undefined ? "output" : `output ${fate.output_index}`;
  if (fate.kind === "mismatch") return `E1200 · ${output}`;
  if (fate.kind === "output") return `${output} · in host`;
  return FATES[fate.kind];
}

function chainItem(chain, node) {
  const item = el("li");
  item.append(node);
  chain.append(item);
}

// A start's ways to its fates as a tree: the steps its ways share are drawn once, and the
// ways fork where they part. The page's ops are shared objects, so a step is keyed by its op;
// a fate's op is a step too, so a fate on the way of others marks that step.
function wayTree(start) {
  const root = {children: [], byKey: new Map()};
  const step = (parent, key, make) => {
    let node = parent.byKey.get(key);
    if (node === undefined) {
      node = {...make(), fates: [], children: [], byKey: new Map()};
      parent.byKey.set(key, node);
      parent.children.push(node);
    }
    return node;
  };
  start.fates.forEach((fate, index) => {
    // Another start's way, which this start's memory joined, is a root of its own.
    const first = fate.from_start === undefined ? fate.path[0] : `from ${fate.from_start}`;
    let node = step(root, first, () => ({op: fate.path[0], origin: true, joins: fate.from_start}));
    // A long path holds as many of its first steps as of its last: the omitted lie between.
    const split = fate.path_steps_omitted > 0 ? fate.path.length / 2 : -1;
    fate.path.slice(1).forEach((op, i) => {
      if (i + 1 === split) {
        node = step(node, `gap ${index}`, () => ({omitted: fate.path_steps_omitted}));
      }
      node = step(node, op, () => ({op}));
    });
    step(node, fate.at, () => ({op: fate.at})).fates.push(index);
  });
  if (start.fates.length === 0 && start.through.length > 0) {
    step(root, start.through[0], () => ({op: start.through[0], origin: true})).unused = true;
  }
  return root.children;
}

function drawStep(start, node) {
  if (node.omitted !== undefined) {
    return el("div", "node gap", `… ${plural(node.omitted, "step")} …`);
  }
  const box = opNode(node.op, node.origin ? "origin" : "step");
  const kinds = node.unused ? ["unused"] : node.fates.map((index) => start.fates[index].kind);
  if (kinds.length === 0) return box;
  box.classList.add("fate", kinds[0]);
  box.style.setProperty("--k", `var(--${kinds[0]})`);
  box.style.setProperty("--kbg", `var(--${kinds[0]}-bg)`);
  if (node.unused) {
    const label = el("span", "kind", "unused");
    label.dataset.kind = "unused";
    box.prepend(label);
    box.append(el("span", "tensor", "nothing uses it in host memory"));
    return box;
  }
  box.dataset.fates = node.fates.join(" ");
  for (const index of [...node.fates].reverse()) {
    const label = el("span", "kind", fateLabel(start.fates[index]));
    label.dataset.kind = start.fates[index].kind;
    box.prepend(label);
  }
  const tensor = node.fates.map((index) => start.fates[index].tensor).find((t) => t !== undefined);
  if (tensor !== undefined) box.append(tensorNode(tensor, "tensor"));
  return box;
}

function joinsNote(index) {
  const other = startOf.get(index);
  const joins = el("div", "joins", "joins the host memory of ");
  const link = el("a", null, other ? other.name : `start ${index}`);
  link.addEventListener("click", () => reveal(index));
  joins.append(link, ` (start ${index}), whose way continues:`);
  return joins;
}

// A branch: the steps up to the next fork in a row, then the branches of the fork below.
function drawBranch(start, node) {
  const branch = el("li", "branch");
  if (node.joins !== undefined) branch.append(joinsNote(node.joins));
  const chain = el("ol", "chain");
  let current = node;
  chainItem(chain, drawStep(start, current));
  while (current.children.length === 1) {
    current = current.children[0];
    chainItem(chain, drawStep(start, current));
  }
  branch.append(chain);
  if (current.children.length > 1) {
    const fork = el("ul", "tree");
    for (const next of current.children) fork.append(drawBranch(start, next));
    branch.append(fork);
  }
  return branch;
}

function drawStart(start) {
  const card = el("article", "start");
  card.id = `start-${start.index}`;
  card.dataset.index = start.index;
  const head = el("div", "start-head");
  head.append(el("span", "start-name", start.name));
  const kind = start.argument_index === undefined ? start.kind : `argument ${start.argument_index}`;
  head.append(el("span", "badge", kind), tensorNode(start.tensor, "tensor"));
  if (start.already_in_host) {
    const already = el("span", "badge already", "already in host memory");
    already.title = "XLA makes no buffer for it; the bytes to host do not count it";
    head.append(already);
  }
  head.append(locNode(start.location, true));
  card.append(head);
  let reason = start.reason;
  if (start.xla_name !== undefined) reason += ` · XLA instruction ${start.xla_name}`;
  card.append(el("p", "reason", reason));
  const ways = el("ul", "tree ways");
  for (const node of wayTree(start)) ways.append(drawBranch(start, node));
  card.append(ways);
  const shown = start.fates.filter((fate) => fate.kind === "host_compute").length;
  if (start.host_compute_ops > shown) {
    card.append(el("p", "more-compute",
      `+ ${plural(start.host_compute_ops - shown, "more host-compute op")} ` +
      `(${number(start.host_compute_ops)} in all)`));
  }
  if (start.through.length > 0) {
    const through = el("details", "through");
    const count = plural(start.through.length, "op");
    through.append(el("summary", null, `its host memory passes through ${count}`));
    through.addEventListener("toggle", () => {
      if (!through.open || through.querySelector("ol")) return;
      const items = el("ol");
      through.append(items);
      buildOps(start.through, items);
    });
    card.append(through);
  }
  return card;
}

function buildOps(ops, items) {
  const more = items.parentNode.querySelector(":scope > .more");
  if (more) more.remove();
  const built = items.childElementCount;
  for (const op of ops.slice(built, built + settings.opBatch)) {
    const item = el("li", null, op.op);
    item.title = op.name || "";
    item.append(locNode(op.location, true));
    items.append(item);
  }
  const left = ops.length - items.childElementCount;
  if (left > 0) items.after(moreButton(left, settings.opBatch, "op", () => buildOps(ops, items)));
}

// --- the groups -------------------------------------------------------------------------------
const groupOf = new Map();
const groups = trace.lines.map((line) => {
  const members = line.starts.map((index) => startOf.get(index))
    .filter((start) => start !== undefined);
  const mismatchOutputs = new Set();
  for (const start of members) {
    for (const fate of start.fates) {
      if (fate.kind === "mismatch") mismatchOutputs.add(fate.output_index);
    }
  }
  const group = {
    line, members, mismatches: mismatchOutputs.size,
    unused: members.filter((start) => start.fates.length === 0).length,
    open: starts.length <= settings.collapsedAboveStarts,
    node: null, matches: members, built: 0,
  };
  for (const start of members) groupOf.set(start.index, group);
  return group;
});

function lineNode(line) {
  const node = el("span", "where-line");
  if (line.file === null) {
    node.append(el("span", "none", "no source line"));
    return node;
  }
  // A long path breaks after a '/', never inside the file's name and line.
  const folders = line.file.split("/");
  const name = folders.pop() + (line.line === null ? "" : `:${line.line}`);
  const dir = el("span", "dir");
  for (const folder of folders) dir.append(`${folder}/`, el("wbr"));
  node.append(dir, el("span", "base", name));
  return node;
}

function buildGroup(group) {
  const section = el("section", "group");
  section.dataset.file = group.line.file === null ? "" : group.line.file;
  section.dataset.line = group.line.line === null ? "" : group.line.line;
  if (group.mismatches > 0) section.classList.add("problem");
  const head = el("button", "group-head");
  head.type = "button";
  head.append(el("span", "caret", "▶"), lineNode(group.line));
  const stats = el("span", "stats");
  group.matchNote = el("span", "pill match");
  stats.append(group.matchNote);
  if (group.mismatches > 0) {
    stats.append(el("span", "pill mismatch", `E1200 × ${group.mismatches}`));
  }
  if (group.unused > 0) stats.append(el("span", "pill unused", `${number(group.unused)} unused`));
  // The same cells in every group, empty where zero, so that the numbers line up.
  const line = group.line;
  const cells = [
    plural(line.starts.length, "start"),
    `${bytes(line.bytes_to_host)} to host`,
    line.bytes_to_device > 0 ? `${bytes(line.bytes_to_device)} to device` : "",
    line.host_compute_ops > 0 ? plural(line.host_compute_ops, "host-compute op") : "",
  ];
  cells.forEach((text, i) => stats.append(el("span", `stat stat-${i}`, text)));
  stats.append(fateBar(fateCounts(group.members), "fatebar"));
  head.append(stats);
  head.addEventListener("click", () => { group.open = !group.open; refreshGroup(group); });
  section.append(head);
  group.node = section;
  group.head = head;
}

function refreshGroup(group) {
  if (group.node === null) buildGroup(group);
  group.node.classList.toggle("open", group.open);
  group.head.setAttribute("aria-expanded", String(group.open));
  group.matchNote.hidden = query.length === 0;
  const [found, all] = [group.matches.length, group.members.length];
  group.matchNote.textContent = `${number(found)} of ${number(all)} match`;
  const old = group.node.querySelector(".group-body");
  if (old) old.remove();
  group.built = 0;
  if (!group.open) return;
  const body = el("div", "group-body");
  group.node.append(body);
  buildStarts(group, body);
}

function moreButton(left, batch, noun, onClick) {
  const next = plural(Math.min(left, batch), `more ${noun}`);
  const button = el("button", "more", `Show ${next} (${number(left)} left)`);
  button.type = "button";
  button.addEventListener("click", onClick);
  return button;
}

function buildStarts(group, body) {
  const more = body.querySelector(":scope > .more");
  if (more) more.remove();
  const next = group.matches.slice(group.built, group.built + settings.startBatch);
  for (const start of next) body.append(drawStart(start));
  group.built += next.length;
  const left = group.matches.length - group.built;
  if (left > 0) {
    body.append(moreButton(left, settings.startBatch, "start", () => buildStarts(group, body)));
  }
}

// --- search and the list --------------------------------------------------------------------
const haystacks = new Map();
function haystack(start) {
  let text = haystacks.get(start.index);
  if (text !== undefined) return text;
  const parts = [start.name, start.reason, start.kind, tensorText(start.tensor), start.tensor.type,
    where(start.location, true), start.location.mlir];
  if (start.argument_index !== undefined) parts.push(`argument ${start.argument_index}`);
  if (start.xla_name !== undefined) parts.push(start.xla_name);
  if (start.fates.length === 0) parts.push("unused");
  if (start.already_in_host) parts.push("already in host memory");
  const addOp = (op) => {
    parts.push(op.op, where(op.location, true));
    if (op.name) parts.push(op.name);
  };
  start.through.forEach(addOp);
  for (const fate of start.fates) {
    parts.push(fate.kind, fateLabel(fate));
    addOp(fate.at);
    fate.path.forEach(addOp);
    if (fate.tensor !== undefined) parts.push(tensorText(fate.tensor), fate.tensor.type);
  }
  text = parts.join("\n").toLowerCase();
  haystacks.set(start.index, text);
  return text;
}

let query = "";
let shownGroups = groups;
let builtGroups = 0;
const list = document.getElementById("groups");

function matching(words) {
  return (start) => {
    const text = haystack(start);
    return words.every((word) => text.includes(word));
  };
}

function applyQuery(text) {
  query = text.trim().toLowerCase();
  const words = query.split(/\s+/).filter((word) => word.length > 0);
  let found = 0;
  for (const group of groups) {
    group.matches = words.length === 0 ? group.members : group.members.filter(matching(words));
    found += group.matches.length;
  }
  shownGroups = groups.filter((group) => group.matches.length > 0);
  if (words.length > 0 && found <= settings.expandedMatches) {
    for (const group of shownGroups) group.open = true;
  }
  const count = document.getElementById("count");
  count.dataset.matches = found;
  const all = plural(starts.length, "start");
  count.textContent = words.length === 0
    ? `${all} on ${plural(groups.length, "line")}`
    : `${number(found)} of ${all} match, on ${plural(shownGroups.length, "line")}`;
  list.replaceChildren();
  builtGroups = 0;
  if (shownGroups.length === 0) {
    const none = starts.length === 0 ? "No tensor enters host memory." : "No start matches.";
    list.append(el("p", "empty", none));
    return;
  }
  buildGroups();
}

let moreGroups = null;
// The next batch of lines comes as the reader scrolls to the end of those built.
const observer = new IntersectionObserver((entries) => {
  if (entries.some((entry) => entry.isIntersecting)) buildGroups();
});

function buildGroups() {
  if (moreGroups !== null) {
    observer.unobserve(moreGroups);
    moreGroups.remove();
    moreGroups = null;
  }
  const next = shownGroups.slice(builtGroups, builtGroups + settings.groupBatch);
  for (const group of next) { refreshGroup(group); list.append(group.node); }
  builtGroups += next.length;
  const left = shownGroups.length - builtGroups;
  if (left > 0) {
    moreGroups = moreButton(left, settings.groupBatch, "line", buildGroups);
    moreGroups.id = "more-lines";
    list.append(moreGroups);
    observer.observe(moreGroups);
  }
}

function reveal(index) {
  const group = groupOf.get(index);
  if (group === undefined) return;
  if (!group.matches.includes(startOf.get(index))) setSearch("");
  while (!shownGroups.slice(0, builtGroups).includes(group)) buildGroups();
  if (!group.open) { group.open = true; refreshGroup(group); }
  const body = group.node.querySelector(".group-body");
  while (document.getElementById(`start-${index}`) === null) buildStarts(group, body);
  const card = document.getElementById(`start-${index}`);
  card.scrollIntoView({block: "center"});
  card.classList.remove("flash");
  void card.offsetWidth; // a layout between the two restarts the animation
  card.classList.add("flash");
}

const input = document.getElementById("search");
function searchFromAddress() {
  return new URLSearchParams(location.hash.slice(1)).get("search") || "";
}
function setSearch(text) {
  input.value = text;
  applyQuery(text);
  const address = text ? `#search=${encodeURIComponent(text)}` : location.pathname;
  history.replaceState(null, "", address);
}
let pending = 0;
input.addEventListener("input", () => {
  clearTimeout(pending);
  pending = setTimeout(() => setSearch(input.value), 120);
});
window.addEventListener("hashchange", () => {
  const text = searchFromAddress();
  input.value = text;
  applyQuery(text);
});
const setAll = (open) => {
  for (const group of groups) group.open = open;
  for (const group of shownGroups.slice(0, builtGroups)) refreshGroup(group);
};
document.getElementById("expand-all").addEventListener("click", () => setAll(true));
// "/" goes to the search box, as on many sites that have one.
document.addEventListener("keydown", (event) => {
  if (event.key !== "/" || event.target === input) return;
  event.preventDefault();
  input.focus();
});
document.getElementById("collapse-all").addEventListener("click", () => setAll(false));

drawHeader();
input.value = searchFromAddress();
applyQuery(input.value);
document.body.dataset.ready = "true";
})();
"""
