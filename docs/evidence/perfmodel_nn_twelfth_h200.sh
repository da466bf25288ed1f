#!/bin/bash
# Twelfth look (2026-12-01, i18l): the nn unseen-12 set (bench/perfmodel_validate.py nn_twelfth_set) on the H200,
# in one device call of at most 240 s; bf16 and fp8, new shapes stopped 218 s after the start (what it cuts: the
# N-on-16 controls, measured last). The steps: perfmodel_nn_look_h200.sh.
exec bash "$(dirname "$0")/perfmodel_nn_look_h200.sh" nn-twelfth bf16,fp8 218
