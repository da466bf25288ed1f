"""Co-design: revise a training recipe for the target device instead of porting it as it is.

`codesign(cfg, "b200", "mi350x")` estimates the step on the source device as configured, on the
target as configured, and on the target after each recipe change that the target's figures make
worth it, in this order (each change is kept only when it is predicted to help):
1. table placement: the target's HBM may hold tables whole that the source had to split
   (fewer, larger shards, less all-to-all traffic);
2. activation recomputation off, when the target holds the activations;
3. the GEMM dtype: a type the target has no native rate for (TF32 on gfx950) moves to bf16; a
   faster type the target has (fp8) is proposed, marked as changing numerics;
4. embedding updates on the rows a step touched (fused, sparse) instead of the whole table;
5. the batch per GPU: the candidate with the highest predicted throughput that fits.
Each change says what, why (a device figure with its source from porter/hardware) and its
predicted effect on the step. Pure functions: no GPU, no I/O.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from porter import hardware
from porter.codesign.config import TrainingConfig
from porter.codesign.step import StepEstimate, estimate
from porter.hardware import Device


@dataclass(frozen=True)
class Change:
    """One recipe change: its predicted effect is on throughput (samples per second) on the target."""

    what: str
    why: str
    before: StepEstimate  # the target's step before this change
    after: StepEstimate
    numerics: bool = False  # the change alters what is computed: validate convergence

    @property
    def speedup(self) -> float:
        return self.after.samples_per_second / self.before.samples_per_second

    @property
    def effect(self) -> str:
        b, a = self.before, self.after
        if a.batch != b.batch:
            return (f"step {b.seconds * 1e3:.2f} ms at batch {b.batch} -> {a.seconds * 1e3:.2f} ms at batch {a.batch}: "
                    f"{self.speedup:.2f}x samples/s")
        return f"step {b.seconds * 1e3:.2f} -> {a.seconds * 1e3:.2f} ms ({self.speedup:.2f}x)"


@dataclass(frozen=True)
class CodesignPlan:
    config: str
    gpus: int
    source: StepEstimate  # the recipe as given, on the source device
    target: StepEstimate  # the recipe as given, on the target device
    revised: StepEstimate  # the revised recipe on the target
    revised_config: TrainingConfig
    changes: tuple[Change, ...]

    def to_dict(self) -> dict:
        out = {"config": self.config, "gpus": self.gpus,
               "changes": [{"what": c.what, "why": c.why, "effect": c.effect, "speedup": c.speedup,
                            "numerics": c.numerics} for c in self.changes],
               "revised_config": self.revised_config.model_dump()}
        for side in ("source", "target", "revised"):
            est: StepEstimate = getattr(self, side)
            out[side] = _estimate_dict(est)
        return out


def _estimate_dict(est: StepEstimate) -> dict:
    return {"device": est.device, "batch_per_gpu": est.batch, "fits": est.fits,
                         "peak_bytes": est.peak_bytes, "capacity_bytes": est.capacity_bytes,
                         "memory": est.memory, "step_seconds": est.seconds,
                         "device_seconds": est.device_seconds, "host_seconds": est.host_seconds,
                         "samples_per_second": est.samples_per_second,
                         "parts": [asdict(p) for p in est.parts], "traffic": est.traffic,
                         "sharding": [asdict(s) for s in est.sharding.shards],
                         "shard_pieces": est.sharding.pieces}


def batch_candidates(cfg: TrainingConfig) -> list[int]:
    if cfg.batch.candidates:
        return sorted(set(cfg.batch.candidates))
    b = cfg.batch.per_gpu
    return sorted({max(1, b // 4), max(1, b // 2), b, b * 2, b * 4})


def best_batch(cfg: TrainingConfig, dev: Device, gpus: int) -> StepEstimate | None:
    """The candidate batch with the highest predicted throughput that fits, or None if none fits."""
    fitting = [e for e in (estimate(cfg, dev, b, gpus) for b in batch_candidates(cfg)) if e.fits]
    return max(fitting, key=lambda e: e.samples_per_second, default=None)


def _rate(dev: Device, dtype: str) -> float:
    r = dev.matrix_tflops.get(dtype)
    return r.value if r else 0.0


def codesign(cfg: TrainingConfig, source: str, target: str, gpus: int | None = None) -> CodesignPlan:
    src, tgt = hardware.get(source), hardware.get(target)
    g = gpus or cfg.gpus
    b = cfg.batch.per_gpu
    before_src = estimate(cfg, src, b, g)
    as_is = estimate(cfg, tgt, b, g)
    changes: list[Change] = []
    cur_cfg, cur = cfg, as_is

    # 1. Placement: the same step with the source's sharding, against the target's own.
    imposed = estimate(cfg, tgt, b, g, sharding=before_src.sharding)
    if as_is.sharding.pieces < before_src.sharding.pieces or imposed.seconds > as_is.seconds * 1.001:
        changes.append(Change(
            f"place tables in {as_is.sharding.pieces} pieces ({as_is.sharding.summary()}) instead of "
            f"{before_src.sharding.pieces} ({before_src.sharding.summary()})",
            f"{tgt.name} holds {tgt.spec.hbm_bytes.value / 1e9:.0f} GB per GPU against {src.name}'s "
            f"{src.spec.hbm_bytes.value / 1e9:.0f} GB ({tgt.spec.hbm_bytes.source})",
            imposed, as_is))

    # 2. Recomputation off when the activations fit.
    if cfg.memory.recompute:
        trial_cfg = cur_cfg.model_copy(update={"memory": cur_cfg.memory.model_copy(update={"recompute": False})})
        trial = estimate(trial_cfg, tgt, b, g)
        if trial.fits and trial.seconds < cur.seconds:
            changes.append(Change("keep MLP activations instead of recomputing them",
                                  f"they fit: peak {trial.peak_bytes / 1e9:.1f} GB of {trial.capacity_bytes / 1e9:.0f} GB "
                                  f"usable ({tgt.spec.hbm_bytes.source})", cur, trial))
            cur_cfg, cur = trial_cfg, trial

    # 3. GEMM dtype.
    dtype = cur_cfg.dense.dtype
    new_dtype, numerics = None, False
    if _rate(tgt, dtype) <= 0:
        new_dtype = "bf16"
        why = f"{tgt.name} has no native {dtype} matrix rate ({tgt.matrix_tflops[dtype].source})" \
            if dtype in tgt.matrix_tflops else f"{tgt.name} has no {dtype} matrix rate"
        numerics = True
    elif dtype in ("bf16", "fp16") and _rate(tgt, "fp8") >= 1.5 * _rate(tgt, dtype):
        new_dtype, numerics = "fp8", True
        why = (f"{tgt.name}: fp8 {_rate(tgt, 'fp8'):.0f} against {dtype} {_rate(tgt, dtype):.0f} TFLOP/s "
               f"({tgt.matrix_tflops['fp8'].source})")
    if new_dtype:
        trial_cfg = cur_cfg.model_copy(update={"dense": cur_cfg.dense.model_copy(update={"dtype": new_dtype})})
        trial = estimate(trial_cfg, tgt, b, g)
        if trial.fits and (trial.seconds < cur.seconds * 0.99 or _rate(tgt, dtype) <= 0):
            changes.append(Change(f"run the MLP GEMMs in {new_dtype} instead of {dtype}", why,
                                  cur, trial, numerics=numerics))
            cur_cfg, cur = trial_cfg, trial

    # 4. Sparse (fused) embedding updates.
    if cur_cfg.optimizer.embedding_grad == "dense" and cur_cfg.embedding:
        trial_cfg = cur_cfg.model_copy(update={"optimizer": cur_cfg.optimizer.model_copy(update={"embedding_grad": "sparse"})})
        trial = estimate(trial_cfg, tgt, b, g)
        if trial.samples_per_second > cur.samples_per_second * 1.01:
            changes.append(Change("update only the embedding rows a step touched (fused sparse optimizer)",
                                  f"a dense update streams every table each step at {tgt.spec.hbm_tbps.value:g} TB/s "
                                  f"({tgt.spec.hbm_tbps.source})", cur, trial))
            cur_cfg, cur = trial_cfg, trial

    # 5. Batch per GPU.
    best = best_batch(cur_cfg, tgt, g)
    if best and best.batch != b and best.samples_per_second > cur.samples_per_second * 1.01:
        changes.append(Change(
            f"batch per GPU {b} -> {best.batch}",
            f"peak {best.peak_bytes / 1e9:.1f} GB of {best.capacity_bytes / 1e9:.0f} GB usable on {tgt.name} "
            f"({tgt.spec.hbm_bytes.source}), the most predicted samples/s of batches "
            f"{', '.join(map(str, batch_candidates(cur_cfg)))}",
            cur, best))
        cur_cfg = cur_cfg.model_copy(update={"batch": cur_cfg.batch.model_copy(update={"per_gpu": best.batch})})
        cur = best
    return CodesignPlan(cfg.name, g, before_src, as_is, cur, cur_cfg, tuple(changes))

