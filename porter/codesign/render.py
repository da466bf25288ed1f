"""`porter codesign` as tables: memory plan, recipe changes and step time, source and target side by side."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from porter.codesign.plan import CodesignPlan


def _gb(x: float) -> str:
    return f"{x / 1e9:,.1f}"


def render(plan: CodesignPlan, console: Console) -> None:
    sides = (("source", plan.source), ("target as is", plan.target), ("target revised", plan.revised))
    head = [f"{label}\n{e.device}, batch {e.batch}" for label, e in sides]
    console.print(f"[bold]porter codesign[/] {plan.config}: {plan.gpus} GPU(s), "
                  f"{plan.source.device} -> {plan.target.device} (all figures predicted)")

    mem = Table(title="Memory per GPU (GB)", title_justify="left")
    mem.add_column("category")
    for h in head:
        mem.add_column(h, justify="right")
    for cat in plan.source.memory:
        mem.add_row(cat, *(_gb(e.memory[cat]) for _, e in sides))
    mem.add_row("[bold]peak[/]", *(f"[bold]{_gb(e.peak_bytes)}[/]" for _, e in sides))
    mem.add_row("usable", *(_gb(e.capacity_bytes) for _, e in sides))
    mem.add_row("fits", *(("yes" if e.fits else "[red]no[/]") for _, e in sides))
    mem.add_row("headroom", *(_gb(e.capacity_bytes - e.peak_bytes) for _, e in sides))
    mem.add_row("table pieces", *(f"{e.sharding.pieces} ({e.sharding.summary()})" for _, e in sides))
    console.print(mem)

    if plan.changes:
        ch = Table(title="Recipe changes for the target", title_justify="left")
        for col in ("change", "why", "predicted effect"):
            ch.add_column(col)
        for c in plan.changes:
            ch.add_row(c.what + (" [yellow](changes numerics)[/]" if c.numerics else ""), c.why, c.effect)
        console.print(ch)
    else:
        console.print("No recipe change is predicted to help on the target.")

    st = Table(title="Step time per GPU (ms)", title_justify="left")
    st.add_column("part")
    for h in head:
        st.add_column(h, justify="right")
    st.add_column("bound")
    names = list(dict.fromkeys(p.name for _, e in sides for p in e.parts))
    for name in names:
        cells, bound = [], ""
        for _, e in sides:
            part = next((p for p in e.parts if p.name == name), None)
            cells.append(f"{part.seconds * 1e3:.3f}" if part else "-")
            bound = bound or (part.bound if part else "")
        st.add_row(name, *cells, bound)
    st.add_row("host (kernel issue)", *(f"{e.host_seconds * 1e3:.3f}" for _, e in sides), "cpu")
    st.add_row("[bold]step[/]", *(f"[bold]{e.seconds * 1e3:.3f}[/]" for _, e in sides), "")
    st.add_row("samples/s (all GPUs)", *(f"{e.samples_per_second:,.0f}" for _, e in sides), "")
    console.print(st)

