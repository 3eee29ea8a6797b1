"""A demo memory entry, and the worked example exactly as the verification issue wrote it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True)
class DemoEntry:
    """One memory entry of one demo agent."""

    agent_id: str
    schema: str
    occurred_at: datetime
    content: str
    tags: tuple[str, ...]


WORKED_EXAMPLE = DemoEntry(
    agent_id="support-bot",
    schema="customer_service",
    occurred_at=datetime(2026, 3, 14, 19, 32, tzinfo=UTC),
    content=(
        "Customer cust_482 (Acme Corp) called at 2026-03-14 14:32 EST regarding invoice "
        "INV-9182 totaling $14,250. Customer disputes line item 3 ($2,400 for engineering hours "
        "on March 6) claiming work was not authorized by their CTO Marcus Chen. Customer agreed "
        "to pay $11,850 (full invoice minus disputed line) within 7 business days (by "
        "2026-03-25) if we issue a credit memo for $2,400 by EOD 2026-03-15. Agent committed to "
        "credit memo. Tool call: invoice.adjust(invoice_id='INV-9182', adjustment_amount=-2400, "
        "reason='disputed_line_item_3', notes='see customer call 2026-03-14') returned success "
        "with credit_memo_id='CM-3392'."
    ),
    tags=("billing", "dispute", "worked-example"),
)
"""The worked example of the verification issue, exactly as written there."""
