"""Deployable units of the kit. A stack only wires constructs from `statespeak_constructs`."""
