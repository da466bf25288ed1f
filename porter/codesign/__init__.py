"""Hardware-model co-design: revise a training recipe for the target, not only its kernels.

    >>> from porter.codesign import codesign, load_config
    >>> plan = codesign(load_config(path), "b200", "mi350x")      # a CodesignPlan: data, no I/O

- config: the training step as data (TOML or YAML), validated, unknown keys rejected;
- sharding: where each embedding table lives on G GPUs, and the traffic that follows;
- step: one step's memory by category and time by part, from porter/hardware and porter/perfmodel;
- plan: the recipe changes the target's figures make worth it, each with its predicted effect;
- render: the tables `porter codesign` prints.
"""

from porter.codesign.config import ConfigError, TrainingConfig, load_config
from porter.codesign.plan import Change, CodesignPlan, codesign

__all__ = ["Change", "CodesignPlan", "ConfigError", "TrainingConfig", "codesign", "load_config"]
