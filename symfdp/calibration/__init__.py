"""Calibration to a privacy target: what is aimed at (:mod:`.targets`), which
run parameter moves (:mod:`.parameters`) and the search (:mod:`.search`).

The public entry point is :func:`symfdp.calibrate.calibrate`."""
