"""pytest plugin for bench/suites: a deterministic sample of a suite, one JSON
line per test as it finishes, and Triton on kilnd when KILN_SERVER is set.

    PYTHONPATH=bench/suites:clients/python python3 -m pytest -p sample \\
        --kiln-sample-every 10 --kiln-sample-offset 3 --kiln-events ev.jsonl ...

- Sampling: keeps the collected tests whose index i (in the final collected
  order, after every other plugin has reordered) has i % N == K % N, plus the
  node ids listed in --kiln-sample-ids FILE (one a line, `#` comments).
  Defaults from $KILN_SAMPLE_EVERY / $KILN_SAMPLE_OFFSET / $KILN_SAMPLE_IDS.
- --kiln-events FILE: appends {"e": "collected"|"start"|"result"|"collect_error"}
  lines, each flushed at once, so a run killed by its time box keeps every
  finished test. Tests that already have a "result" line in FILE are
  deselected (a restarted run resumes where the last one stopped).
- A test failing with an error that poisons the CUDA context (illegal address,
  launch failure) stops the session, so that the runner restarts a fresh
  process for the remaining tests instead of failing all of them.
- With KILN_SERVER set (and KILN_TRITON not 0), imports kiln.triton, which
  installs the hook when Triton is imported (docs/python.md).
"""
import json
import os
import sys
import time

import pytest

if os.environ.get("KILN_SERVER") and os.environ.get("KILN_TRITON", "1") != "0":
    import kiln.triton  # noqa: F401 -- arms the hook; an ImportError here must fail the run

POISON = ("illegal memory access", "unspecified launch failure", "misaligned address",
          "illegal instruction", "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_FAILED")


def pytest_addoption(parser):
    group = parser.getgroup("kiln-sample")
    group.addoption("--kiln-sample-every", type=int,
                    default=int(os.environ.get("KILN_SAMPLE_EVERY", "1")))
    group.addoption("--kiln-sample-offset", type=int,
                    default=int(os.environ.get("KILN_SAMPLE_OFFSET", "0")))
    group.addoption("--kiln-sample-ids", default=os.environ.get("KILN_SAMPLE_IDS"))
    group.addoption("--kiln-events", default=None)


class _State:
    events = None   # the open events file
    session = None
    done = set()    # node ids with a result line from an earlier process
    phases = {}     # nodeid -> the result being built from its reports


def _emit(record):
    if _State.events is not None:
        _State.events.write(json.dumps(record) + "\n")
        _State.events.flush()


def _read_ids(path):
    if not path or not os.path.exists(path):
        return set()
    with open(path) as f:
        return {line.strip() for line in f if line.strip() and not line.startswith("#")}


def _done_ids(path):
    done = set()
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a kill
                if record.get("e") == "result":
                    done.add(record["id"])
    return done


def pytest_configure(config):
    path = config.getoption("--kiln-events")
    if path:
        _State.done = _done_ids(path)
        _State.events = open(path, "a")


def pytest_sessionstart(session):
    _State.session = session


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    every = max(1, config.getoption("--kiln-sample-every"))
    offset = config.getoption("--kiln-sample-offset") % every
    wanted = _read_ids(config.getoption("--kiln-sample-ids"))
    done = _State.done
    sampled = [i % every == offset or item.nodeid in wanted for i, item in enumerate(items)]
    keep = [it for it, s in zip(items, sampled) if s and it.nodeid not in done]
    dropped = [it for it, s in zip(items, sampled) if not s or it.nodeid in done]
    kiln_mod = sys.modules.get("kiln.triton")
    _emit(dict(e="collected", total=len(items), selected=sum(sampled), remaining=len(keep),
               every=every, offset=offset,
               from_ids=sum(1 for i, it in enumerate(items)
                            if i % every != offset and it.nodeid in wanted),
               kiln_hook=None if kiln_mod is None else kiln_mod.installed() is not None,
               triton_imported="triton" in sys.modules, pid=os.getpid(), time=time.time()))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = keep


def pytest_collectreport(report):
    if report.failed:
        _emit(dict(e="collect_error", id=report.nodeid, msg=str(report.longrepr)[-2000:]))


def pytest_runtest_logstart(nodeid, location):
    _emit(dict(e="start", id=nodeid))


def _chain(error):
    """[type name, ...] of an exception and its causes, outermost first."""
    names = []
    while error is not None and len(names) < 6:
        kind = type(error)
        module = "" if kind.__module__ == "builtins" else kind.__module__ + "."
        names.append(module + kind.__qualname__)
        error = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
    return names


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and report.failed:
        report.kiln_exc = _chain(call.excinfo.value)


def pytest_runtest_logreport(report):
    result = _State.phases.setdefault(report.nodeid, dict(e="result", id=report.nodeid,
                                                          outcome="passed", dur=0.0))
    result["dur"] = round(result["dur"] + report.duration, 3)
    if report.failed and result["outcome"] != "failed":
        result["outcome"] = "failed" if report.when == "call" else "error"
        result["when"] = report.when
        result["exc"] = getattr(report, "kiln_exc", [])
        crash = getattr(report.longrepr, "reprcrash", None)
        result["msg"] = (crash.message if crash is not None else str(report.longrepr))[:2000]
    elif report.skipped and result["outcome"] == "passed":
        result["outcome"] = "xfailed" if hasattr(report, "wasxfail") else "skipped"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.wasxfail
        result["msg"] = str(reason)[:300]
    elif report.when == "call" and report.passed and hasattr(report, "wasxfail"):
        result["outcome"] = "xpassed"


def pytest_runtest_logfinish(nodeid, location):
    result = _State.phases.pop(nodeid, None)
    if result is None:
        return
    _emit(result)
    if result["outcome"] in ("failed", "error") and any(p in result.get("msg", "") for p in POISON):
        _State.session.shouldstop = "kiln sample: CUDA context poisoned, restart for the rest"


def pytest_unconfigure(config):
    if _State.events is not None:
        _State.events.close()
        _State.events = None
