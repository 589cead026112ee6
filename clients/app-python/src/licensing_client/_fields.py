"""The few RFC 8941 structured fields a signed answer carries, parsed strictly.

Debian ships no RFC 8941 library for Python (and this package depends only on
`cryptography` and `PyJWT`), so this module parses exactly the shapes the
service sends and refuses everything else: a dictionary whose members are
strings, integers, byte sequences, or inner lists of strings, each with
parameters of those types. Tokens, decimals, booleans and display strings are
never sent, so they are errors here rather than guesses.
"""

import base64
import re

_KEY = re.compile(r"[a-z*][a-z0-9_.*-]*")
_INTEGER = re.compile(r"-?[0-9]{1,15}")
_BYTES = re.compile(r":([A-Za-z0-9+/=]*):")


class FieldError(ValueError):
    """A field that is not one of the shapes the service sends."""


class _Reader:
    def __init__(self, text):
        self.text = text
        self.at = 0

    def peek(self):
        return self.text[self.at] if self.at < len(self.text) else ""

    def skip(self, characters):
        while self.peek() and self.peek() in characters:
            self.at += 1

    def expect(self, character):
        if self.peek() != character:
            raise FieldError("expected %r at %d" % (character, self.at))
        self.at += 1

    def match(self, pattern):
        found = pattern.match(self.text, self.at)
        if not found:
            raise FieldError("unexpected character at %d" % self.at)
        self.at = found.end()
        return found

    def key(self):
        return self.match(_KEY).group(0)

    def string(self):
        self.expect('"')
        out = []
        while True:
            character = self.peek()
            if not character:
                raise FieldError("unterminated string")
            self.at += 1
            if character == '"':
                return "".join(out)
            if character == "\\":
                escaped = self.peek()
                if escaped not in ('"', "\\") or not escaped:
                    raise FieldError("bad escape in string")
                self.at += 1
                out.append(escaped)
            elif " " <= character <= "~":
                out.append(character)
            else:
                raise FieldError("bad character in string")

    def bare_item(self):
        character = self.peek()
        if character == '"':
            return self.string()
        if character == ":":
            try:
                return base64.b64decode(self.match(_BYTES).group(1), validate=True)
            except ValueError as error:
                raise FieldError("bad byte sequence") from error
        if character == "-" or character.isdigit():
            value = self.match(_INTEGER).group(0)
            if self.peek() == ".":
                raise FieldError("decimals are not expected")
            return int(value)
        raise FieldError("unexpected item at %d" % self.at)

    def parameters(self):
        params = {}
        while self.peek() == ";":
            self.at += 1
            self.skip(" ")
            name = self.key()
            value = True
            if self.peek() == "=":
                self.at += 1
                value = self.bare_item()
            params[name] = value
        return params

    def inner_list(self):
        self.expect("(")
        items = []
        while True:
            self.skip(" ")
            if self.peek() == ")":
                self.at += 1
                return items, self.parameters()
            value = self.bare_item()
            if not isinstance(value, str):
                raise FieldError("only strings are expected in an inner list")
            items.append((value, self.parameters()))
            if self.peek() not in (" ", ")"):
                raise FieldError("bad inner list")


def parse_dictionary(text):
    """{name: (value, params)}: value is an item, or for an inner list the list of (string, params)."""
    reader = _Reader(text.strip(" \t"))
    members = {}
    if not reader.text:
        raise FieldError("empty field")
    while True:
        name = reader.key()
        if reader.peek() != "=":
            raise FieldError("a member without a value is not expected")
        reader.at += 1
        if reader.peek() == "(":
            members[name] = reader.inner_list()
        else:
            value = reader.bare_item()
            members[name] = (value, reader.parameters())
        reader.skip(" \t")
        if not reader.peek():
            return members
        reader.expect(",")
        reader.skip(" \t")
        if not reader.peek():
            raise FieldError("trailing comma")


def _serialize_item(value):
    if isinstance(value, bool):
        raise FieldError("booleans are not expected")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise FieldError("cannot serialise %r" % (value,))


def serialize_parameters(params):
    return "".join(";" + name if value is True else ";%s=%s" % (name, _serialize_item(value)) for name, value in params.items())


def serialize_inner_list(items, params):
    """RFC 8941 serialisation: what RFC 9421 signs as "@signature-params"."""
    inner = " ".join(_serialize_item(value) + serialize_parameters(item_params) for value, item_params in items)
    return "(" + inner + ")" + serialize_parameters(params)
