"""The computer opponents' names at the terminal table (the bots come from ``binokel.ai``)."""

NAMES = ("Ben", "Cleo", "Dora", "Emil", "Fritz")
"""The computer opponents' names, seat 1 onwards."""
