"""``factdiff.integrations.openai_agents``: an item's entry text and the summary message."""

from __future__ import annotations

import pytest

from tests.extras import missing_extra

pytest.importorskip("agents", reason=missing_extra("agents", "openai-agents"))

from factdiff.errors import InputError
from factdiff.integrations.openai_agents import SUMMARY_PREAMBLE, render_item, summary_message
from factdiff.integrations.session_log import Compressed
from factdiff.retrieve.context import RenderedContext, text_hash


def test_an_item_is_its_canonical_json() -> None:
    item = {"role": "user", "content": [{"type": "input_text", "text": "Zoë owes €12"}]}
    shuffled = {"content": item["content"], "role": "user"}
    text = render_item(item)
    assert text == render_item(shuffled)
    assert text == '{"content":[{"text":"Zoë owes €12","type":"input_text"}],"role":"user"}'


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("nan"), r"session item 3\['content'\] is nan: JSON has no NaN"),
        (float("inf"), r"session item 3\['content'\] is inf: JSON has no NaN or infinity"),
        ({1, 2}, r"session item 3\['content'\] is a set: store JSON values only"),
        (object(), r"session item 3\['content'\] is a object: store JSON values only"),
    ],
)
def test_an_item_that_is_not_json_is_refused(value: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        render_item({"role": "user", "content": value}, 3)


def test_an_item_that_is_not_a_dict_is_refused() -> None:
    with pytest.raises(InputError, match="session item 2 is a list: give a dict"):
        render_item([("role", "user")], 2)  # type: ignore[arg-type]


def test_the_summary_message_carries_the_rendered_context_and_its_hash() -> None:
    block = "## entry 01A (agent a, tier warm)\nnarrative:\nRefund.\nfacts:\n- none\n"
    context = RenderedContext((), block, text_hash(block))
    one = summary_message(Compressed(("01A",), context))
    assert one["role"] == "system"
    content = str(one["content"])
    preamble = SUMMARY_PREAMBLE.format(count=1, s="")
    assert content == f"{preamble}\n\n{block}\ncontext hash: {text_hash(block)}"
    assert content.startswith("Verified summary of 1 earlier item of this conversation")
    two = summary_message(Compressed(("01A", "01B"), context))
    assert str(two["content"]).startswith("Verified summary of 2 earlier items of")


def test_the_public_names_are_pinned() -> None:
    from factdiff.integrations import openai_agents, session_log

    assert sorted(openai_agents.__all__) == [
        "DEFAULT_KEEP_RECENT",
        "FactdiffSession",
        "render_item",
        "summary_message",
    ]
    assert sorted(session_log.__all__) == [
        "Compressed",
        "Segment",
        "SessionLog",
        "Verbatim",
        "check_session_id",
        "runs",
        "session_tag",
    ]
