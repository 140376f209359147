"""The demo frame on the CPU: registry, runner, checks, table, report, CLI.

The runner's timers and device-to-host copy are injected, so a fake
pipeline whose "GPU" side is NumPy drives every path a real run takes
(statuses, dropping of state entries, checks, scaled CPU times, the table,
report.json, PNGs, exit statuses) without a GPU.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from gpuscipy.demo import (CheckResult, Options, Pipeline, Plot, Runner, Step,
                           allclose, close, custom, exact)
from gpuscipy.demo import _cli, _registry, _report, _timing
from gpuscipy.demo._runner import Outputs
from gpuscipy.demo._table import format_ms, format_speedup, format_table

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _has_mpl():
    return _report.matplotlib_missing() is None


# ---------------------------------------------------------------------------
# fakes
# ---------------------------------------------------------------------------

def fake_timer(seconds):
    """A timer that calls once and reports ``seconds`` (no clock involved)."""
    calls = []

    def timer(fn, args, repeat, budget_s):
        calls.append(repeat)
        return _timing.Timed(fn(*args), seconds, seconds, repeat, seconds)

    timer.calls = calls
    return timer


def make_runner(options=Options(), gpu_s=0.001, cpu_s=0.010, progress=None):
    return Runner(options, gpu_timer=fake_timer(gpu_s), cpu_timer=fake_timer(cpu_s),
                  to_host=lambda v: v, gpu_sync=lambda: None, progress=progress)


def fake_pipeline(fail=False, gpu_error=False, cpu_scale=1.0, plots=()):
    """x -> y = 2x -> z = y + 1 -> peaks of z; keeps z and peaks."""
    data = np.linspace(0.0, 1.0, 11)
    seen = {}

    def gpu_double(x):
        if gpu_error:
            raise ValueError("boom on the GPU")
        return x * 2

    def gpu_plus_one(y):
        seen["gpu_y"] = y
        return y + (1.5 if fail else 1.0)

    steps = [
        Step("double", "y", ("x",), gpu=gpu_double, cpu=lambda x: x * 2,
             check=close(1e-12)),
        Step("plus one", "z", ("y",), gpu=gpu_plus_one, cpu=lambda y: y + 1.0,
             check=allclose(rtol=1e-12)),
        Step("argmax", "k", ("z",), gpu=lambda z: np.array([np.argmax(z)]),
             cpu=lambda z: np.array([np.argmax(z)]), check=exact(),
             cpu_scale=cpu_scale,
             note="SciPy on a part, scaled" if cpu_scale != 1 else ""),
        Step("gpu only", "g", ("z",), gpu=lambda z: z.sum(), cpu=None),
    ]
    p = Pipeline("fake", "a fake pipeline", steps,
                 setup_gpu=lambda: {"x": data.copy()},
                 setup_cpu=lambda: {"x": data.copy()},
                 plots=list(plots), keep=("z",),
                 facts=lambda out: {"max z": float(out.get("z").max())})
    p.seen = seen
    return p


# ---------------------------------------------------------------------------
# checks
# ---------------------------------------------------------------------------

def test_close_is_normwise():
    c = close(1e-9)
    ref = np.array([1e3, 1.0, 0.0])
    ok = c(ref + np.array([1e-7, 1e-7, 1e-7]), ref)      # 1e-10 of the max
    assert ok.ok and ok.kind == "close" and ok.error == pytest.approx(1e-10)
    bad = c(ref + np.array([0, 0, 1e-5]), ref)
    assert not bad.ok and bad.summary().startswith("FAIL 1.0e-08 rel > 1e-09")
    assert not c(np.ones(3), np.ones(4)).ok                 # shape
    assert "shape" in c(np.ones(3), np.ones(4)).detail
    assert not c(np.array([np.nan, 1.0]), np.array([1.0, 1.0])).ok
    assert c(np.array([np.nan, 1.0]), np.array([np.nan, 1.0])).ok
    assert c(np.zeros(0), np.zeros(0)).ok
    # tuples compare item by item; the worst item counts
    r = c((np.arange(3.0), np.ones(2)), (np.arange(3.0), np.ones(2) + 1e-6))
    assert not r.ok and r.error == pytest.approx(1e-6 / (1 + 1e-6))
    assert not c((np.ones(2),), (np.ones(2), np.ones(2))).ok


def test_allclose_elementwise():
    c = allclose(rtol=1e-6, atol=1e-12)
    ref = np.array([1.0, 1e-9])
    assert c(ref * (1 + 1e-7), ref).ok
    r = c(np.array([1.0, 2e-9]), ref)         # 100% off on the small element
    assert not r.ok and r.error == pytest.approx(1e-9)
    assert r.summary().startswith("FAIL 1.0e-09 abs")


def test_exact():
    c = exact()
    assert c(np.array([1, 2, 3]), np.array([1, 2, 3])).summary() == "exact"
    r = c(np.array([1, 2, 4]), np.array([1, 2, 3]))
    assert not r.ok and r.summary() == "FAIL 1 of 3 values differ"
    assert not c(np.array([1.0, 2.0]), np.array([1, 2])).ok     # float vs int
    assert c(np.array([1, 2], np.int32), np.array([1, 2], np.int64)).ok
    assert not c(np.array([1, 2]), np.array([1, 2, 3])).ok


def test_custom():
    c = custom(lambda g, c: (g == c, f"{g} vs {c}"))
    assert c(1, 1).ok and not c(1, 2).ok and c(1, 2).summary() == "FAIL 1 vs 2"
    res = CheckResult(True, "custom", None, "fine")
    assert custom(lambda g, c: res)(0, 0) is res


# ---------------------------------------------------------------------------
# registry
# ---------------------------------------------------------------------------

def test_registry_register_and_errors():
    @_registry.register("zz-test", title="t", order=999)
    def factory(options):
        return None

    try:
        assert _registry.get("zz-test").factory is factory
        assert _registry.entries()[-1].name == "zz-test"
        factory.__module__ = "elsewhere"      # another module, same name
        with pytest.raises(ValueError, match="already registered"):
            _registry.register("zz-test")(factory)
    finally:
        _registry.unregister("zz-test")
    with pytest.raises(ValueError, match="must match"):
        _registry.register("Bad Name")
    assert "zz-test" not in [e.name for e in _registry.entries()]


def test_discover_imports_submodules_and_reports_broken(tmp_path, monkeypatch):
    pkg = tmp_path / "fakepipes"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "good.py").write_text(textwrap.dedent("""
        from gpuscipy.demo import register
        @register("zz-good", title="good one")
        def build(options):
            return None
    """))
    (pkg / "bad.py").write_text("raise ImportError('no such thing')\n")
    (pkg / "_private.py").write_text("raise RuntimeError('must not import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        errors = _registry.discover("fakepipes")
        assert list(errors) == ["fakepipes.bad"]
        assert "ImportError: no such thing" in errors["fakepipes.bad"]
        assert _registry.get("zz-good").title == "good one"
    finally:
        _registry.unregister("zz-good")


def test_ecg_is_discovered():
    errors = _registry.discover()
    assert "gpuscipy.demo.pipelines.ecg" not in errors
    assert "ecg" in [e.name for e in _registry.entries()]
    assert _registry.get("ecg").module == "gpuscipy.demo.pipelines.ecg"


# ---------------------------------------------------------------------------
# runner
# ---------------------------------------------------------------------------

def test_runner_all_ok_and_state_dropping():
    p = fake_pipeline(cpu_scale=4.0)
    res = make_runner().run(p)
    assert res.ok
    assert [s.status for s in res.steps] == ["ok"] * 4
    s = res.steps[0]
    assert s.gpu.median_s == 0.001 and s.cpu.median_s == 0.010
    assert s.speedup == pytest.approx(10.0)
    assert res.steps[2].cpu_s == pytest.approx(0.040)          # scaled
    assert res.steps[2].speedup == pytest.approx(40.0)
    assert res.steps[3].cpu.status == "none" and res.steps[3].speedup is None
    assert res.steps[3].check is None
    assert res.facts == {"max z": 3.0}
    # only the kept entry (and nothing consumed earlier) survives
    assert set(res.outputs._gpu) == {"z"} and set(res.outputs._cpu) == {"z"}
    res.outputs.release()
    assert res.outputs.gpu("z") is None


def test_runner_failed_check_and_gpu_error():
    res = make_runner().run(fake_pipeline(fail=True))
    assert not res.ok
    assert [s.status for s in res.steps] == ["ok", "fail", "ok", "ok"]
    assert any("disagree" in line for line in res.problems())

    res = make_runner().run(fake_pipeline(gpu_error=True))
    assert not res.ok
    st = res.steps
    assert st[0].status == "error" and st[0].gpu.error == "ValueError: boom on the GPU"
    assert st[0].cpu.status == "ok"                  # the CPU chain goes on
    assert st[1].gpu.status == "skipped" and "'y'" in st[1].gpu.error
    assert st[1].cpu.status == "ok" and st[1].status == "skipped"
    assert any("boom" in line for line in res.problems())


def test_runner_no_cpu_and_repeats():
    gt, ct = fake_timer(0.001), fake_timer(0.01)
    p = fake_pipeline()
    p.steps[1].repeat = 2
    res = Runner(Options(cpu=False), gpu_timer=gt, cpu_timer=ct,
                 to_host=lambda v: v, gpu_sync=lambda: None, progress=None).run(p)
    assert res.ok and ct.calls == []
    assert all(s.cpu.status == "off" and s.check is None for s in res.steps)
    assert res.steps[0].check_summary == "not checked (--no-cpu)"
    assert gt.calls == [20, 2, 20, 20]
    gt = fake_timer(0.001)
    Runner(Options(quick=True), gpu_timer=gt, cpu_timer=ct, to_host=lambda v: v,
           gpu_sync=lambda: None, progress=None).run(fake_pipeline())
    assert gt.calls == [5, 5, 5, 5] and ct.calls == [2, 2, 2]


def test_runner_select_and_to_host():
    p = fake_pipeline()
    p.steps[0].select = lambda y: ("selected", y)
    copied = []

    def to_host(v):
        copied.append(v)
        return v[1] if isinstance(v, tuple) and v[0] == "selected" else v

    res = Runner(Options(), gpu_timer=fake_timer(1e-3), cpu_timer=fake_timer(1e-2),
                 to_host=to_host, gpu_sync=lambda: None, progress=None).run(p)
    assert res.ok and copied[0][0] == "selected"


def test_runner_setup_error_and_progress():
    import io

    p = fake_pipeline()
    p.setup_gpu = lambda: 1 / 0
    buf = io.StringIO()
    res = make_runner(progress=buf).run(p)
    assert not res.ok and "ZeroDivisionError" in res.setup_errors["gpu"]
    assert all(s.gpu.status == "off" and s.cpu.status == "off"
               for s in res.steps)
    lines = buf.getvalue().splitlines()
    assert lines[0].startswith("[fake] GPU setup failed: ZeroDivisionError")
    assert lines[1] == "[fake] SciPy side not run (the GPU setup failed)"
    assert lines[-1].startswith("[fake 4/4] gpu only ...")

    p = fake_pipeline()
    p.setup_cpu = lambda: {}                       # "x" missing on the CPU side
    buf = io.StringIO()
    res = make_runner(progress=buf).run(p)
    assert not res.ok and res.steps[0].cpu.status == "skipped"
    assert "[fake 1/4] double ... GPU 1 ms  SciPy SKIPPED: missing input 'x'" \
        in buf.getvalue()


def test_runner_gpu_timer_raising_is_an_error():
    def bad_timer(fn, args, repeat, budget_s):
        raise RuntimeError("gpuscipy_core needs an NVIDIA GPU")

    res = Runner(Options(), gpu_timer=bad_timer, cpu_timer=fake_timer(1e-2),
                 to_host=lambda v: v, gpu_sync=lambda: None, progress=None).run(fake_pipeline())
    assert [s.status for s in res.steps] == ["error", "skipped", "skipped",
                                             "skipped"]


def test_time_cpu_first_call_is_warmup():
    calls = []

    def fn(a):
        calls.append(a)
        return a + 1

    t = _timing.time_cpu(fn, (1,), repeat=3, budget_s=10.0)
    assert t.value == 2 and len(calls) == 4 and t.n == 3
    assert t.median_s >= 0 and t.first_s >= 0
    # a first call over budget is the measurement
    t = _timing.time_cpu(fn, (1,), repeat=3, budget_s=-1.0)
    assert t.n == 1 and t.samples_s == [t.first_s] and len(calls) == 5


# ---------------------------------------------------------------------------
# table and report
# ---------------------------------------------------------------------------

def test_formatting():
    assert format_ms(None) == "-"
    assert format_ms(1.234e-4) == "0.123"
    assert format_ms(0.01234) == "12.34"
    assert format_ms(0.1234) == "123.4"
    assert format_ms(12.345) == "12,345"
    assert format_speedup(None) == "-"
    assert format_speedup(3.456) == "3.46x"
    assert format_speedup(1234.5) == "1,234x"


def test_table():
    ok = make_runner().run(fake_pipeline(cpu_scale=4.0))
    bad = make_runner().run(fake_pipeline(fail=True))
    bad.name = "fake2"
    text = format_table([ok, bad])
    lines = text.splitlines()
    assert lines[0] == "fake: a fake pipeline"
    row = next(line for line in lines if line.strip().startswith("double"))
    assert row.split()[1:5] == ["1.000", "10.00", "10.0x", "0.0e+00"]
    row = next(line for line in lines if line.strip().startswith("argmax"))
    assert "40.00*" in row and "exact" in row
    assert "  * SciPy on a part, scaled" in lines
    assert "  max z: 3" in lines
    assert "fake: all checks passed (3 of 4 steps checked against SciPy)" in text
    assert "fake2: FAILED" in text and "! fake2 / plus one" in text


def test_report_json(tmp_path):
    res = make_runner().run(fake_pipeline(fail=True))
    path = tmp_path / "r" / "report.json"
    _report.write_json(str(path), [res], options={"quick": True, "cpu": True,
                                                   "only": None},
                       env=_report.environment(gpu=False),
                       plots={"written": [], "skipped": "x", "errors": {}},
                       module_errors={}, ok=False)
    doc = json.loads(path.read_text())
    assert doc["schema"] == "gpuscipy-demo/1" and doc["ok"] is False
    assert set(doc) == {"schema", "ok", "options", "environment", "plots",
                        "module_errors", "pipelines"}
    assert doc["environment"]["versions"]["numpy"] == np.__version__
    (p,) = doc["pipelines"]
    assert p["name"] == "fake" and p["ok"] is False and p["facts"] == {"max z": 3.5}
    s0, s1 = p["steps"][:2]
    assert set(s0) == {"name", "out", "status", "gpu", "cpu", "cpu_scale",
                       "cpu_ms", "speedup", "check", "check_error", "note"}
    assert s0["gpu"] == {"status": "ok", "median_ms": 1.0, "min_ms": 1.0, "n": 20,
                         "first_call_ms": 1.0, "error": ""}
    assert s0["cpu_ms"] == 10.0 and s0["speedup"] == pytest.approx(10.0)
    assert s0["check"]["kind"] == "close" and s0["check"]["ok"] is True
    assert s1["status"] == "fail" and s1["check"]["summary"].startswith("FAIL")
    assert p["steps"][3]["cpu"]["median_ms"] is None


def _draw_line(fig, out):
    ax = fig.subplots()
    ax.plot(out.get("z"))


def _draw_broken(fig, out):
    raise KeyError("nothing to draw")


@pytest.mark.skipif(not _has_mpl(), reason="matplotlib is not installed here")
def test_write_plots(tmp_path):
    p = fake_pipeline(plots=[Plot("a.png", _draw_line), Plot("b.png", _draw_broken)])
    res = make_runner().run(p)
    files, errors = _report.write_plots(p.plots, res.outputs, str(tmp_path))
    assert files == ["a.png"] and list(errors) == ["b.png"]
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_outputs_prefers_gpu():
    out = Outputs({"a": 1}, {"a": 2, "b": 3}, to_host=lambda v: v * 10)
    assert out.gpu("a") == 10 and out.cpu("a") == 2 and out.get("a") == 10
    assert out.get("b") == 3 and out.gpu("b") is None
    assert Outputs(None, None).get("a") is None


# ---------------------------------------------------------------------------
# command line
# ---------------------------------------------------------------------------

def test_parser():
    p = _cli.build_parser(["ecg", "other"])
    a = p.parse_args([])
    assert (a.quick, a.no_cpu, a.only, a.report_dir, a.list) == (
        False, False, None, "demo-report", False)
    a = p.parse_args(["--quick", "--no-cpu", "--only", "ecg", "--only", "other",
                      "--report-dir", "out"])
    assert (a.quick, a.no_cpu, a.only, a.report_dir) == (True, True,
                                                         ["ecg", "other"], "out")


def test_unknown_only_is_a_usage_error(capsys):
    assert _cli.main(["--only", "nope"]) == 2
    err = capsys.readouterr().err
    assert "usage: gpuscipy-demo" in err
    assert "argument --only: invalid choice: 'nope'" in err and "'ecg'" in err


def test_list_needs_no_gpu(capsys):
    assert _cli.main(["--list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ecg ")


def test_no_gpu_one_line_exit_2(monkeypatch, capsys):
    monkeypatch.setattr(_cli, "_gpu_unavailable",
                        lambda: "no NVIDIA GPU available: driver\nnot found")
    assert _cli.main(["--quick"]) == 2
    cap = capsys.readouterr()
    assert cap.out == ""
    assert cap.err.count("\n") == 1 and cap.err.startswith(
        "gpuscipy-demo: no NVIDIA GPU available: driver not found;")


def test_no_gpu_for_real():
    import gpuscipy_core

    if gpuscipy_core.is_available():
        pytest.skip("this machine has a GPU")
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get(
        "PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-m", "gpuscipy.demo", "--quick"],
                       capture_output=True, text=True, env=env, cwd=REPO,
                       timeout=120)
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith("gpuscipy-demo: no NVIDIA GPU available")


@pytest.fixture
def fake_cli(monkeypatch):
    """The CLI with a fake GPU, fake timers and a registered fake pipeline."""
    state = {"fail": False, "plots": []}

    @_registry.register("zz-fake", title="fake", order=998)
    def factory(options):
        state["options"] = options
        return fake_pipeline(fail=state["fail"], plots=state["plots"])

    monkeypatch.setattr(_cli, "_gpu_unavailable", lambda: None)
    monkeypatch.setattr(_cli, "_make_runner",
                        lambda options: make_runner(options, progress="stderr"))
    monkeypatch.setattr(_cli, "environment",
                        lambda gpu=True: _report.environment(gpu=False))
    yield state
    _registry.unregister("zz-fake")


def test_cli_run_ok(fake_cli, tmp_path, capsys):
    d = tmp_path / "rep"
    fake_cli["plots"] = [Plot("fake.png", _draw_line)]
    assert _cli.main(["--only", "zz-fake", "--report-dir", str(d), "--quick"]) == 0
    assert fake_cli["options"] == Options(quick=True, cpu=True)
    cap = capsys.readouterr()
    assert "fake: a fake pipeline" in cap.out and "all checks passed" in cap.out
    assert "[fake 1/4] double ..." in cap.err          # progress on stderr
    assert "[fake 1/4]" not in cap.out
    doc = json.loads((d / "report.json").read_text())
    assert doc["ok"] is True and doc["options"] == {"quick": True, "cpu": True,
                                                    "only": ["zz-fake"]}
    assert (d / "table.txt").read_text().startswith("fake: a fake pipeline")
    if _has_mpl():
        assert doc["plots"]["written"] == ["fake.png"] and (d / "fake.png").exists()
    else:
        assert "matplotlib is not installed" in cap.out
        assert doc["plots"]["skipped"].startswith("matplotlib is not installed")
        assert not (d / "fake.png").exists()


def test_cli_without_matplotlib(fake_cli, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_cli, "matplotlib_missing",
                        lambda: "matplotlib is not installed (test)")
    fake_cli["plots"] = [Plot("fake.png", _draw_line)]
    assert _cli.main(["--only", "zz-fake", "--report-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "matplotlib is not installed (test): PNG plots skipped" in out
    assert not (tmp_path / "fake.png").exists()


def test_cli_failed_check_exit_1(fake_cli, tmp_path, capsys):
    fake_cli["fail"] = True
    assert _cli.main(["--only", "zz-fake", "--no-cpu",
                      "--report-dir", str(tmp_path)]) == 0   # nothing checked
    assert fake_cli["options"].cpu is False
    out = capsys.readouterr().out
    assert "fake: no errors, nothing checked (0 of 4 steps" in out
    assert out.rstrip().endswith("done: GPU only, nothing checked (--no-cpu)")
    assert _cli.main(["--only", "zz-fake", "--report-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out
    assert json.loads((tmp_path / "report.json").read_text())["ok"] is False


def test_cli_pipeline_build_error(fake_cli, tmp_path, capsys, monkeypatch):
    def broken(options):
        raise ImportError("cannot import name 'sosfiltfilt'")

    _registry.unregister("zz-fake")
    _registry.register("zz-fake", title="fake", order=998)(broken)
    assert _cli.main(["--only", "zz-fake", "--report-dir", str(tmp_path)]) == 1
    cap = capsys.readouterr()
    assert "building the pipeline failed: ImportError" in cap.out
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["pipelines"][0]["build_error"].startswith("ImportError")


def test_import_needs_no_device():
    code = ("import sys, gpuscipy.demo, gpuscipy.demo._registry as r; "
            "r.discover(); "
            "assert 'gpuscipy.signal' not in sys.modules, 'signal imported'; "
            "print('ok')")
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get(
        "PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True,
                       text=True, env=env, cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stderr
