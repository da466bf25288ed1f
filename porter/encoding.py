"""Source text encodings: what a file's bytes decode as, and the UTF-8 view porter edits.

Rules, parsers and patches work on UTF-8 bytes. A file in another text encoding (UTF-16 with a
BOM, or Latin-1/CP-1252 bytes in comments and strings, common in older CUDA corpora) is read
through its *view*: its text as UTF-8, BOM removed. The workspace writes a patched view back in
the file's own encoding, so every byte outside porter's edits comes back exactly as it was
(each codec here decodes and re-encodes losslessly). Only bytes that are not text in any of
these (NUL bytes outside UTF-16, control bytes) make a file binary: copied, never edited.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

# C0 control bytes that no text file holds (tab, LF, VT, FF, CR, DOS's end-of-file ^Z and ESC are allowed).
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x19\x1c-\x1f\x7f]")


@dataclass(frozen=True)
class Encoding:
    codec: str  # a Python codec name: utf-8, utf-16-le, utf-16-be, cp1252, latin-1
    bom: bytes = b""

    @property
    def name(self) -> str:
        return self.codec + ("-bom" if self.bom else "")

    @property
    def is_plain_utf8(self) -> bool:
        return self.codec == "utf-8" and not self.bom

    def view(self, data: bytes) -> bytes:
        """The file's text as UTF-8 bytes, without its BOM."""
        body = data[len(self.bom):]
        return body if self.codec == "utf-8" else body.decode(self.codec).encode("utf-8")

    def encode(self, view: bytes) -> bytes:
        """The file's bytes for a view. Text a codec cannot hold (a non-Latin character an edit
        brought into a CP-1252 file) is written as a backslash escape, which C, C++ and Python
        read as the same character in strings and ignore in comments."""
        if self.codec == "utf-8":
            return self.bom + view
        return self.bom + view.decode("utf-8").encode(self.codec, errors="backslashreplace")


UTF8 = Encoding("utf-8")
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def detect(data: bytes) -> tuple[Encoding | None, str]:
    """The text encoding of a file, or None for binary; and why, when it is binary."""
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom):].decode(codec)
            except UnicodeDecodeError:
                break  # a BOM then something else: judged as bytes below
            if "\0" in text or _CONTROL.search(text.encode("utf-8")):
                return None, f"{codec} byte order mark, but control characters follow: binary"
            return Encoding(codec, bom), ""
    if b"\0" in data:
        return None, "binary (NUL bytes)"
    try:
        data.decode("utf-8")
        return UTF8, ""
    except UnicodeDecodeError as e:
        first_bad = data[: e.start].count(b"\n") + 1
    if m := _CONTROL.search(data):
        line = data[: m.start()].count(b"\n") + 1
        return None, f"binary (not UTF-8 from line {first_bad}, control byte on line {line})"
    try:
        data.decode("cp1252")
        return Encoding("cp1252"), ""
    except UnicodeDecodeError:
        return Encoding("latin-1"), ""  # decodes every byte: the five bytes CP-1252 leaves undefined


def read_view(path: Path) -> tuple[bytes, Encoding | None]:
    """A file's UTF-8 view and its encoding; a binary file's raw bytes and None."""
    data = path.read_bytes()
    enc, _ = detect(data)
    return (data, None) if enc is None else (enc.view(data), enc)
