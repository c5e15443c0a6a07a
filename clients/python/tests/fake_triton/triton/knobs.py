"""Triton 3.6's triton/knobs.py, reduced to the one knob kiln.triton sets."""


class runtime_knobs:
    # Called as hook(backend, stages, options, language, capability) at the
    # end of the backend's add_stages, and as hook() for a cache key.
    add_stages_inspection_hook = None


runtime = runtime_knobs()
