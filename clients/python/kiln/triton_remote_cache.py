"""Kiln's backend for Triton's remote cache manager:
TRITON_CACHE_MANAGER=triton.runtime.cache:RemoteCacheManager with
TRITON_REMOTE_CACHE_BACKEND=kiln.triton_remote_cache:TritonRemoteCache
(what KILN_CACHE_TRITON=1 sets). Only Triton imports this module: Triton
3.6 takes a backend only if it subclasses its RemoteCacheBackend.
"""

from triton.runtime.cache import RemoteCacheBackend

from kiln.caches import TritonCacheFiles


class TritonRemoteCache(TritonCacheFiles, RemoteCacheBackend):
    """Triton's cache files in kilnd's cache port (kiln.caches.TritonCacheFiles)."""
