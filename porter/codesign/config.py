"""A training step described as data: what `porter codesign CONFIG` reads (TOML or YAML).

The shape is a recommendation model's step (DLRM and its kin): embedding tables looked up and
pooled per sample, a bottom MLP over the dense features, a feature interaction, a top MLP, the
optimizers, and what the step keeps for the backward pass. Unknown keys are errors, and a bad
file is reported with its path (and line, for a TOML syntax error), never a traceback.

    name = "dlrm-small"
    [batch]
    per_gpu = 4096
    [[embedding]]
    name = "user"        count = 4    rows = 2_000_000    dim = 128    pooling = 20
    [dense]
    bottom = [13, 512, 256, 128]      top = [1024, 512, 256, 1]      dtype = "bf16"
    [optimizer]
    dense = "adam"       embedding = "sgd"       embedding_grad = "dense"
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

# Bytes per element of a stored tensor.
DTYPE_BYTES = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}
StorageDtype = Literal["fp32", "bf16", "fp16", "fp8"]
ComputeDtype = Literal["fp32", "tf32", "bf16", "fp16", "fp8"]
Optimizer = Literal["sgd", "momentum", "adagrad", "adam"]
EmbeddingOptimizer = Literal["sgd", "momentum", "adagrad", "rowwise_adagrad", "adam"]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Embedding(_Strict):
    """`count` identical tables of rows x dim, each looked up `pooling` times per sample and summed."""

    name: str
    rows: int = Field(gt=0)
    dim: int = Field(gt=0)
    pooling: float = Field(gt=0)
    count: int = Field(default=1, gt=0)
    dtype: StorageDtype = "fp32"

    @property
    def bytes(self) -> float:
        """One table's weights."""
        return self.rows * self.dim * DTYPE_BYTES[self.dtype]


class Dense(_Strict):
    """The MLPs: `bottom` lists the dense-feature width then each layer's width; `top` each layer's
    width after the interaction (its input width follows from the interaction)."""

    bottom: list[int] = Field(min_length=2)
    top: list[int] = Field(min_length=1)
    interaction: Literal["dot", "cat"] = "dot"
    dtype: ComputeDtype = "bf16"  # the GEMMs' operand type (autocast); weights stay param_dtype
    param_dtype: StorageDtype = "fp32"


class Batch(_Strict):
    per_gpu: int = Field(gt=0)
    # Batch sizes the recommender may choose among; default: powers of two around per_gpu.
    candidates: list[int] = Field(default_factory=list)


class Optimizers(_Strict):
    dense: Optimizer = "adam"
    embedding: EmbeddingOptimizer = "sgd"
    # "dense": the framework's default (PyTorch nn.EmbeddingBag), a gradient the size of the table,
    # updated whole every step; "sparse": only the rows a step touched (fused TBE kernels, FBGEMM).
    embedding_grad: Literal["dense", "sparse"] = "dense"


class Memory(_Strict):
    recompute: bool = False  # recompute MLP activations in backward instead of keeping them
    reserve_fraction: float = Field(default=0.1, ge=0, lt=1)  # HBM kept free: allocator, workspaces
    cap_gb: float | None = Field(default=None, gt=0)  # a per-GPU budget below the device's HBM


class Runtime(_Strict):
    # "eager": every kernel issued from Python, one at a time (PyTorch's default; what the H200
    # validation measured); "graphs": the step captured once and replayed (CUDA/HIP graphs,
    # torch.compile's cudagraphs), so host time no longer bounds it.
    launch: Literal["eager", "graphs"] = "eager"


class TrainingConfig(_Strict):
    name: str
    batch: Batch
    embedding: list[Embedding] = Field(default_factory=list)
    dense: Dense
    optimizer: Optimizers = Optimizers()
    memory: Memory = Memory()
    runtime: Runtime = Runtime()
    gpus: int = Field(default=8, gt=0)

    @model_validator(mode="after")
    def _interaction_fits(self) -> TrainingConfig:
        dims = {e.dim for e in self.embedding}
        if self.dense.interaction == "dot" and self.embedding and dims != {self.dense.bottom[-1]}:
            raise ValueError(f"dot interaction needs every table's dim to equal the bottom MLP's output "
                             f"({self.dense.bottom[-1]}); tables have {sorted(dims)}")
        return self

    @property
    def tables(self) -> int:
        return sum(e.count for e in self.embedding)


class ConfigError(ValueError):
    """A config that cannot be read: the message names the file (and line where known)."""


def load_config(path: Path) -> TrainingConfig:
    """Read a TOML (.toml) or YAML (.yaml, .yml) training-step description."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    if path.suffix in (".yaml", ".yml"):
        import yaml

        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f"{path}:{mark.line + 1}" if mark else str(path)
            raise ConfigError(f"{where}: not valid YAML: {getattr(e, 'problem', e)}") from None
    else:
        try:
            doc = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: not valid TOML: {e}") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{path}: expected a table of settings at the top")
    try:
        return TrainingConfig.model_validate(doc)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise ConfigError(f"{path}: {field}: {first['msg']} ({e.error_count()} problem(s))") from None
