"""The agents' names, in graph order: which `agents/<name>/` packages exist and hold rules.

A module of its own so that the registry (porter.rules) and the catalog `porter rules` prints
from disk (porter.catalog) both read one list without importing each other.
"""

from __future__ import annotations

from typing import Literal

AgentName = Literal["translator", "microarch", "shim", "verifier"]
AGENTS: tuple[AgentName, ...] = ("translator", "microarch", "shim", "verifier")
