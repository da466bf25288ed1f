"""Prompt files: prompts/<agent>/<task>.md.j2, rendered by jinja2 with strict variables.

Code names a prompt by its path without the suffix ("repair/compile_error"). A variable the
template uses and the caller did not pass is an error (StrictUndefined), and so is a variable
passed that the template never uses: a prompt and its caller cannot drift apart silently.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

import jinja2
from jinja2 import meta

SUFFIX = ".md.j2"


class PromptError(KeyError):
    """No such prompt, or its variables and the caller's disagree."""


@cache
def _env() -> jinja2.Environment:
    root = resources.files("porter.prompts")
    # StrictUndefined: a missing variable raises instead of rendering as ''. Prompts are
    # markdown for a model, not HTML, so nothing is autoescaped.
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(root)), undefined=jinja2.StrictUndefined,
                              autoescape=False, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)


@cache
def variables(name: str) -> frozenset[str]:
    """The variables prompt `name` reads (its includes' included)."""
    env = _env()
    try:
        source = env.loader.get_source(env, name + SUFFIX)[0]  # type: ignore[union-attr]
    except jinja2.TemplateNotFound:
        raise PromptError(f"no prompt {name!r} (prompts/{name}{SUFFIX})") from None
    found = set(meta.find_undeclared_variables(env.parse(source)))
    for included in meta.find_referenced_templates(env.parse(source)):
        if included:
            found |= variables(included.removesuffix(SUFFIX))
    return frozenset(found)


def render(name: str, **values: object) -> str:
    """Prompt `name` with `values`; both a missing and an unused value are errors."""
    wanted = variables(name)
    extra = set(values) - wanted
    if extra:
        raise PromptError(f"prompt {name!r} does not use {sorted(extra)}; it reads {sorted(wanted)}")
    try:
        return _env().get_template(name + SUFFIX).render(**values)
    except jinja2.UndefinedError as e:
        raise PromptError(f"prompt {name!r}: {e.message}") from None


def names() -> list[str]:
    """Every prompt shipped, by name."""
    root = resources.files("porter.prompts")
    return sorted(str(p).removeprefix(str(root) + "/").removesuffix(SUFFIX)
                  for p in _walk(root) if str(p).endswith(SUFFIX))


def _walk(node):
    for child in node.iterdir():
        if child.is_dir():
            yield from _walk(child)
        else:
            yield child
