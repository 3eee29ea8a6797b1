"""Demotion: claim dormant hot entries, compress each once and apply the outcome; the
runner, its store boundary and executor, workers, retries, re-evaluation and review."""
