"""Run every Triton fixture's own check on an NVIDIA GPU, original and golden port side by side.

    python3 docs/evidence/run_triton_h200.py > triton.json

Each fixtures/triton_<p>/<module>.py exposes `run_check()`, which runs its kernels on CUDA tensors
and compares them with torch, printing PASS/FAIL lines and returning True on success. The port
must still run on NVIDIA (porter's Triton rewrites keep both targets working), so the same
check runs on fixtures/golden/triton_<p>/<module>.py. Prints one JSON object: per project and
side, whether the check passed, what it printed, and the error if it raised.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def check(path: Path) -> dict:
    out = io.StringIO()
    spec = importlib.util.spec_from_file_location(f"porter_ev_{path.parent.parent.name}_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        with contextlib.redirect_stdout(out):
            spec.loader.exec_module(module)
            passed = bool(module.run_check())
        return {"passed": passed, "printed": out.getvalue().strip().splitlines()}
    except Exception as e:  # a failing fixture is a result to record, not a reason to stop
        return {"passed": False, "printed": out.getvalue().strip().splitlines(),
                "error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()[-1500:]}
    finally:
        sys.path.remove(str(path.parent))


def main() -> int:
    import torch
    import triton

    results = {"triton": triton.__version__, "torch": torch.__version__, "gpu": torch.cuda.get_device_name(0),
               "projects": {}}
    for project in sorted(ROOT.glob("fixtures/triton_*")):
        for module in sorted(project.glob("*.py")):
            if "def run_check" not in module.read_text():
                continue
            golden = ROOT / "fixtures" / "golden" / project.name / module.name
            results["projects"][f"{project.name}/{module.name}"] = {
                "original": check(module), "port": check(golden)}
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
