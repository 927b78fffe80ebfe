"""A printed command quoted for the user's shell (POSIX shells, PowerShell, cmd), so
that pasting it runs exactly the argv it shows."""

from __future__ import annotations

import shlex

from wfs.platform.shells import user_shell


def shell_join(argv: list[str], shell: str | None = None) -> str:
    """`argv` as one command line for `shell` (default: the user's, see user_shell),
    quoted so that pasting it runs exactly this argv."""
    shell = user_shell() if shell is None else shell
    if shell == "powershell":
        return powershell_join(argv)
    if shell == "cmd":
        return cmd_join(argv)

    return shlex.join(argv)


# What PowerShell reads as a plain word in argument mode.
_POWERSHELL_PLAIN = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./\\:=+%"
)
_POWERSHELL_QUOTES = "'\u2018\u2019\u201a\u201b"  # all of them close a '...' string


def powershell_join(argv: list[str]) -> str:
    """PowerShell: a word with anything special is put in '...', with every single
    quote (PowerShell counts the typographic ones too) doubled. A quoted program name
    is called with `&`."""
    words = []
    for arg in argv:
        if arg and all(c in _POWERSHELL_PLAIN for c in arg):
            words.append(arg)
        else:
            words.append("'" + "".join(c + c if c in _POWERSHELL_QUOTES else c for c in arg) + "'")
    if words and argv and words[0] != argv[0]:
        words[0] = "& " + words[0]
    return " ".join(words)


def cmd_join(argv: list[str]) -> str:
    """cmd.exe: each argument quoted by mslex for cmd.exe first and then for the
    program's own splitting (CommandLineToArgvW): double quotes around a word with a
    space or what cmd.exe acts on, and a caret before what it acts on even inside them
    (`%` and `!` that would expand a variable, a double quote that would end the
    quoting)."""
    import mslex  # deferred: only a command printed for cmd.exe

    return mslex.join(argv, for_cmd=True)
