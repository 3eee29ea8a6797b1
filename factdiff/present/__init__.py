"""How stored things are shown: JSON documents, inert on-screen text, counted nouns."""
