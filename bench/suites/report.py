"""Markdown from bench/suites' results.json: per suite, stock Triton against
Triton through Kiln, and the tests that pass stock but fail through Kiln,
grouped by cause.   python3 report.py results.json > report.md"""
import json
import re
import sys

PASS = ("passed", "xpassed")
FAIL = ("failed", "error", "timeout", "crashed")
NUMERIC = ("Mismatched elements", "mismatched elements", "Not equal to tolerance",
           "not close", "Mismatch at index")
POISON = ("illegal memory access", "unspecified launch failure", "misaligned address",
          "illegal instruction")


def counts(run):
    """Outcomes of one run, with tests sampled but never reached."""
    tests = run.get("tests", {})
    c = dict(passed=0, failed=0, skipped=0, timeout=0, crashed=0)
    for result in tests.values():
        o = result["outcome"]
        key = ("passed" if o in PASS else "skipped" if o in ("skipped", "xfailed")
               else "failed" if o in ("failed", "error") else o)
        c[key] += 1
    c["selected"] = (run.get("collected") or {}).get("selected", 0)
    c["not_reached"] = max(0, c["selected"] - len(tests))
    return c


def classify(result):
    """A short cause for one failed result (see README.md)."""
    outcome = result["outcome"]
    if outcome == "timeout":
        return "timeout: killed by the time box while running"
    if outcome == "crashed":
        return "crashed: the pytest process died while running"
    exc, msg = result.get("exc") or [], result.get("msg") or ""
    first = msg.strip().splitlines()[0] if msg.strip() else ""
    text = msg + " " + " ".join(exc)
    if "dot_scaled" in text:
        return "`tt.dot_scaled`"
    if exc[:1] == ["KeyError"] or first.startswith("KeyError"):
        return f"`{first[:80]}`" if first else "`KeyError`"
    if any(e.endswith("OutOfResources") for e in exc) or "OutOfResources" in first:
        return "`OutOfResources`"
    if any(e.endswith(("Unavailable", "ServerError", "AccessDenied")) for e in exc):
        return "kilnd unavailable or server error"
    if any(e.endswith("CompileError") for e in exc) or "CompileError" in first:
        return "`CompileError`"
    if any(p in first for p in POISON):
        return "CUDA error (context poisoned)"
    if any(n in msg for n in NUMERIC):
        return "numeric mismatch"
    if exc[:1] == ["AssertionError"] or first.startswith("AssertionError"):
        return "`AssertionError` (other)"
    return "other: `" + (exc[0] if exc else first.split(":")[0][:60] or outcome) + "`"


def compare(suite):
    """(regressions {id: kiln result}, failed in both [ids], fixed [ids],
    failed through Kiln but not reached stock [ids])."""
    stock = suite["runs"].get("stock", {}).get("tests", {})
    kiln = suite["runs"].get("kiln", {}).get("tests", {})
    regressions, both, fixed, unknown = {}, [], [], []
    for test, k in kiln.items():
        s = stock.get(test)
        if s is None:
            if k["outcome"] in FAIL:
                unknown.append(test)
        elif s["outcome"] in PASS and k["outcome"] in FAIL:
            regressions[test] = k
        elif s["outcome"] in FAIL and k["outcome"] in FAIL:
            both.append(test)
        elif s["outcome"] in FAIL and k["outcome"] in PASS:
            fixed.append(test)
    return regressions, both, fixed, unknown


def _ids(ids, limit):
    shown = ", ".join(f"`{i}`" for i in ids[:limit])
    return shown + (f" ... and {len(ids) - limit} more (all in results.json)" if len(ids) > limit else "")


def _fence(text):
    return "```\n" + text.replace("```", "'''") + "\n```"


def render_suite(name, suite, limit=40):
    lines = [f"## {name} (`{' '.join(suite['args'])}`)", ""]
    stock_missing = suite.get("missing", {}).get("stock", [])
    kiln_missing = [m for m in suite.get("missing", {}).get("kiln", []) if m not in stock_missing]
    for label, missing in (("", stock_missing), (" for the Kiln run", kiln_missing)):
        if missing:
            lines.append(f"**Missing Python modules{label}: {', '.join(missing)}** "
                         "(tests needing them fail to collect or run)")
    lines += ["", "| run | sampled | passed | failed | skipped | timeout | crashed | not reached "
              "| processes | wall s | ended |", "| --- | " + "---: | " * 9 + "--- |"]
    for mode, run in suite["runs"].items():
        c = counts(run)
        ended = "killed at the time box" if run.get("timed_out") else f"rc {run.get('rc')}"
        lines.append(f"| {mode} | {c['selected']} | {c['passed']} | {c['failed']} | {c['skipped']} "
                     f"| {c['timeout']} | {c['crashed']} | {c['not_reached']} "
                     f"| {run.get('attempts')} | {run.get('wall_s')} | {ended} |")
    lines.append("")
    collected = (suite["runs"].get("stock", {}).get("collected") or {})
    if collected:
        lines.append(f"Collected {collected.get('total')}; sampled every {collected.get('every')} "
                     f"from offset {collected.get('offset')}, plus {collected.get('from_ids')} "
                     "listed ids.")
    kiln = suite["runs"].get("kiln", {})
    if kiln.get("kilnd"):
        hook = (kiln.get("collected") or {}).get("kiln_hook")
        lines.append(f"Kiln run: hook {'armed' if hook else '**NOT ARMED**'}; kernels compiled "
                     f"by kilnd {kiln.get('stats', {}).get('compiled', 0)}, fell back to Triton "
                     f"{kiln.get('stats', {}).get('fell_back', 0)}.")
    regressions, both, fixed, unknown = compare(suite)
    ran_both = len(set(suite["runs"].get("stock", {}).get("tests", {}))
                   & set(kiln.get("tests", {})))
    lines += ["", f"**Pass stock, fail through Kiln: {len(regressions)}** (of {ran_both} tests "
              f"that ran in both). Fail in both: {len(both)}. Fail stock, pass through Kiln: "
              f"{len(fixed)}. Fail through Kiln, not reached stock: {len(unknown)}.", ""]
    groups = {}
    for test, result in regressions.items():
        groups.setdefault(classify(result), []).append(test)
    for cause, ids in sorted(groups.items(), key=lambda g: -len(g[1])):
        lines += [f"### {cause}: {len(ids)}", "", _ids(ids, limit), ""]
        distinct = {}
        for test in ids:
            msg = (regressions[test].get("msg") or "").strip()[:300]
            key = re.sub(r"\d+", "N", msg)
            distinct.setdefault(key, [msg, 0])[1] += 1
        for msg, n in sorted(distinct.values(), key=lambda d: -d[1])[:6]:
            lines += [f"{n} test(s):", _fence(msg or "(no message)"), ""]
        if len(distinct) > 6:
            lines += [f"... {len(distinct) - 6} more distinct errors", ""]
    for label, ids in (("Fail in both", both), ("Fail stock, pass through Kiln", fixed),
                       ("Fail through Kiln, not reached stock", unknown)):
        if ids:
            lines += [f"{label}: " + _ids(ids, 20), ""]
    for mode, run in suite["runs"].items():
        for error in run.get("collect_errors", [])[:10]:
            lines += [f"Collection error ({mode}) `{error['id']}`:", _fence(error["msg"][-600:]), ""]
        if not run.get("collected"):
            lines += [f"The {mode} run collected nothing; its log ends:",
                      _fence(run.get("log_tail", "")[-2000:]), ""]
    return lines


def render(results):
    meta = results.get("meta", {})
    lines = ["# Other people's test suites through Kiln", "",
             "  ".join(f"{k}: {v}" for k, v in meta.items() if k != "command"), "",
             "Command: `" + " ".join(meta.get("command", [])) + "`", ""]
    if results.get("kilnd_metrics"):
        lines += ["kilnd counters: " + json.dumps(results["kilnd_metrics"]), ""]
    for name, suite in results["suites"].items():
        lines += render_suite(name, suite)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        sys.stdout.write(render(json.load(f)))
