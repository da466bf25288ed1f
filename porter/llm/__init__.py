"""The agents' model: providers, prompts, the edit format, the repair conversation, record and replay.

    exchange.py   Prompt, Completion, the Provider protocol
    providers.py  anthropic, openai and openai-compatible clients behind `--model`
    scripted.py   ScriptedModel: canned answers, for tests
    cassette.py   --record DIR / --replay DIR
    prompts.py    prompts/<agent>/<task>.md.j2, rendered with strict variables
    edits.py      SEARCH/REPLACE blocks -> Patches, confined to the output tree
    budget.py     prices, usage, the calls/tokens/dollars budget
    session.py    Model: one conversation per ask, rejected edits sent back with the reason
    asks.py       what each agent asks, built from the run's state

The default is no model at all (rules only, fully offline). With one, agents ask it only about
what their rules left and what the verifier rejected; its patches land through the Workspace
and are verified like any rule's.
"""

from porter.llm.exchange import Completion, Message, Prompt, Provider, ProviderError
from porter.llm.scripted import ScriptedModel
from porter.llm.session import Ask, Model, open_model

__all__ = ["Ask", "Completion", "Message", "Model", "Prompt", "Provider", "ProviderError", "ScriptedModel",
           "open_model"]
