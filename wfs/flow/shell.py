"""Where each `[name]` of a bash command sits, as bash will read it (SPEC §3.4).

A substituted value must reach the command as data, and how to write it depends on
how bash reads the spot it stands in:

- `word`: a word of a command, also inside `$(...)` and backticks, or an operand of
  `[[ ]]` that is compared as a string: a quoted expansion;
- `double`: inside double quotes, or in a here-document that expands: a bare expansion;
- `single`: inside single quotes (`ansi`: inside `$'...'`): the quote is closed around it;
- `literal`: in a here-document that does not expand (`<<'EOF'`): the text itself,
  since bash reads none of it, unless a line of it would end the document;
- `arithmetic`: `$(( ))`, `(( ))`, `let`, an operand of `-eq`/`-lt`/... or of `-v` in
  `[[ ]]`, an array subscript, the inside of `${...}`: bash evaluates the text as an
  expression there, and an expression can run commands (`a[$(cmd)]`), so only a whole
  number is written, anything else is refused;
- `comment`: after `#`: left as written, bash ignores it.

The scanner follows quotes, `$(...)`, backticks, `${...}`, arithmetic, `[[ ]]`,
comments and here-documents, nested to any depth.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

from wfs.command_forms import TOKEN as TOKEN  # re-exported: `[name]`, where it is defined

ARITHMETIC_OPERATORS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_WORD_BREAK = " \t\n;&|()<>"
_HEREDOC = r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\n]*)\"|\\?([^\s;&|()<>]+))"


class Slot(NamedTuple):
    """A known `[name]` in a command: its value, and how bash reads the spot."""

    name: str
    value: Any
    context: str  # word | double | single | ansi | literal | arithmetic | comment
    detail: str  # for messages: the construct it sits in, e.g. "$(( ))"
    delimiter: str = ""  # for `literal`: the line that would end the here-document


Lookup = Callable[[str], tuple[bool, Any]]


def scan(command: str, lookup: Lookup) -> list[str | Slot]:
    """`command` cut into literal text and the known `[name]` tokens in it."""
    if "[" not in command:  # no token: literal text whole (most steps of a plan)
        return [command] if command else []
    return _Scanner(command, lookup).run()


class _Scanner:
    def __init__(self, text: str, lookup: Lookup) -> None:
        self.text = text
        self.lookup = lookup
        self.out: list[str | Slot] = []
        self.buf: list[str] = []
        # Each frame: (kind, detail). Kinds: word, double, single, ansi, arith, param,
        # cond, comment, heredoc, literal.
        self.stack: list[tuple[str, str]] = [("word", "")]
        self.pending: list[tuple[str, bool, bool]] = []  # here-documents to read
        self.command_start = True  # at the first word of a simple command
        self.let_command = False  # the rest of this simple command is arithmetic
        self.cond_words: list[str] = []  # words read so far inside [[ ]]
        self.word: list[str] = []  # the word being read (for `let`, `[[` and its operators)
        self.heredoc_strip = False  # the current here-document is `<<-`: tabs are stripped

    # ---------------------------------------------------------------- helpers

    def emit(self, text: str) -> None:
        self.buf.append(text)

    def flush(self) -> None:
        if self.buf:
            self.out.append("".join(self.buf))
            self.buf = []

    def startswith(self, i: int, prefix: str) -> bool:
        return self.text.startswith(prefix, i)

    def at_word_start(self, i: int) -> bool:
        return i == 0 or self.text[i - 1] in _WORD_BREAK

    def end_word(self) -> None:
        word = "".join(self.word)
        self.word = []
        if not word:
            return
        kind = self.stack[-1][0]
        if kind == "cond":
            self.cond_words.append(word)
        elif kind == "word" and self.command_start:
            self.command_start = False
            if word == "let":
                self.let_command = True

    def end_command(self) -> None:
        self.end_word()
        self.command_start = True
        self.let_command = False

    # ---------------------------------------------------------------- tokens

    def token(self, i: int) -> int | None:
        """Handle a `[name]` at i; the index after it, or None if it is not one."""
        match = TOKEN.match(self.text, i)
        if not match:
            return None
        found, value = self.lookup(match.group(1))
        if not found:
            return None
        context, detail = self.context_of(i, match.end())
        self.flush()
        delimiter = self.stack[-1][1] if context == "literal" else ""
        self.out.append(Slot(match.group(1), value, context, detail, delimiter))
        self.word.append("\0")  # a token is part of the word being read
        return match.end()

    def context_of(self, start: int, end: int) -> tuple[str, str]:
        kind, detail = self.stack[-1]
        if kind in ("arith", "aparen", "param"):
            return "arithmetic", detail
        if kind == "comment":
            return "comment", "#"
        if kind in ("single", "ansi", "literal"):
            return kind, detail
        if kind in ("double", "heredoc"):
            return "double", detail
        if self.text[start - 1 : start] == "[" and self.text[end : end + 1] == "]":
            return "arithmetic", "an array subscript"
        if kind == "cond":
            before = self.cond_words[-1] if self.cond_words and not self.word else ""
            after = self.text[end:].split(None, 1)[0] if self.text[end:].strip() else ""
            if before in ARITHMETIC_OPERATORS or after in ARITHMETIC_OPERATORS:
                return "arithmetic", f"[[ {before or after} ]]"
            if before == "-v":
                return "arithmetic", "[[ -v ]]"
            return "word", "[[ ]]"
        if self.let_command:
            return "arithmetic", "let"
        return "word", ""

    # ---------------------------------------------------------------- the scan

    def run(self) -> list[str | Slot]:
        i, n = 0, len(self.text)
        while i < n:
            i = self.step(i)
        self.flush()
        return self.out

    def step(self, i: int) -> int:
        kind = self.stack[-1][0]
        ch = self.text[i]
        if ch == "[":
            after = self.token(i)
            if after is not None:
                return after
        if kind == "comment":
            if ch == "\n":
                self.stack.pop()
                return self.newline(i)
            self.emit(ch)
            return i + 1
        if kind == "single":
            if ch == "'":
                self.stack.pop()
            self.emit(ch)
            return i + 1
        if kind == "ansi":
            if ch == "\\" and i + 1 < len(self.text):
                self.emit(self.text[i : i + 2])
                return i + 2
            if ch == "'":
                self.stack.pop()
            self.emit(ch)
            return i + 1
        if kind == "literal":
            return self.heredoc_char(i, expands=False)
        if ch == "\\" and i + 1 < len(self.text):
            self.emit(self.text[i : i + 2])
            self.word.append(self.text[i + 1])
            return i + 2
        opened = self.open_expansion(i)
        if opened is not None:
            return opened
        if kind == "heredoc":
            return self.heredoc_char(i, expands=True)
        if kind == "double":
            if ch == '"':
                self.stack.pop()
            self.emit(ch)
            return i + 1
        if kind in ("arith", "aparen"):
            return self.arith_char(i)
        if kind == "param":
            if ch == "}":
                self.stack.pop()
            self.emit(ch)
            return i + 1
        return self.word_char(i)

    def open_expansion(self, i: int) -> int | None:
        """`$((`, `$(`, `${`, backticks: the constructs that nest everywhere but quotes."""
        if self.startswith(i, "$(("):
            self.stack.append(("arith", "$(( ))"))
            self.emit("$((")
            return i + 3
        if self.startswith(i, "$("):
            self.stack.append(("word", ")"))
            self.emit("$(")
            self.command_start = True
            return i + 2
        if self.startswith(i, "${"):
            self.stack.append(("param", "${...}"))
            self.emit("${")
            return i + 2
        if self.text[i] == "`":
            if self.stack[-1] == ("word", "`"):
                self.stack.pop()
            else:
                self.stack.append(("word", "`"))
                self.command_start = True
            self.emit("`")
            return i + 1
        return None

    def arith_char(self, i: int) -> int:
        """Inside arithmetic: `(` opens a group (`aparen`) closed by `)`; the arithmetic
        itself ends at `))`."""
        kind, detail = self.stack[-1]
        ch = self.text[i]
        if ch == "(":
            self.stack.append(("aparen", detail))
            self.emit(ch)
            return i + 1
        if kind == "arith" and self.startswith(i, "))"):
            self.stack.pop()
            self.emit("))")
            return i + 2
        if ch == ")":
            self.stack.pop()
        self.emit(ch)
        return i + 1

    def word_char(self, i: int) -> int:
        ch = self.text[i]
        closing = self.stack[-1][1]
        kind = self.stack[-1][0]
        if kind == "word" and closing == ")" and ch == ")":
            self.end_word()
            self.stack.pop()
            self.emit(ch)
            return i + 1
        if kind == "cond" and self.startswith(i, "]]") and self.at_word_start(i):
            self.end_word()
            self.stack.pop()
            self.cond_words = []
            self.emit("]]")
            return i + 2
        if ch == "#" and self.at_word_start(i):
            self.end_word()
            self.stack.append(("comment", "#"))
            self.emit(ch)
            return i + 1
        if ch == "'":
            self.stack.append(("single", "'...'"))
            self.emit(ch)
            return i + 1
        if self.startswith(i, "$'"):
            self.stack.append(("ansi", "$'...'"))
            self.emit("$'")
            return i + 2
        if ch == '"':
            self.stack.append(("double", '"..."'))
            self.emit(ch)
            return i + 1
        if kind == "word" and self.command_start and self.startswith(i, "((") and not self.word:
            self.stack.append(("arith", "(( ))"))
            self.emit("((")
            return i + 2
        if (
            kind == "word"
            and self.command_start
            and not self.word
            and self.startswith(i, "[[")
            and self.text[i + 2 : i + 3] in (" ", "\t", "\n")
        ):
            self.stack.append(("cond", "[[ ]]"))
            self.cond_words = []
            self.command_start = False
            self.emit("[[")
            return i + 2
        if self.startswith(i, "<<") and not self.startswith(i, "<<<"):
            match = re.compile(_HEREDOC).match(self.text, i)
            if match:
                quoted = match.group(2) is not None or match.group(3) is not None
                quoted = quoted or self.text[match.start(4) - 1 : match.start(4)] == "\\"
                delimiter = next(g for g in match.group(2, 3, 4) if g is not None)
                self.pending.append((delimiter, quoted, bool(match.group(1))))
                self.end_word()
                self.emit(match.group(0))
                return match.end()
        if ch == "\n":
            return self.newline(i)
        if ch in ";&|":
            self.end_command()
            self.emit(ch)
            return i + 1
        if ch == "(" and kind == "word":
            self.end_word()
            self.stack.append(("word", ")"))  # a subshell or group, closed by `)`
            self.command_start = True
            self.emit(ch)
            return i + 1
        if ch in " \t()<>":
            self.end_word()
            self.emit(ch)
            return i + 1
        self.word.append(ch)
        self.emit(ch)
        return i + 1

    def newline(self, i: int) -> int:
        """End of a line: the command ends, and pending here-documents begin."""
        self.emit("\n")
        if self.stack[-1][0] != "cond":
            self.end_command()
        if self.pending:
            delimiter, quoted, strip = self.pending.pop(0)
            self.stack.append(("literal" if quoted else "heredoc", delimiter))
            self.heredoc_strip = strip
            return self.heredoc_line_start(i + 1)
        return i + 1

    def heredoc_line_start(self, i: int) -> int:
        """At the start of a here-document line: its end, or its first character."""
        delimiter = self.stack[-1][1]
        end = self.text.find("\n", i)
        line = self.text[i : len(self.text) if end < 0 else end]
        if (line.lstrip("\t") if self.heredoc_strip else line) == delimiter:
            self.stack.pop()
            self.emit(line)
            if end < 0:
                return len(self.text)
            return self.newline(end)
        return i

    def heredoc_char(self, i: int, expands: bool) -> int:
        ch = self.text[i]
        self.emit(ch)
        if ch == "\n":
            return self.heredoc_line_start(i + 1)
        return i + 1
