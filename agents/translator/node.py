"""translator: hipify CUDA/C++ sources and build files.

The first agent after `scan`. On the first pass it runs every registered HIP### rule over the
C/C++/CUDA files (renames on code tokens, headers, launches, library APIs, hazards for what has
no HIP equivalent) and every BLD### rule over CMake, Makefiles and setup.py. Its output is the
baseline of each unit: the direct-hipify port that the microarch agent must beat.

When the verifier sends a unit back with an error of the translator's classes (a CUDA name
left, a header not found), the tables have already said all they know: the attempt is recorded
so that the report shows what a person (or, later, the model) must take over.
"""

from __future__ import annotations

from porter.agents.verifier.failures import handback
from porter.rules import RuleContext, run_on_files
from porter.state import AgentOutput, PortState
from porter.workspace import Workspace

AGENT = "translator"


def translator(state: PortState, ws: Workspace) -> AgentOutput:
    if state.iteration > 0:
        return AgentOutput(attempts=tuple(handback(state, AGENT, "no translator rule covers this error")))
    findings, patches = run_on_files(AGENT, state.files, ws.read, RuleContext(state.options))
    return AgentOutput(findings=tuple(findings), patches=tuple(patches))
