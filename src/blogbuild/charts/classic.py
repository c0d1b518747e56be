"""The spec in a chart a notebook stored the classic way: HTML with a <div> and a <script>
that loads vega-embed from a CDN and draws the spec written in the script (Altair's
default renderer before JupyterLab, fastpages' notebooks). The script is never run: its
text is read for the JSON object that is the spec.
"""

from __future__ import annotations

import json
from typing import Any

from blogbuild.charts.embedded import scripts_of

#: Places in a script's text where a JSON object is tried as the spec, at most.
_TRIES = 200


def vega_in_html(html: str) -> tuple[str, dict[str, Any]] | None:
    """(kind, spec) of the chart a classic vega-embed output draws, or None when its
    scripts hold none: the first JSON object in a script that calls vega-embed and that is
    a Vega or Vega-Lite spec (its `$schema` says which; `"mode": "vega"` too)."""
    try:
        scripts = [script.text for script in scripts_of(html)[0]]
    except (AssertionError, ValueError):  # markup the parser gives up on
        return None
    for script in scripts:
        if "vegaEmbed" not in script and "vega-embed" not in script:
            continue
        found = _spec_in(script)
        if found is not None:
            schema = str(found.get("$schema", ""))
            vega = "/vega/" in schema or ('"mode": "vega"' in script and "/vega-lite/"
                                          not in schema)
            return ("vega" if vega else "vega-lite"), found
    return None


def _spec_in(script: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    start, tries = script.find("{"), 0
    while start != -1 and tries < _TRIES:
        tries += 1
        try:
            value, _ = decoder.raw_decode(script, start)
        except (ValueError, RecursionError):
            start = script.find("{", start + 1)
            continue
        if isinstance(value, dict) and _is_spec(value):
            return value
        start = script.find("{", start + 1)  # an object inside it may be the spec
    return None


def _is_spec(value: dict[str, Any]) -> bool:
    schema = value.get("$schema")
    if isinstance(schema, str) and "vega" in schema:
        return True
    return ("mark" in value or "marks" in value or "layer" in value) and \
        ("data" in value or "datasets" in value)
