"""Agent frameworks on factdiff: a LangGraph store and an OpenAI Agents SDK session.

Each module needs its framework, installed by the extra of the same name
(``pip install 'factdiff[langgraph]'``, ``pip install 'factdiff[openai-agents]'``).
"""
