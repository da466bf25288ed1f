"""What a person can type in a session: the keys at a decision and the slash commands.

Kept apart from the REPL so that `porter session --help` lists them without importing the graph.
"""

from __future__ import annotations

COMMANDS = {
    "/status": "units and verdicts, open hazards, where the run is",
    "/next": "run on to the next decision (after Ctrl-C, or to show the pending one again)",
    "/undo": "revert the last landed patch through the ledger (with git: porter's last unpushed commit)",
    "/ask QUESTION": "ask the model about the current unit; it edits nothing (needs --model)",
    "/evidence UNIT": "compile log, ISA table, numerics and perf estimate the verifier recorded",
    "/verify [UNIT]": "compile and check the unit (every unit) now, as the output tree stands",
    "/explain RULE": "a rule's documentation",
    "/approvals MODE": "review (ask on every patch), auto-verified (land, ask on failures), plan (propose only)",
    "/help": "this list",
    "/quit": "leave; everything is checkpointed (porter session --resume RUN_ID OUT)",
}
PATCH_KEYS = {"a": "accept", "r": "reject", "e": "edit in $EDITOR (lands as your patch, verified like any other)",
              "A": "accept the rest of this unit", "?": "explain the rules"}
ROUTE_KEYS = {"a": "go on: send the units back", "s": "stop the loop here and write the report", "?": "explain"}


def help_text() -> str:
    keys = "\n".join(f"  {k:<16} {v}" for k, v in PATCH_KEYS.items())
    cmds = "\n".join(f"  {k:<16} {v}" for k, v in COMMANDS.items())
    return f"At a patch:\n{keys}\nAt a verifier verdict: a go on, s stop, ? explain.\nCommands:\n{cmds}"
