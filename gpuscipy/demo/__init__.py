"""The gpuscipy demo: SciPy pipelines on the GPU, checked against SciPy.

``gpuscipy-demo`` (or ``python -m gpuscipy.demo``) runs every registered
pipeline twice, on the GPU with gpuscipy and on the CPU with SciPy, checks
after every step that both agree, and prints a table of step, GPU time,
SciPy time, speed-up and error. It writes ``demo-report/`` (JSON figures,
PNG plots). See ``docs/demo.md``.

Writing a pipeline
------------------
Add a module to ``gpuscipy/demo/pipelines/``; it is found by import, the
frame needs no edit. Each side's setup returns its state; steps read named
entries and store their output under ``out``::

    from gpuscipy.demo import Pipeline, Step, close, register

    @register("mine", title="what it shows")
    def build(options):
        def setup_gpu():
            import gpuscipy_core as gp
            from gpuscipy import signal
            return {"x": gp.asarray(data()), "sig": signal}
        def setup_cpu():
            import scipy.signal
            return {"x": data(), "sig": scipy.signal}
        smooth = lambda sig, x: sig.sosfiltfilt(SOS, x)
        return Pipeline("mine", "what it shows", steps=[
            Step("sosfiltfilt", out="y", inputs=("sig", "x"), gpu=smooth,
                 cpu=smooth, check=close(1e-9))],
            setup_gpu=setup_gpu, setup_cpu=setup_cpu)

Frame
-----
register, Options, Pipeline, Step, Plot, Runner, main

Checks
------
close, allclose, exact, custom, CheckResult
"""

from ._checks import CheckResult, allclose, close, custom, exact
from ._cli import main
from ._model import Options, Pipeline, Plot, Step
from ._registry import register
from ._runner import Runner

__all__ = ["register", "Options", "Pipeline", "Step", "Plot", "Runner", "main",
           "close", "allclose", "exact", "custom", "CheckResult"]

for _o in (CheckResult, allclose, close, custom, exact, main, Options, Pipeline,
           Plot, Step, register, Runner):
    _o.__module__ = "gpuscipy.demo"
del _o
