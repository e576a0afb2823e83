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
        "STYLE": _asset("css"),
        "SCRIPT": _asset("js"),
        "SETTINGS": _script_json(_SETTINGS),
        "TRACE": _script_json(_packed(trace)),
    }
    # One pass over the template: a title or a trace may hold the markers' text themselves.
    return re.sub("__([A-Z]+)__", lambda marker: parts[marker[1]], _asset("html"))


def _asset(extension: str) -> str:
    """The page's template (html), style (css) or script (js), a file beside this module. The
    template's policy stops any request the page could make, even one a trace's text slipped
    in."""
    return resources.files("hostoffload").joinpath(f"trace_page.{extension}").read_text()
