"""How stored things are shown: JSON documents, inert on-screen text, counted nouns, and the
cursors of paged listings (shared by the CLI and the service)."""
