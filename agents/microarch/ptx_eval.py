"""The symbolic evaluator the inline-PTX catalog runs: operands, values, and the entry registry.

`ptx_catalog` reads an asm block into `Instruction`s and `Operand`s; each instruction is
evaluated by the catalog entry (`@entry`, in ptx_entries) whose opcode pattern it matches, which
writes C++ expressions into an `Eval`. A module of its own, below both, so that the catalog imports
its entries and the entries import only this.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from porter import cuda_patterns as patterns
from porter import hardware

# The porting target's peak engine clock (porter.hardware: 2200 MHz on MI350X) and S_SLEEP's unit
# (AMD CDNA3 ISA, SOPP S_SLEEP: "approximately 64 * SIMM16[6:0] clocks"; the immediate is 7 bits).
SLEEP_CLOCK_MHZ = int(hardware.get(hardware.TARGET).spec.clock_mhz.value)
SLEEP_MAX = 127


class NotCovered(Exception):
    """The block, or one instruction of it, is not in the catalog."""


@dataclass(frozen=True)
class Operand:
    index: int  # $index in the normalised template
    output: bool
    constraint: str  # letters only: r, l, h, f, d, n, ...
    readwrite: bool  # "+r"
    tied: int | None  # an input constrained "0" starts as output 0
    expr: str
    simple: bool  # needs no parentheses
    pure: bool  # evaluating it twice, or not at all, changes nothing


@dataclass(frozen=True)
class Instruction:
    opcode: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.opcode} {', '.join(self.args)}".strip()



@dataclass
class Value:
    text: str
    simple: bool = False
    effect: bool = False  # reads changing state (a load, a clock): evaluate exactly once
    kind: str = ""  # "pred" for predicates
    source: Operand | None = None
    uses: int = 0


@dataclass
class Eval:
    operands: tuple[Operand, ...]
    regs: frozenset[str]
    env: dict[str, Value] = field(default_factory=dict)
    effects: list[str] = field(default_factory=list)  # statements with no result (stores, sleeps)
    temps: list[str] = field(default_factory=list)  # declarations a block statement needs
    families: list[str] = field(default_factory=list)
    entries: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    inputs: dict[int, Value] = field(default_factory=dict)
    touched: list[Value] = field(default_factory=list)  # sources read by the current instruction

    def __post_init__(self) -> None:
        for op in self.operands:
            if not op.output:
                self.inputs[op.index] = Value(op.expr, op.simple, not op.pure, source=op)

    # -- operands --------------------------------------------------------------------------
    def _ref(self, arg: str) -> int | None:
        m = re.fullmatch(r"\$(\d+)", arg)
        return int(m.group(1)) if m else None

    def value(self, arg: str) -> Value:
        i = self._ref(arg)
        if i is not None:
            if arg in self.env:
                return self.env[arg]
            op = self.operands[i]
            if not op.output:
                return self.inputs[i]
            if op.readwrite:
                if not op.pure:
                    raise NotCovered(f"in-out operand `{op.expr}` has side effects")
                return Value(op.expr, op.simple, source=op)
            tied = [v for k, v in self.inputs.items() if self.operands[k].tied == i]
            if tied:
                return tied[0]
            raise NotCovered(f"output {arg} read before it is written")
        if arg.startswith("!"):
            inner = self.value(arg[1:])
            if inner.kind != "pred":
                raise NotCovered(f"negated non-predicate `{arg}`")
            return Value(f"!{_paren(inner)}", True, inner.effect, "pred", inner.source)
        if arg in self.regs:
            if arg not in self.env:
                raise NotCovered(f"register {arg} read before it is written")
            return self.env[arg]
        if literal(arg) is not None:
            return Value(arg, True)  # PTX and C++ spell integer literals alike
        raise NotCovered(f"operand `{arg}`")

    def read(self, arg: str, *, bare: bool = False) -> str:
        """The C++ text of a source operand, parenthesised where it is not a primary expression
        (`bare`: as a whole function argument, where no parentheses are needed)."""
        v = self.value(arg)
        v.uses += 1
        self.touched.append(v)
        return v.text if bare else _paren(v)

    def arg(self, arg: str) -> str:
        return self.read(arg, bare=True)

    def read_pred(self, arg: str, *, bare: bool = False) -> str:
        if self.value(arg).kind != "pred":
            raise NotCovered(f"`{arg}` is not a predicate")
        return self.read(arg, bare=bare)

    def discard(self, arg: str) -> None:
        """An operand the rewrite does not need (a shuffle's member mask)."""
        v = self.value(arg)
        if v.effect:
            raise NotCovered(f"operand `{arg}` has side effects the rewrite would drop")

    def const(self, arg: str) -> int | None:
        """An integer the operand holds at compile time: a PTX literal, or an input that is a C literal."""
        i = self._ref(arg)
        if i is not None and not self.operands[i].output and arg not in self.env:
            lit = patterns.literal(self.operands[i].expr)
            return lit[0] if lit else None
        return literal(arg)

    def set(self, arg: str, text: str, *, simple: bool = False, effect: bool = False, kind: str = "") -> None:
        """Write a destination; the value has side effects when it reads changing state or a source does."""
        effect = effect or any(v.effect for v in self.touched)
        self.touched.clear()
        self.write(arg, Value(text, simple, effect, kind))

    def write(self, arg: str, value: Value) -> None:
        i = self._ref(arg)
        if i is not None:
            if not self.operands[i].output:
                raise NotCovered(f"write to input {arg}")
        elif arg not in self.regs:
            raise NotCovered(f"destination `{arg}`")
        self.env[arg] = value

    def effect(self, statement: str) -> None:
        """A statement with no result (a store, a sleep), in program order."""
        if any(v.effect for v in self.touched):
            raise NotCovered("a side-effecting value feeds a store or a sleep")
        self.touched.clear()
        self.effects.append(statement)

    def use(self, family: str, entry: str, note: str = "") -> None:
        self.families.append(family)
        self.entries.append(entry)
        if note and note not in self.notes:
            self.notes.append(note)


def _paren(v: Value) -> str:
    return v.text if v.simple else f"({v.text})"


def literal(arg: str) -> int | None:
    """A PTX integer literal: decimal, 0x hex, 0b binary, octal, with an optional U suffix."""
    m = re.fullmatch(r"(-?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)U?", arg)
    if not m:
        return None
    digits = m.group(2)
    value = int(digits, 8) if re.fullmatch(r"0[0-7]+", digits) else int(digits, 0)
    return -value if m.group(1) else value


Handler = Callable[[Eval, re.Match[str], tuple[str, ...]], None]
ENTRIES: list[tuple[re.Pattern[str], Handler]] = []


def entry(pattern: str) -> Callable[[Handler], Handler]:
    """Register a catalog entry for opcodes matching `pattern` (whole opcode)."""

    def register(fn: Handler) -> Handler:
        ENTRIES.append((re.compile(pattern), fn))
        return fn

    return register
