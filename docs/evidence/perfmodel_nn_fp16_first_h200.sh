#!/bin/bash
# First nn fp16 look (2026-12-01, i18n): the nn fp16 unseen-1 set (bench/perfmodel_validate.py nn_fp16_first_set) on
# the H200, in one device call of at most 240 s, its own call after the thirteenth look's; fp16 only, new shapes
# stopped 218 s after the start (what it cuts: the controls, measured last). The steps: perfmodel_nn_look_h200.sh.
exec bash "$(dirname "$0")/perfmodel_nn_look_h200.sh" nn-fp16-first fp16 218
