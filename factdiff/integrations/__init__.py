"""Agent frameworks on factdiff: a LangGraph store and an OpenAI Agents SDK session."""
