"""What callers may send, checked at the door: integer bounds, the time range, JSON and
TOML text."""
