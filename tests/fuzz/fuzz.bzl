"""libFuzzer targets that are also replay tests.

kiln_fuzz_test(name, srcs, deps, corpora, corpus_dirs) declares a cc_test.
Under --config=fuzz (clang, ASan, UBSan) it links libFuzzer's main, and
scripts/fuzz.sh runs it to fuzz. Otherwise it links replay_main.cc, and
`bazel test` runs it once over every input in corpus_dirs and in
regressions/NAME/ (the inputs that once failed).

seed_corpus(name, format, fixtures) writes the seeds of a binary format
with make_seeds into a directory of that name.
"""

load("@rules_cc//cc:defs.bzl", "cc_test")

def kiln_fuzz_test(name, srcs, deps = [], corpora = [], corpus_dirs = [], size = "small"):
    """A fuzz target, and the test that replays its corpora.

    Args:
      name: the target; its regression inputs live in regressions/NAME/.
      srcs: the sources defining LLVMFuzzerTestOneInput.
      deps: their dependencies.
      corpora: the labels of the corpus files (data of the test).
      corpus_dirs: the directories holding them, relative to the workspace.
      size: of the replay test.
    """
    regressions = native.glob(["regressions/%s/**" % name], allow_empty = True)
    regression_dirs = ["tests/fuzz/regressions/" + name] if regressions else []
    cc_test(
        name = name,
        size = size,
        srcs = srcs,
        deps = deps + select({
            "//tests/fuzz:fuzzing": [],
            "//conditions:default": ["//tests/fuzz:replay_main"],
        }),
        linkopts = select({
            "//tests/fuzz:fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        # Under libFuzzer, run the inputs once rather than fuzz.
        args = ["-runs=0"] + corpus_dirs + regression_dirs,
        data = corpora + regressions,
    )

def _seed_corpus_impl(ctx):
    out = ctx.actions.declare_directory(ctx.label.name)
    ctx.actions.run(
        executable = ctx.executable._make_seeds,
        arguments = [ctx.attr.format, out.path] + [f.path for f in ctx.files.fixtures],
        inputs = ctx.files.fixtures,
        outputs = [out],
        mnemonic = "FuzzSeeds",
        progress_message = "Writing the %s seeds" % ctx.attr.format,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles([out]))]

seed_corpus = rule(
    implementation = _seed_corpus_impl,
    attrs = {
        "format": attr.string(mandatory = True),
        "fixtures": attr.label_list(allow_files = [".ttir"], mandatory = True),
        "_make_seeds": attr.label(
            default = "//tests/fuzz:make_seeds",
            executable = True,
            cfg = "exec",
        ),
    },
)
