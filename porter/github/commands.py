"""Slash commands: `/porter ...` on the first line of a new pull-request comment, and nowhere else.

Only the first line counts, so a quoted reply ("> /porter port") or a command mentioned in
prose does nothing; an edited comment is never a command (the webhook ignores `edited`).
"""

from __future__ import annotations

from dataclasses import dataclass

from porter.rules import RULE_ID

VERBS = ("port", "verify", "explain", "retry", "stop", "help")


@dataclass(frozen=True)
class Command:
    verb: str
    args: tuple[str, ...] = ()


class NotACommand(ValueError):
    """The comment is not addressed to porter, or says something porter does not understand."""


def parse(body: str) -> Command:
    """The command on the first line of `body`, or NotACommand with a reason."""
    first = body.lstrip("\ufeff").split("\n", 1)[0].strip()
    words = first.split()
    if not words or words[0] != "/porter":
        raise NotACommand("the first line does not start with /porter")
    if len(words) == 1:
        return Command("help")
    verb, args = words[1].lower(), tuple(words[2:])
    if verb not in VERBS:
        raise NotACommand(f"unknown command {verb!r}; one of {', '.join(VERBS)}")
    if verb == "explain":
        if len(args) != 1 or not RULE_ID.match(args[0].upper()):
            raise NotACommand("/porter explain takes one rule id, e.g. WAVE003")
        return Command(verb, (args[0].upper(),))
    if verb == "port":
        for a in args:
            if a.startswith("/") or ".." in a.split("/"):
                raise NotACommand(f"/porter port: {a!r} is not a path inside the repository")
        return Command(verb, args)
    if args:
        raise NotACommand(f"/porter {verb} takes no arguments")
    return Command(verb)
