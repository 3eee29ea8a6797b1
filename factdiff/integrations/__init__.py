"""Adapters that let agent frameworks keep their memory in factdiff.

Each module needs its framework, installed by the extra of the same name (for example
``pip install 'factdiff[langgraph]'`` for ``factdiff.integrations.langgraph``).
"""
