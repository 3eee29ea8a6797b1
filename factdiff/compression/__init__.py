"""Compression: ``compress()`` climbs the attempt ladder (summarize -> extract -> verify,
then a stricter rung), with the attempt engine and the component specs it is built from."""
