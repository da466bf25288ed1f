"""translator: hipify CUDA/C++ sources and build files.

The first agent after `scan`. On the first pass it runs every registered HIP### rule over the
C/C++/CUDA files (renames on code tokens, headers, launches, library APIs, hazards for what has
no HIP equivalent) and every BLD### rule over CMake, Makefiles and setup.py. Its output is the
baseline of each unit: the direct-hipify port that the microarch agent must beat.

What the tables cannot translate goes to the model when the run has one (prompt
translator/translate). When the verifier sends a unit back with an error of the translator's
classes (a CUDA name left, a header not found, a syntax error), the tables have already said
all they know: the model is asked to repair it with the compiler's messages, or, without a
model, the attempt is recorded so that the report shows what a person must take over.
"""

from __future__ import annotations

from porter.llm import asks
from porter.llm.session import Model
from porter.rules import RuleContext, run_on_files
from porter.state import AgentOutput, PortState
from porter.workspace import Workspace

AGENT = "translator"


def translator(state: PortState, ws: Workspace, model: Model | None = None) -> AgentOutput:
    if state.iteration > 0:
        return asks.failures(state, ws, AGENT, model, "no translator rule covers this error").output()
    findings, patches = run_on_files(AGENT, state.files, ws.read, RuleContext(state.options))
    return asks.hazards(state, ws, AGENT, model, findings, patches).output(findings, patches)
