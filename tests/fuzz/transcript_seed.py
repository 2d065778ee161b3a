#!/usr/bin/env python3
"""Turns language-server transcripts (tests/lsp/transcripts/*.jsonrpc: JSON messages separated by
`---` lines, `#` comments) into fuzz_lsp seeds: a mode byte, then each message framed with its
Content-Length header. Mode byte 0x07: chunks of 8 bytes, drained after each message; with
--batched, 0x87: all messages a chunk completes are queued before the server runs (a
`$/cancelRequest` then meets its request still waiting).

  transcript_seed.py [--batched] OUT_DIR TRANSCRIPT...
"""
import os
import sys


def messages(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for part in text.split("\n---"):
        body = "\n".join(line for line in part.splitlines() if not line.lstrip().startswith("#")).strip()
        if body:
            yield body.encode()  # as written: a transcript may hold malformed bodies on purpose


def main(argv):
    batched = "--batched" in argv
    argv = [a for a in argv if a != "--batched"]
    out, paths = argv[0], argv[1:]
    os.makedirs(out, exist_ok=True)
    for path in paths:
        seed = bytearray([0x87 if batched else 0x07])
        for body in messages(path):
            seed += b"Content-Length: %d\r\n\r\n" % len(body) + body
        name = os.path.splitext(os.path.basename(path))[0] + ("_batched" if batched else "") + ".bin"
        with open(os.path.join(out, name), "wb") as f:
            f.write(seed)


if __name__ == "__main__":
    main(sys.argv[1:])
