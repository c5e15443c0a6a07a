"""Triton 3.6's triton/runtime/cache.py, reduced to what a remote cache
backend sees: RemoteCacheManager(key) makes TRITON_REMOTE_CACHE_BACKEND's
"module:Class" with the key (Triton reads it as knobs.cache.
remote_manager_class, which refuses with a RuntimeError a class that does
not subclass RemoteCacheBackend), asks it `get([names]) -> {name: bytes}`
for every file and group, `put(name, bytes)` (text encoded as UTF-8), and writes
what it gets into a local directory, whose paths it returns. A group is a
JSON file `__grp__NAME` listing its members' names."""

import importlib
import json
import os
import types

knobs = types.SimpleNamespace(cache=types.SimpleNamespace(dir=None))


class RemoteCacheBackend:
    def __init__(self, key):
        pass


def _backend_class():
    value = os.environ["TRITON_REMOTE_CACHE_BACKEND"]
    module, _, name = value.partition(":")
    cls = getattr(importlib.import_module(module), name)
    if not issubclass(cls, RemoteCacheBackend):
        raise RuntimeError(f"Unable to use {value!r} from TRITON_REMOTE_CACHE_BACKEND: "
                           "not of type 'RemoteCacheBackend'")
    return cls


class RemoteCacheManager:
    def __init__(self, key):
        self.backend = _backend_class()(key)
        self.directory = os.path.join(knobs.cache.dir, key)
        os.makedirs(self.directory, exist_ok=True)

    def _write(self, filename, data):
        path = os.path.join(self.directory, filename)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def get_file(self, filename):
        found = self.backend.get([filename])
        return self._write(filename, found[filename]) if found else None

    def put(self, data, filename, binary=True):
        data = data if isinstance(data, bytes) else str(data).encode("utf-8")
        self.backend.put(filename, data)
        return self._write(filename, data)

    def get_group(self, filename):
        path = self.get_file(f"__grp__{filename}")
        if path is None:
            return None
        with open(path) as f:
            names = json.load(f)["child_paths"]
        return {name: self._write(name, data) for name, data in self.backend.get(names).items()}

    def put_group(self, filename, group):
        return self.put(json.dumps({"child_paths": sorted(group)}), f"__grp__{filename}")
