"""``python -m factdiff.cli``."""

from factdiff.cli.main import main

main()
