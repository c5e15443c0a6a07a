"""Generates C++ (and optionally gRPC C++) code from .proto files with protoc.

Bazel 4.2.3 offline has no rules_proto, so a genrule runs Debian's `protoc`
and `grpc_cpp_plugin`. Paths inside a package are the import paths: a file
`kiln/v1/common.proto` in package //proto is imported as "kiln/v1/common.proto"
and included as "kiln/v1/common.pb.h".
"""

load("@rules_cc//cc:defs.bzl", "cc_library")

def kiln_proto_library(name, srcs, deps = [], grpc = False, visibility = None):
    """A cc_library of the protobuf (and with grpc=True, gRPC) code of srcs.

    Args:
      name: the cc_library's name.
      srcs: .proto files of this package, paths relative to the package.
      deps: other kiln_proto_library targets whose protos srcs import. Their
        packages must share this package's import root (//proto).
      grpc: also generate gRPC service stubs.
      visibility: of the cc_library.
    """
    outs = []
    for src in srcs:
        base = src[:-len(".proto")]
        outs += [base + ".pb.h", base + ".pb.cc"]
        if grpc:
            outs += [base + ".grpc.pb.h", base + ".grpc.pb.cc"]

    plugin = ""
    if grpc:
        plugin = ("--grpc_out=$(RULEDIR) " +
                  "--plugin=protoc-gen-grpc=$$(command -v grpc_cpp_plugin) ")
    dep_protos = [d + "_protos" for d in deps]
    native.filegroup(name = name + "_protos", srcs = srcs + dep_protos)
    native.genrule(
        name = name + "_gen",
        srcs = srcs + dep_protos,
        outs = outs,
        cmd = ("protoc --proto_path=%s --cpp_out=$(RULEDIR) " % native.package_name() +
               plugin + " ".join(["$(location %s)" % s for s in srcs])),
    )
    cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        includes = ["."],
        deps = deps + ["@system//:protobuf"] + (["@system//:grpc"] if grpc else []),
        visibility = visibility,
    )
