#!/bin/bash
# Sixteenth look (2026-12-02, i18r): the nn unseen-16 set (bench/perfmodel_validate.py nn_sixteenth_set) on the H200,
# in one device call of at most 400 s; bf16, fp8 and fp16, new shapes stopped 370 s after the start (what it cuts: the
# controls, measured last). The steps: perfmodel_nn_look_h200.sh.
exec bash "$(dirname "$0")/perfmodel_nn_look_h200.sh" nn-sixteenth bf16,fp8,fp16 370
