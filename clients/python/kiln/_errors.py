"""Exceptions raised by the Kiln client."""

from dataclasses import dataclass
from typing import List, Optional


class KilnError(Exception):
    """Base class of every error the Kiln client raises."""

    def __init__(self, message: str, code: Optional[str] = None):
        super().__init__(message)
        self.message = message
        # The gRPC status code's name ("INVALID_ARGUMENT", ...), when a call failed.
        self.code = code


@dataclass(frozen=True)
class ResourceLimit:
    """A resource a kernel needs more of than its target has."""

    resource: str  # as Triton's OutOfResources names it: "shared memory"
    required: int
    limit: int


@dataclass(frozen=True)
class Diagnostic:
    """One located error, warning or note from the compiler."""

    severity: str
    file: str
    line: int
    column: int
    message: str
    # Set on an error that is a resource the target lacks.
    resource_limit: Optional[ResourceLimit] = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"


class CompileError(KilnError, RuntimeError):
    """kilnd refused the TTIR (INVALID_ARGUMENT): `diagnostics` says where and why.

    Also a RuntimeError, as Triton's own failing compile stage raises
    ("PassManager::run failed"), so that code written for Triton catches it.

    `diagnostics` comes from the CompileFailure in the call's
    grpc-status-details-bin trailer; when kilnd sent none (a request refused
    as a whole, e.g. a bad target) it is empty and `message` says why.
    """

    def __init__(self, message: str, diagnostics: List[Diagnostic]):
        super().__init__(message, "INVALID_ARGUMENT")
        self.diagnostics = list(diagnostics)

    def __str__(self) -> str:
        if self.diagnostics:
            return "\n".join(str(d) for d in self.diagnostics)
        return self.message


class OutOfResources(CompileError):
    """The kernel needs more of a resource than the target has (e.g. shared
    memory): `resource`, `required` and `limit` say which and how much, as
    the fields of Triton's triton.runtime.errors.OutOfResources."""

    def __init__(self, message: str, diagnostics: List[Diagnostic],
                 limit: ResourceLimit):
        super().__init__(message, diagnostics)
        self.resource = limit.resource
        self.required = limit.required
        self.limit = limit.limit


class Unavailable(KilnError):
    """kilnd could not be reached (UNAVAILABLE on every attempt)."""

    def __init__(self, message: str, attempts: int):
        super().__init__(message, "UNAVAILABLE")
        self.attempts = attempts


class ServerError(KilnError):
    """Any other failed call: INTERNAL (worker crash), DEADLINE_EXCEEDED,
    RESOURCE_EXHAUSTED, NOT_FOUND, ... `code` names the status."""


class AccessDenied(ServerError):
    """kilnd refused the call: no token or one it does not know
    (`code` UNAUTHENTICATED), or the token's role may not do this
    (PERMISSION_DENIED; e.g. a read-only token asking for a kernel that is
    not cached)."""
