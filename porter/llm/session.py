"""One conversation with the model about one unit, within the run's budget.

An agent hands the session an `Ask` (which prompt, which unit, the prompt's variables). The
session renders the prompt, asks the provider, and parses the answer into Patches in the one
edit format (edits.py). An answer whose edits do not apply goes back with the precise reason,
up to `edit_rounds` answers in all. Every call becomes a `ModelCall` record, which is also how
the budget is counted. The session never lands anything: the patches go back to the agent,
then through the Workspace like any rule's, and the verifier judges them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from porter.llm import prompts
from porter.llm.budget import Budget, Price, Usage, price_of
from porter.llm.cassette import Recorder, Replay
from porter.llm.edits import EditRejected, parse_answer, to_patches
from porter.llm.exchange import Message, Prompt, Provider, ProviderError
from porter.llm.providers import ModelSpecError, open_provider, parse_spec
from porter.state import ModelCall, ModelOptions, Patch

SYSTEM_PROMPT = "system"
REJECTED_PROMPT = "edit_rejected"
MAX_OUTPUT_TOKENS = 4096


@dataclass(frozen=True)
class Ask:
    agent: str
    task: str  # a prompt name, e.g. "microarch/inline_ptx"
    unit: str
    iteration: int
    variables: Mapping[str, object]
    target: str  # the arch, for the system prompt


@dataclass
class Proposal:
    """What one conversation produced: the patches to land (possibly none) and every call made."""

    patches: list[Patch] = field(default_factory=list)
    calls: list[ModelCall] = field(default_factory=list)
    stopped: str = ""  # why the conversation ended without a patch: budget, provider error, no edit


class Model:
    """A provider with the run's budget and price: what the agents ask through."""

    def __init__(self, provider: Provider, options: ModelOptions) -> None:
        self.provider = provider
        self.options = options
        self.budget = Budget.of(options)

    def price(self, model: str) -> Price | None:
        return price_of(model, self.options.price)

    def exhausted(self, calls: list[ModelCall]) -> str | None:
        """Why the budget allows no further call, given the calls made so far; None if it does."""
        return self.budget.spent(Usage.of(calls))

    def ask(self, ask: Ask, spent: list[ModelCall], read: Callable[[str], bytes | None]) -> Proposal:
        """Converse about `ask` until an answer's edits apply, none are proposed, or a limit is hit.

        `spent` is every call of the run so far (for the budget); `read` gives a file of the
        output tree as the agent sees it now, or None when it does not exist.
        """
        system = prompts.render(SYSTEM_PROMPT, target=ask.target)
        messages = [Message("user", prompts.render(ask.task, **ask.variables))]
        out = Proposal()
        for round_ in range(1, self.options.edit_rounds + 1):
            usage = Usage.of([*spent, *out.calls])
            if (why := self.budget.spent(usage)) is not None:
                out.stopped = f"model budget spent ({why})"
                return out
            prompt = Prompt(system=system, messages=tuple(messages), task=ask.task,
                            max_output_tokens=self.budget.output_tokens(usage, MAX_OUTPUT_TOKENS))
            record = dict(agent=ask.agent, task=ask.task, unit=ask.unit, iteration=ask.iteration, round=round_)
            try:
                answer = self.provider.complete(prompt)
            except ProviderError as e:
                out.calls.append(ModelCall(**record, model=self.provider.name, outcome="error", detail=str(e)[:500]))
                out.stopped = f"model error: {e}"
                return out
            price = self.price(answer.model)
            record |= dict(model=answer.model, input_tokens=answer.input_tokens, output_tokens=answer.output_tokens,
                           cost_usd=price.cost(answer.input_tokens, answer.output_tokens) if price else None)
            try:
                parsed = parse_answer(answer.text)
                patches = to_patches(parsed, read, agent=ask.agent)
            except EditRejected as e:
                out.calls.append(ModelCall(**record, outcome="edit-rejected", detail=str(e)))
                messages += [Message("assistant", answer.text),
                             Message("user", prompts.render(REJECTED_PROMPT, reason=str(e)))]
                continue
            if not patches:
                out.calls.append(ModelCall(**record, outcome="no-edit", detail=parsed.rationale[:500]))
                out.stopped = "the model proposed no edit"
                return out
            out.calls.append(ModelCall(**record, outcome="patched", detail=patches[0].reason,
                                       paths=tuple(p.path for p in patches)))
            out.patches = patches
            return out
        out.stopped = f"no applicable edit in {self.options.edit_rounds} answers"
        return out


def open_model(options: ModelOptions, provider: Provider | None = None) -> Model | None:
    """The run's model: `provider` if given, else a replay or the --model spec; None for rules only.

    `--record` wraps whichever it is. Raises ModelSpecError for a spec porter cannot use, or a
    dollar budget on a model with no known price.
    """
    if provider is None:
        if options.replay:
            if not Path(options.replay).is_dir():
                raise ModelSpecError(f"--replay {options.replay}: no such directory")
            provider = Replay(Path(options.replay))
        elif options.spec != "none":
            spec = parse_spec(options.spec)
            if options.max_usd is not None and price_of(str(spec), options.price) is None:
                raise ModelSpecError(f"--model-budget-usd: no known price for {spec}; pass --model-price IN,OUT "
                                     "(USD per million tokens)")
            provider = open_provider(spec, timeout_s=options.timeout_s, retries=options.retries)
        else:
            return None
    if options.record:
        provider = Recorder(provider, Path(options.record))
    return Model(provider, options)
