"""The reference agent loop: the loop, tools and the built-in tools, replay of recorded sessions."""
