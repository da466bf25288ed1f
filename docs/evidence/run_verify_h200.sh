#!/usr/bin/env bash
# Verify the fixture ports on an NVIDIA GPU (used for docs/evidence/verify-h200-*.{json,md}).
#
#   here:   for f in <fixtures with porter.toml>; do porter port fixtures/$f -o .evid/$f; done
#   device: bash docs/evidence/run_verify_h200.sh .evid $OUT
#
# For each port: `--executor cuda` runs the original (reference outputs and timings), and
# `--executor hip-on-cuda` runs the port and its direct-hipify baseline with AMD wave64
# semantics emulated, both against the original. Needs only python3 with pydantic and numpy.
set -u
ports=${1:?ported trees}
out=${2:?folder for the combined results}
export PORTER_HIP_ON_CUDA=$PWD/shims/hip_on_cuda
mkdir -p "$out"
# One project per process, ${JOBS:-6} at a time: nvcc builds dominate. Kernels of different
# projects then share the GPU, so their timings are indicative only.
verify_one() {
  tree=$1 out=$2 name=$(basename "$1")
  for ex in ${EXECUTORS:-cuda hip-on-cuda}; do
    python3 -m porter.verify.evidence "$tree" --executor "$ex" --source "fixtures/$name" \
      --timeout "${RUN_TIMEOUT:-600}" > "$out/$name.$ex.log" 2>&1
    echo "== $name ($ex): exit $?"
    [ -f "$tree/porter-verify.json" ] && cp "$tree/porter-verify.json" "$out/$name.$ex.json"
  done
}
export -f verify_one
ls -d "$ports"/*/ | xargs -P "${JOBS:-6}" -I{} bash -c 'verify_one "$1" "$2"' _ {} "$out"
python3 - "$out" <<'PY'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
runs = {p.stem: json.loads(p.read_text()) for p in sorted(out.glob("*.json")) if p.name != "combined.json"}
(out / "combined.json").write_text(json.dumps(runs, indent=2, sort_keys=True) + "\n")
print(f"combined {len(runs)} runs")
PY
