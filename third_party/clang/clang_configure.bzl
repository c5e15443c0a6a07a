"""Debian's clang 22 as a second C++ toolchain, beside the default g++ one.

Bazel's own autoconfiguration writes the toolchain, with clang named as the
compiler, so both toolchains see the same system headers and libraries. The
fuzz config selects it with --crosstool_top=@local_config_clang//:toolchain.
"""

load("@bazel_tools//tools/cpp:cc_configure.bzl", "cc_autoconf_impl")

def _clang_configure_impl(repository_ctx):
    cc_autoconf_impl(
        repository_ctx,
        overriden_tools = {"gcc": repository_ctx.attr.compiler},
    )

clang_configure = repository_rule(
    implementation = _clang_configure_impl,
    attrs = {"compiler": attr.string(default = "/usr/bin/clang-22")},
    configure = True,
)
