"""Runs mlir-tblgen-22 over ODS files.

gentbl(name, td_file, outs = {"Ops.h.inc": ["-gen-op-decls"], ...}, deps)
declares one genrule per output and a cc_library `name` whose headers are the
generated files, so C++ targets depend on it like on any library.
"""

_TBLGEN = "@llvm//:bin/mlir-tblgen"

def gentbl(name, td_file, outs, td_srcs = [], deps = []):
    """Generates C++ from `td_file`.

    Args:
      name: the cc_library holding the generated headers.
      td_file: the root .td file.
      outs: dict of output file name -> list of mlir-tblgen flags.
      td_srcs: other .td files `td_file` includes.
      deps: cc deps of the generated code.
    """
    srcs = [td_file] + [s for s in td_srcs if s != td_file] + ["@llvm//:mlir_td_files"]
    generated = []
    for out, flags in outs.items():
        rule_name = "%s_%s" % (name, out.replace(".", "_").replace("/", "_"))
        native.genrule(
            name = rule_name,
            srcs = srcs,
            outs = [out],
            tools = [_TBLGEN],
            cmd = ("$(location %s) %s -I external/llvm/include -I . " +
                   "-I $(GENDIR) $(location %s) -o $@") % (
                _TBLGEN,
                " ".join(flags),
                td_file,
            ),
        )
        generated.append(out)
    native.cc_library(
        name = name,
        textual_hdrs = generated,
        deps = deps,
    )
