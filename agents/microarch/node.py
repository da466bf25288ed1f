"""microarch: find (and where a rule can, fix) what breaks on a 64-lane CDNA wavefront.

Runs after the translator, on its output. The WAVE### and PTX### rules detect 32-lane warp
assumptions (32-bit masks, *_sync shuffles and votes, lane math with 31/32/5, 32-bit ballots,
per-warp arrays sized by 32, inline PTX). A rule with a safe fixer returns its edits as a
patch; the rest are hazards in the report, or, when the run has a model, its to rewrite (prompts
microarch/wave64 and microarch/inline_ptx). Its patches are what the verifier reverts first when
a unit's numbers stop matching; a mismatch with no rule patch left to revert, a slower port, or
a wavefront compile error goes to the model with the verifier's evidence.
"""

from __future__ import annotations

from porter.llm import asks
from porter.llm.session import Model
from porter.rules import RuleContext, run_on_files, stages
from porter.state import AgentOutput, PortState
from porter.workspace import Workspace

AGENT = "microarch"
STAGES = stages(AGENT)  # MFMA and PTX rules first (porter.rules.STAGES)


def microarch(state: PortState, ws: Workspace, model: Model | None = None) -> AgentOutput:
    if state.iteration > 0:
        return asks.failures(state, ws, AGENT, model, "no microarch rule fixes this; see its hazards").output()
    findings, patches = run_on_files(AGENT, state.files, ws.read, RuleContext(state.options), STAGES)
    return asks.hazards(state, ws, AGENT, model, findings, patches, STAGES).output(findings, patches)
