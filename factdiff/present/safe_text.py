"""Stored and user-supplied text on screen: never markup, never a terminal control sequence.

Everything the CLI prints that came from a store, a file, a schema or an option passes through
this module (``render`` builds its tables and lines from it; plain ``click.echo`` output uses
``visible``/``one_line``). Only the on-screen form changes: stored content is never altered,
and ``--json`` output carries the exact stored strings.

* Terminal controls are shown as visible escapes: ``\\x1b``, ``\\x9b``, ``\\r``, ``\\u202e``.
  That covers every C0 control except newline and tab, DEL, every C1 control, and the Unicode
  bidi embeddings, overrides and isolates (which reorder what a reader sees). An ESC shown as
  the four characters ``\\x1b`` starts no CSI or OSC sequence, so colours, cursor moves, title
  changes and OSC 8 hyperlinks all become inert text. A lone surrogate (``\\ud800``, which
  no UTF-8 output can encode) is shown the same way.
* Rich markup (``[red]``, ``[link=...]``, ``[/INST]``) and emoji codes (``:smile:``) are shown
  literally: such text reaches Rich only as ``rich.text.Text`` (never parsed as markup; see
  ``render.text``), never inside a markup template.
"""

from __future__ import annotations

import re

_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_CONTROLS_AND_NEWLINES = re.compile(
    "[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(value: object) -> str:
    """``value`` as text with every terminal control shown as an escape (newline and tab kept)."""
    return _CONTROLS.sub(_escape, str(value))


def one_line(value: object) -> str:
    """As ``visible``, and newlines too become ``\\n``: for one-line messages and table keys."""
    return _CONTROLS_AND_NEWLINES.sub(_escape, str(value))
