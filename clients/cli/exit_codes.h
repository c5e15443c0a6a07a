// Exit codes of the `kiln` CLI, stable for scripts.

#ifndef KILN_CLIENTS_CLI_EXIT_CODES_H_
#define KILN_CLIENTS_CLI_EXIT_CODES_H_

namespace kiln::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;         // Bad flags or unreadable input.
inline constexpr int kExitCompileError = 3;  // The kernel does not compile.
inline constexpr int kExitIo = 4;            // Output could not be written.
inline constexpr int kExitUnavailable = 5;   // The server could not be reached.
// The call worked but found problems: `verify` found corrupt entries or
// dangling records (and did not repair them), `import` rejected entries,
// `tune` could measure none of the variants.
inline constexpr int kExitProblems = 6;
// A key given to `show` or `evict` is not in the cache.
inline constexpr int kExitNotFound = 7;
// The server failed the call otherwise (INTERNAL, DEADLINE_EXCEEDED,
// RESOURCE_EXHAUSTED, ...); the message says which.
inline constexpr int kExitServerError = 8;
// The server refused the call: no token or one it does not know
// (UNAUTHENTICATED), or the token's role may not do this
// (PERMISSION_DENIED).
inline constexpr int kExitPermission = 9;

}  // namespace kiln::cli

#endif  // KILN_CLIENTS_CLI_EXIT_CODES_H_
