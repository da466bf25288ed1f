"""microarch: find (and where a rule can, fix) what breaks on a 64-lane CDNA wavefront.

Runs after the translator, on its output. The WAVE### and PTX### rules detect 32-lane warp
assumptions (32-bit masks, *_sync shuffles and votes, lane math with 31/32/5, 32-bit ballots,
per-warp arrays sized by 32, inline PTX). A rule with a safe fixer returns its edits as a
patch; the rest are hazards in the report. Its patches are what the verifier reverts first when
a unit's numbers stop matching.
"""

from __future__ import annotations

from porter.agents.verifier.failures import handback
from porter.rules import RuleContext, run_on_files
from porter.state import AgentOutput, PortState
from porter.workspace import Workspace

AGENT = "microarch"
# Inline assembly and tensor-core code become C++ first, so that the wavefront and LDS rules
# read what the port will compile (a ballot out of PTX005 is then widened by WAVE004).
STAGES = (("MFMA", "PTX"),)


def microarch(state: PortState, ws: Workspace) -> AgentOutput:
    if state.iteration > 0:
        return AgentOutput(attempts=tuple(handback(state, AGENT, "no microarch rule fixes this; see its hazards")))
    findings, patches = run_on_files(AGENT, state.files, ws.read, RuleContext(state.options), STAGES)
    return AgentOutput(findings=tuple(findings), patches=tuple(patches))
