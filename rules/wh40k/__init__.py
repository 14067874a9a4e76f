"""Warhammer 40,000, 11th edition (RULES.md 1). Importing this registers its move rules."""
