"""Warmaster (Revolution), flying units (RULES.md 2). Importing this registers its move rules."""
