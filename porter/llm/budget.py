"""What the model may spend in one run (calls, tokens, dollars) and what it has spent.

Spending is read from the run's `ModelCall` records, not kept in a counter, so a resumed run
knows what it already spent. Prices are data (prices.toml); a model with no known price costs
None, which a dollar budget refuses to guess at.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from porter.state import ModelCall, ModelOptions


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1e6


@cache
def _prices() -> dict[str, dict[str, list[float]]]:
    return tomllib.loads(resources.files("porter.llm").joinpath("prices.toml").read_text())


def price_of(model: str, override: tuple[float, float] | None = None) -> Price | None:
    """The price of a model spec ("anthropic:claude-sonnet-4-5"); `override` wins."""
    if override is not None:
        return Price(*override)
    provider, _, name = model.partition(":")
    listed = _prices().get(provider, {}).get(name)
    return Price(*listed) if listed else None


@dataclass(frozen=True)
class Usage:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0  # calls whose cost is unknown (not counted in cost_usd)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @classmethod
    def of(cls, calls: Iterable[ModelCall]) -> Usage:
        calls = list(calls)
        return cls(calls=len(calls), input_tokens=sum(c.input_tokens for c in calls),
                   output_tokens=sum(c.output_tokens for c in calls),
                   cost_usd=sum(c.cost_usd or 0.0 for c in calls),
                   unpriced_calls=sum(c.cost_usd is None and c.outcome != "error" for c in calls))


@dataclass(frozen=True)
class Budget:
    calls: int | None = None
    tokens: int | None = None
    usd: float | None = None

    @classmethod
    def of(cls, options: ModelOptions) -> Budget:
        return cls(calls=options.max_calls, tokens=options.max_tokens, usd=options.max_usd)

    def spent(self, usage: Usage) -> str | None:
        """Why no further call may be made, or None while the budget lasts."""
        if self.calls is not None and usage.calls >= self.calls:
            return f"{usage.calls} of {self.calls} calls"
        if self.tokens is not None and usage.tokens >= self.tokens:
            return f"{usage.tokens} of {self.tokens} tokens"
        if self.usd is not None and usage.cost_usd >= self.usd:
            return f"${usage.cost_usd:.4f} of ${self.usd:.2f}"
        return None

    def output_tokens(self, usage: Usage, default: int) -> int:
        """The most output tokens the next call may ask for."""
        if self.tokens is None:
            return default
        return max(1, min(default, self.tokens - usage.tokens))
