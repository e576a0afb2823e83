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
  if (trace.xla_release !== undefined) {
    const reason = trace.xla_release_reason === undefined ? "" : `: ${trace.xla_release_reason}`;
    facts.push(["modelled on XLA", `${trace.xla_release}${reason}`]);
  }
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
  try {
    history.replaceState(null, "", address);
  } catch (error) {
    // Shown in a notebook, the page is a sandboxed frame's, with no address of its own.
  }
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
