"""porter's command line: parse flags, call one function elsewhere, render.

Exit codes: 0 ported and verified; 1 ported with open hazards or failures, or source files not
ported; 2 bad input (arguments, an unusable output tree); 3 porter failed (a bug in porter: an
exception in a rule, a parser or a step; the report lists the units it left incomplete).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from porter import __version__

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Port CUDA C++ to ROCm for AMD Instinct MI350X (gfx950), with evidence.")
console = Console()
err = Console(stderr=True)

STEPS = {"scan": "inventory", "translator": "hipify", "microarch": "wave64 checks", "shim": "compat headers",
         "verifier": "compile for the target", "report": "report"}


def _version(value: bool) -> None:
    if value:
        console.print(f"porter {__version__}")
        raise typer.Exit()


@app.callback()
def main(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                               help="Print the version and exit.")] = False) -> None:
    """porter: an agentic porting toolkit for moving GPU code from NVIDIA to AMD."""


def _bad_input(message: str) -> typer.Exit:
    err.print(f"[bold red]error:[/] {escape(message)}")
    return typer.Exit(2)


def _porter_failed(exc: Exception, output: Path) -> typer.Exit:
    """The last line of containment: an exception no node caught. Exit 3, never a traceback."""
    from porter.containment import describe, porter_frame

    if os.environ.get("PORTER_DEBUG") == "1":
        raise exc
    err.print(f"[bold red]porter failed[/] (exit 3, a bug in porter): {escape(describe(exc))} "
              f"(at {escape(porter_frame(exc))}); what was written is in {escape(str(output))}")
    return typer.Exit(3)


@app.command()
def port(
    source: Annotated[Path, typer.Argument(help="Directory of CUDA code (read only).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Output tree for the port.")],
    launch: Annotated[str, typer.Option(help="Kernel launches: keep `chevron` (<<<>>>, valid HIP) or "
                                             "rewrite to `hipLaunchKernelGGL`.")] = "chevron",
    arch: Annotated[str, typer.Option(help="AMD target.")] = "gfx950",
    matrix: Annotated[str, typer.Option(help="Tensor-core rewrites: `porter` MFMA helpers or `rocwmma`.")] = "porter",
    blas: Annotated[str, typer.Option(help="cuBLAS to `hipblas` or straight to `rocblas`.")] = "hipblas",
    sparse: Annotated[str, typer.Option(help="cuSPARSE to `hipsparse` or `rocsparse`.")] = "hipsparse",
    solver: Annotated[str, typer.Option(help="cuSOLVER to `hipsolver` or `rocsolver`.")] = "hipsolver",
    rand: Annotated[str, typer.Option(help="cuRAND to `hiprand` or `rocrand`.")] = "hiprand",
    dnn: Annotated[str, typer.Option(help="cuDNN: `none` (reported for a person) or `miopen` (renamed).")] = "none",
    max_iterations: Annotated[int, typer.Option(help="Verifier loop budget.")] = 3,
    verify: Annotated[bool, typer.Option(help="Compile the port and the original.")] = True,
    executor: Annotated[str, typer.Option(help="Also run the kernels with specs: none, hip-on-cuda (NVIDIA GPU, "
                                               "AMD wave semantics emulated) or rocm (AMD GPU).")] = "none",
    force: Annotated[bool, typer.Option(help="Port into a non-empty output directory.")] = False,
    resume: Annotated[str | None, typer.Option(help="Continue the interrupted run RUN_ID in OUTPUT.")] = None,
    model: Annotated[str, typer.Option(help="Model the agents may ask about what no rule fixed: none, "
                                            "anthropic:MODEL, openai:MODEL or openai-compatible:URL#MODEL. "
                                            "Keys come from the environment only.")] = "none",
    record: Annotated[Path | None, typer.Option(help="Write every model exchange to DIR as a cassette.")] = None,
    replay: Annotated[Path | None, typer.Option(help="Answer from the cassettes in DIR; no network.")] = None,
    model_budget_calls: Annotated[int | None, typer.Option(help="At most this many model calls.")] = None,
    model_budget_tokens: Annotated[int | None, typer.Option(help="At most this many tokens, in and out.")] = None,
    model_budget_usd: Annotated[float | None, typer.Option(help="At most this many US dollars.")] = None,
    model_price: Annotated[str | None, typer.Option(help="IN,OUT: USD per million input and output tokens, "
                                                         "for a model porter has no price for.")] = None,
    model_timeout: Annotated[float, typer.Option(help="Seconds per model request.")] = 120.0,
    model_retries: Annotated[int, typer.Option(help="Retries of a failed model request, with backoff.")] = 3,
    cluster: Annotated[str, typer.Option(help="Where per-unit work runs: `local` (this process), `ray` (Ray's "
                                              "default: RAY_ADDRESS or a local Ray) or ray://HOST:PORT.")] = "local",
    cluster_wait: Annotated[float, typer.Option(help="Seconds to wait for a Ray node that offers what a task needs "
                                                     "before that task's units are reported not-checked.")] = 60.0,
    cluster_task_timeout: Annotated[float, typer.Option(help="Seconds a Ray map waits for its tasks' results; a unit "
                                                             "whose task gave none is reported not-checked.")] = 3600.0,
    jobs: Annotated[int, typer.Option(help="With --cluster local: processes for the rule runs (1: this one; "
                                           "more: JOBS workers, started before the port, fed by this one); 0: "
                                           "every core for a tree with 4 MiB of code or more, else 1.")] = 0,
) -> None:
    """Port SOURCE into OUTPUT and write porter-report.{md,json,sarif} there."""
    from pydantic import ValidationError

    from porter.cluster import ClusterError, auto_processes, open_dispatcher
    from porter.graph import report_context
    from porter.report import build_report
    from porter.report.console import render_console
    from porter.run import port as run_port
    from porter.state import ModelOptions, PortOptions
    from porter.workspace import BadInput

    try:
        price = tuple(float(x) for x in model_price.split(",")) if model_price else None
    except ValueError:
        raise _bad_input(f"--model-price {model_price!r}: expected IN,OUT in USD per million tokens") from None
    try:
        model_options = ModelOptions(spec=model, record=str(record.resolve()) if record else "",
                                     replay=str(replay.resolve()) if replay else "",
                                     max_calls=model_budget_calls, max_tokens=model_budget_tokens,
                                     max_usd=model_budget_usd, price=price, timeout_s=model_timeout,
                                     retries=model_retries)
        options = PortOptions(launch=launch, matrix=matrix, arch=arch, max_iterations=max_iterations, verify=verify,
                              executor=executor, force=force, model=model_options,
                              blas=blas, sparse=sparse, solver=solver, rand=rand, dnn=dnn)
    except ValidationError as e:
        loc = ".".join(str(part) for part in e.errors()[0]["loc"])
        raise _bad_input(f"bad option: {loc}: {e.errors()[0]['msg']}") from None
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True, disable=not err.is_terminal) as progress:
        tasks: dict[str, TaskID] = {}

        def on_progress(event) -> None:
            if event.node not in tasks:
                tasks[event.node] = progress.add_task(f"{event.node}: {STEPS.get(event.node, '')}", total=event.total)
            progress.update(tasks[event.node], completed=event.done, total=event.total,
                            description=f"{event.node}: {STEPS.get(event.node, '')} {event.item}".rstrip())

        try:
            processes = jobs if jobs > 0 else auto_processes(source)
            dispatcher = open_dispatcher(cluster, processes=processes, resource_wait_s=cluster_wait,
                                         task_timeout_s=cluster_task_timeout)
        except (ClusterError, ValueError) as e:
            raise _bad_input(str(e)) from None
        try:
            state = run_port(source, output, options, resume=resume, on_progress=on_progress, dispatcher=dispatcher)
        except BadInput as e:
            raise _bad_input(str(e)) from None
        except Exception as e:  # noqa: BLE001 - contained: see _porter_failed
            raise _porter_failed(e, output) from None
        finally:
            dispatcher.close()
    try:
        report = build_report(state, **report_context())
        render_console(report, console)
    except Exception as e:  # noqa: BLE001 - contained: see _porter_failed
        raise _porter_failed(e, output) from None
    console.print(f"run id [bold]{state.run_id}[/] (resume with --resume {state.run_id})")
    raise typer.Exit(report.exit_code)


def _session_help() -> str:
    from porter.session.commands import COMMANDS, PATCH_KEYS

    keys = "\n".join(f"  {k:<16} {v}" for k, v in PATCH_KEYS.items())
    cmds = "\n".join(f"  {k:<16} {v}" for k, v in COMMANDS.items())
    return (f"\b\nAt each patch:\n{keys}\n\n\b\nAt a verifier verdict that routes back: a go on, s stop.\n\n"
            f"\b\nCommands:\n{cmds}")


@app.command(epilog=_session_help())
def session(
    path: Annotated[Path, typer.Argument(help="SOURCE to port, or with --resume the OUTPUT of the session.")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Output tree for the port.")] = None,
    resume: Annotated[str | None, typer.Option(help="Continue session RUN_ID in OUTPUT (given as PATH).")] = None,
    approvals: Annotated[str, typer.Option(help="review (ask on every patch), auto-verified (land patches, ask "
                                                "when the verifier sends units back) or plan (propose only).")]
    = "review",
    git: Annotated[bool | None, typer.Option("--git/--no-git", help="Commit each reviewed unit (default: when "
                                                                     "OUTPUT is the top of a git work tree).")] = None,
    arch: Annotated[str, typer.Option(help="AMD target.")] = "gfx950",
    max_iterations: Annotated[int, typer.Option(help="Verifier loop budget.")] = 3,
    verify: Annotated[bool, typer.Option(help="Compile the port and the original.")] = True,
    executor: Annotated[str, typer.Option(help="Also run the kernels with specs: none, hip-on-cuda or rocm.")]
    = "none",
    force: Annotated[bool, typer.Option(help="Port into a non-empty output directory.")] = False,
    model: Annotated[str, typer.Option(help="Model for the agents and for /ask: none, anthropic:MODEL, "
                                            "openai:MODEL or openai-compatible:URL#MODEL.")] = "none",
    record: Annotated[Path | None, typer.Option(help="Write every model exchange to DIR as a cassette.")] = None,
    replay: Annotated[Path | None, typer.Option(help="Answer from the cassettes in DIR; no network.")] = None,
) -> None:
    """Port SOURCE into OUTPUT interactively: review each patch before it lands, steer, stop and resume."""
    import sys

    from pydantic import ValidationError

    from porter.llm.providers import ModelSpecError
    from porter.session.controller import Session
    from porter.session.repl import Repl, line_reader, prompt_reader
    from porter.state import ModelOptions, PortOptions
    from porter.workspace import BadInput

    try:
        if resume is not None:
            if output is not None:
                raise _bad_input("with --resume, give the session's OUTPUT as the argument, not -o")
            s = Session.resume(resume, path)
        else:
            if output is None:
                raise _bad_input("-o OUTPUT is required (or --resume RUN_ID OUTPUT)")
            model_options = ModelOptions(spec=model, record=str(record.resolve()) if record else "",
                                         replay=str(replay.resolve()) if replay else "")
            options = PortOptions(arch=arch, max_iterations=max_iterations, verify=verify, executor=executor,
                                  force=force, model=model_options)
            s = Session.start(path, output, options, approvals=approvals, git=git)
    except ValidationError as e:
        loc = ".".join(str(part) for part in e.errors()[0]["loc"])
        raise _bad_input(f"bad option: {loc}: {e.errors()[0]['msg']}") from None
    except (BadInput, ModelSpecError) as e:
        raise _bad_input(str(e)) from None
    read = prompt_reader() if sys.stdin.isatty() else line_reader(sys.stdin, echo=console)
    with s:
        code = Repl(s, console, read).run()
    raise typer.Exit(code)


@app.command()
def verify(
    output: Annotated[Path, typer.Argument(help="A tree `porter port` wrote.")],
    executor: Annotated[str, typer.Option(help="cuda (the original), hip-on-cuda (the port on NVIDIA with "
                                               "AMD wave64 semantics), rocm (the port on an AMD GPU) or gfx950 "
                                               "(build the port for gfx950 only: compiled, never verified).")
                        ] = "hip-on-cuda",
    source: Annotated[Path | None, typer.Option(help="The original tree (default: the one the port came from).")] = None,
    arch: Annotated[str | None, typer.Option(help="Target of the executor (sm_90, gfx950, ...).")] = None,
    check_timeout: Annotated[float | None, typer.Option(help="Seconds per build or run step of a project's own "
                                                             "check (default 300).")] = None,
    jobs: Annotated[int, typer.Option(help="The project's checks to run at a time.")] = 1,
) -> None:
    """Run OUTPUT's kernel specs (porter.toml), else the project's own checks, original against port.

    Exit 0 only when every unit had a check that ran and passed; 1 otherwise, with the reason."""
    from porter.verify.evidence import verify_output, write_evidence
    from porter.verify.spec import SpecError

    try:
        evidence = verify_output(output, executor, source=source, arch=arch, check_timeout=check_timeout,
                                 jobs=jobs)
    except (FileNotFoundError, SpecError, ValueError) as e:
        raise _bad_input(str(e)) from None
    if evidence.kernels:
        table = Table(title=f"porter verify ({evidence.executor}): kernel specs")
        for col in ("unit", "kernel", "port", "baseline", "vs baseline"):
            table.add_column(col)
        for k in evidence.kernels:
            t = k.timing_vs_baseline
            table.add_row(k.unit, k.kernel, k.port.status, k.baseline.status if k.baseline else "-",
                          f"{t.verdict} ({t.ratio:.2f}x)" if t else "-")
        console.print(table)
    if evidence.checks or evidence.discovery is not None:
        table = Table(title=f"porter verify ({evidence.executor}): the project's own checks")
        for col in ("check", "from", "result", "detail"):
            table.add_column(col)
        for v in evidence.checks:
            table.add_row(v.check.name, v.check.origin, v.status, v.reason[:200])
        for u in evidence.discovery.undiscovered if evidence.discovery else ():
            table.add_row("-", u.where, "not a check", u.reason)
        console.print(table)
    units = Table(title="units")
    for col in ("unit", "verdict", "by"):
        units.add_column(col)
    for u in evidence.units:
        units.add_row(u.unit, u.status, u.reason[:200])
    console.print(units)
    for path in write_evidence(evidence, output):
        console.print(f"  {path}")
    if not evidence.passed:
        err.print("[bold]not verified:[/] " + "; ".join(evidence.failures)[:2000])
    raise typer.Exit(0 if evidence.passed else 1)


@app.command()
def scan(source: Annotated[Path, typer.Argument(help="Directory of CUDA code (read only).")]) -> None:
    """Inventory and hazards of SOURCE, as tables. Writes nothing."""
    from porter.inventory import hazards, inventory

    if not source.is_dir():
        raise _bad_input(f"{source}: not a directory")
    inv = inventory(source)
    files = Table(title=f"{source}: files")
    for col in ("path", "kind", "lines", "note"):
        files.add_column(col)
    for f in inv.files:
        files.add_row(f.path, f.kind.value, str(f.lines), f.note)
    console.print(files)
    kernels = Table(title="kernels")
    for col in ("kernel", "where", "launches", "static shared B", "warp ops"):
        kernels.add_column(col)
    for k in inv.kernels:
        shared = "?" if k.static_shared_bytes is None else str(k.static_shared_bytes)
        kernels.add_row(k.name, str(k.location), str(len(k.launches)), shared, " ".join(k.warp_ops))
    console.print(kernels)
    found = hazards(source, inv)
    table = Table(title=f"hazards ({len(found)})")
    for col in ("rule", "severity", "where", "message"):
        table.add_column(col)
    for f in found:
        table.add_row(f.rule, f.severity.value, str(f.location), f.message)
    console.print(table)
    raise typer.Exit(1 if any(f.severity.value in ("error", "warning") for f in found) else 0)


cluster_app = typer.Typer(no_args_is_help=True, help="Plan a port on a Ray cluster (porter port --cluster ray).")
app.add_typer(cluster_app, name="cluster")


@cluster_app.command("plan")
def cluster_plan(
    source: Annotated[Path, typer.Argument(help="Directory of CUDA code (read only).")],
    durations: Annotated[Path | None, typer.Option(help="OUT of a port of this tree: replay the durations its "
                                                        "tasks took (OUT/.porter/task-durations.json).")] = None,
    nodes: Annotated[str, typer.Option(help="Node counts to predict, comma-separated.")] = "1,8,64",
    cpus_per_node: Annotated[int, typer.Option(help="CPUs per node (and clang22, nvcc slots).")] = 16,
    gpus_per_node: Annotated[int, typer.Option(help="GPUs per node.")] = 8,
    executor: Annotated[str, typer.Option(help="With a porter.toml: the GPU checks' executor (none, hip-on-cuda, "
                                               "rocm), which names their accelerator type.")] = "none",
    every_task: Annotated[bool, typer.Option("--tasks", help="List every task, in the order submitted.")] = False,
) -> None:
    """The tasks a port of SOURCE submits, their resources, and its predicted wall time on N nodes."""
    from porter import makespan
    from porter.cluster import DURATIONS_FILE
    from porter.graph import units_of
    from porter.state import PortState

    if not source.is_dir():
        raise _bad_input(f"{source}: not a directory")
    try:
        counts = [int(n) for n in nodes.split(",")]
    except ValueError:
        raise _bad_input(f"--nodes {nodes!r}: expected counts like 1,8,64") from None
    if durations is not None:
        recorded = durations / ".porter" / DURATIONS_FILE
        if not recorded.is_file():
            raise _bad_input(f"{recorded}: no task durations here (written by porter port since porter 0.1)")
        stages = makespan.from_durations(recorded)
    else:
        source = source.resolve()
        stages = makespan.from_tree(source, lambda files: units_of(
            PortState(run_id="plan", source=str(source), output="", files=files)), executor)
    shape = makespan.NodeShape(cpus=cpus_per_node, gpus=gpus_per_node)
    typer.echo(makespan.render(stages, counts, shape, measured=durations is not None,
                               executor="rocm" if executor == "none" else executor, every_task=every_task))


@app.command("rules")
def list_rules() -> None:
    """The rule catalog."""
    from porter import catalog

    table = Table(title="porter rules")
    for col in ("id", "agent", "severity", "fix", "title"):
        table.add_column(col)
    for r in catalog.catalog().values():
        table.add_row(r.id, r.agent, r.severity, r.fix, r.title)
    console.print(table)


@app.command()
def explain(rule_id: Annotated[str, typer.Argument(help="A rule id, e.g. HIP001.")]) -> None:
    """Print one rule's documentation and where it lives."""
    from porter import catalog

    try:
        r = catalog.get(rule_id)
    except KeyError as e:
        raise _bad_input(str(e.args[0])) from None
    console.print(f"[bold]{r.id}[/] ({r.agent}, {r.severity}, fix: {r.fix})  {r.module}")
    console.print(r.doc.strip(), markup=False, highlight=False)


@app.command()
def hw(name: Annotated[str | None, typer.Argument(help="A device (MI350X, h200) or arch (gfx950, sm_90).")] = None
       ) -> None:
    """The devices porter models, or one device's figures with their sources."""
    from porter import hardware

    if name is None:
        table = Table(title="porter hardware")
        for col in ("device", "arch", "CUs", "clock MHz", "bf16 TFLOP/s", "fp8 TFLOP/s", "HBM TB/s", "LDS/CU KiB"):
            table.add_column(col)
        for d in hardware.devices():
            rate = {k: v.value for k, v in d.matrix_tflops.items()}
            table.add_row(d.name, d.arch, str(d.cus), f"{d.spec.clock_mhz.value:g}", f"{rate.get('bf16', 0):g}",
                          f"{rate.get('fp8', 0):g}", f"{d.spec.hbm_tbps.value:g}",
                          f"{d.spec.lds_bytes_per_cu.value / 1024:g}")
        console.print(table)
        return
    try:
        dev = hardware.get(name)
    except KeyError as e:
        raise _bad_input(str(e.args[0])) from None
    table = Table(title=f"{dev.name} ({dev.arch}, {dev.vendor})")
    for col in ("field", "value", "source"):
        table.add_column(col)
    for field, value, source in dev.rows():
        table.add_row(field, value, source)
    console.print(table)


@app.command()
def tune(
    op: Annotated[str, typer.Option(help="matmul, or a memory-bound op: elementwise, reduction, softmax, layernorm.")],
    shape: Annotated[str, typer.Option(help="M,N,K for matmul; N for elementwise; ROWS,COLS otherwise.")],
    dtype: Annotated[str, typer.Option(help="bf16, fp16, fp8 or fp32.")] = "bf16",
    arch: Annotated[str, typer.Option(help="Target device or arch.")] = "gfx950",
    layout: Annotated[str, typer.Option(help="matmul operand layout of C = A @ B, row-major storage: nn (B[K,N]), "
                                             "nt (B as W[N,K], a linear layer), tn, tt.")] = "nt",
    persistent: Annotated[bool, typer.Option(help="matmul: one program per CU walks the tiles.")] = False,
    triton: Annotated[str | None, typer.Option(
        "--triton", help="matmul: the Triton release that compiles the kernel (e.g. 3.9.0), where its code "
                         "generation changes the cost; default: the installed one, if any.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the pick, runner-up and prediction as JSON.")] = False,
) -> None:
    """The perfmodel's launch config for one shape, with no GPU and no warm-up: pick and runner-up."""
    import json
    from dataclasses import asdict

    from porter import hardware
    from porter.perfmodel import Traits, select
    from porter.perfmodel.gemm import triton_release

    try:
        dims = tuple(int(x) for x in shape.split(","))
    except ValueError as e:
        raise _bad_input(f"--shape {shape}: {e}") from None
    if triton is None:
        from importlib import metadata

        try:
            triton = metadata.version("triton")
        except metadata.PackageNotFoundError:
            pass
    try:
        release = triton_release(triton) if triton else None
        sel = select(op, dims, dtype, arch, Traits(layout, persistent, release))
    except (ValueError, KeyError) as e:
        raise _bad_input(str(e.args[0])) from None
    vendor = hardware.get(sel.device).vendor
    picks = [("pick", sel.best)] + ([("runner-up", sel.runner_up)] if sel.runner_up else [])
    if as_json:
        def pred(p) -> dict:
            return {"config": asdict(p.config), "label": p.config.label(), "knobs": p.config.knobs(vendor),
                    "time_s": p.time_s, "tflops": p.tflops, "bound": p.bound, "lds_bytes": p.lds_bytes,
                    "workgroups_per_cu": p.resident, "waves": p.waves, "registers": p.registers}
        print(json.dumps({"op": op, "shape": list(dims), "dtype": dtype, "device": sel.device,
                          "layout": layout if sel.op in ("matmul", "gemm") else None, "persistent": persistent,
                          "triton": triton, "pick": pred(sel.best), "runner_up": pred(sel.runner_up) if sel.runner_up else None,
                          "considered": sel.considered, "select_s": sel.seconds - sel.table_seconds,
                          "table_s": sel.table_seconds, "predicted": True}, indent=2))
        return
    traits = f" {layout}{' persistent' if persistent else ''}" if op in ("matmul", "gemm") else ""
    table = Table(title=f"porter tune: {op} {'x'.join(map(str, dims))} {dtype}{traits} on {sel.device}")
    table.add_column("")
    for label, _ in picks:
        table.add_column(label)

    def cells(p) -> list[str]:
        return [p.config.label(), *map(str, p.config.knobs(vendor).values()), f"{p.time_s * 1e6:.1f} us",
                f"{p.tflops:.0f}" if p.tflops else "-", p.bound, str(p.lds_bytes), str(p.resident), str(p.waves)]

    names = ["config", *sel.best.config.knobs(vendor), "predicted time", "TFLOP/s", "bound by", "LDS bytes",
             "workgroups per CU", "waves over the device"]
    for name, *row in zip(names, *(cells(p) for _, p in picks)):
        table.add_row(name, *row)
    console.print(table)
    console.print(f"{sel.considered} legal configs scored in {(sel.seconds - sel.table_seconds) * 1e3:.2f} ms"
                  + (f" (+ {sel.table_seconds * 1e3:.1f} ms building the candidate table, once per process)"
                     if sel.table_seconds > 1e-3 else ""), style="dim")
    console.print("predicted by porter's analytical model (porter/perfmodel); not measured", style="dim")


@app.command()
def codesign(
    config: Annotated[Path, typer.Argument(help="A training step as TOML or YAML (see porter/codesign/examples/).")],
    source: Annotated[str, typer.Option("--from", help="The device the recipe was made for (b200, h200, ...).")],
    target: Annotated[str, typer.Option("--to", help="The device to revise it for.")] = "mi350x",
    gpus: Annotated[int | None, typer.Option(help="GPUs of the job (default: the config's).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
) -> None:
    """Revise a training recipe for the target: memory plan, recipe changes, predicted step time."""
    import json

    from porter.codesign import ConfigError, load_config
    from porter.codesign import codesign as plan_for
    from porter.codesign.render import render

    if gpus is not None and gpus < 1:
        raise _bad_input(f"--gpus {gpus}: needs at least one GPU")
    try:
        plan = plan_for(load_config(config), source, target, gpus)
    except ConfigError as e:
        raise _bad_input(str(e)) from None
    except KeyError as e:
        raise _bad_input(str(e.args[0])) from None
    if as_json:
        print(json.dumps(plan.to_dict(), indent=2))
    else:
        render(plan, console)


@app.command()
def github(
    checkout: Annotated[Path, typer.Argument(help="The repository checkout (fetch-depth 0).")] = Path("."),
    event: Annotated[Path | None, typer.Option(envvar="GITHUB_EVENT_PATH", help="The pull_request event "
                                                                                 "payload (the Action's).")] = None,
    base: Annotated[str | None, typer.Option(help="Local dry run: the base revision.")] = None,
    head: Annotated[str | None, typer.Option(help="Local dry run: the head revision.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what would be posted; post nothing.")] = False,
    sarif: Annotated[Path | None, typer.Option(help="Write the open hazards as SARIF here.")] = None,
    model: Annotated[str, typer.Option(help="Model for what no rule fixes (never on fork PRs).")] = "none",
    verify: Annotated[bool, typer.Option(help="Compile the port for the target.")] = True,
    fail_on_findings: Annotated[bool, typer.Option(help="Exit with porter's code, not 0, when it fails.")] = False,
) -> None:
    """Review a pull request's CUDA/Triton change: check run, review with suggestions, summary comment."""
    import json
    import sys

    from porter.github.action import env_paths, run

    if event is not None and base is None and not event.is_file():
        raise _bad_input(f"{event}: no event file")
    step_summary, github_output = env_paths()
    try:
        code = run(checkout, event=json.loads(event.read_text()) if event is not None and base is None else None,
                   base=base, head=head, dry_run=dry_run, sarif=sarif, model=model,
                   token=os.environ.get("GITHUB_TOKEN"), api_url=os.environ.get("GITHUB_API_URL"), out=sys.stdout,
                   step_summary=step_summary, github_output=github_output, verify=verify)
    except ValueError as e:
        raise _bad_input(str(e)) from None
    raise typer.Exit(code if fail_on_findings else 0)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port; the webhook is POST /webhook.")] = 8000,
    db: Annotated[Path, typer.Option(help="SQLite file for deliveries and jobs.")] = Path("porter-app.sqlite"),
    work: Annotated[Path, typer.Option(help="Scratch directory for checkouts and ports.")] = Path("porter-app-work"),
    api_url: Annotated[str, typer.Option(help="GitHub API root (GitHub Enterprise: https://HOST/api/v3).")]
    = "https://api.github.com",
    executor: Annotated[str, typer.Option(help="Executor for /porter verify: none, hip-on-cuda or rocm.")] = "none",
) -> None:
    """Serve the GitHub App's webhook. Secrets: PORTER_WEBHOOK_SECRET, PORTER_APP_ID, PORTER_APP_PRIVATE_KEY."""
    import uvicorn

    from porter.github.app import Settings, SettingsError, create_app

    try:
        settings = Settings.from_env(dict(os.environ), db=db.resolve(), work=work.resolve(), api_url=api_url,
                                     executor=executor)
    except SettingsError as e:
        raise _bad_input(str(e)) from None
    uvicorn.run(create_app(settings), host=host, port=port)


if os.environ.get("PORTER_DEBUG") == "1":  # tracebacks for developers; users get one-line errors
    app.pretty_exceptions_enable = True
