"""A process that used the solvers exits cleanly: solve's solution runs on a
side stream, and memory ordered on such a stream once outlived it at
interpreter teardown (SIGSEGV at exit after a correct run)."""

import os
import subprocess
import sys

import pytest

gpu = pytest.mark.gpu

SCRIPT = """
import numpy as np, gpuscipy_core as gp
from gpuscipy import linalg as L
rng = np.random.default_rng(0)
a = gp.asarray(rng.standard_normal((512, 512))); b = gp.asarray(rng.standard_normal(512))
x = L.solve(a, b)
lu = L.lu_factor(a)
y = L.lu_solve(lu, b)
inv = L.inv(a)
with gp.cuda.Stream(non_blocking=True):
    z = gp.asarray(rng.standard_normal(1000)) * 2     # kept past the stream's block
print("ok", float(abs(x - y).max()) < 1e-8)
"""


@gpu
def test_solvers_exit_cleanly():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.getcwd(), env.get("PYTHONPATH")]))
    r = subprocess.run([sys.executable, "-X", "faulthandler", "-c", SCRIPT],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    assert r.stdout.split() == ["ok", "True"]
