#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target (Fuzz/Corpus/<Target>/) from the protocol
vectors (shared/reference/vectors.md) and a few hand-written requests, envelopes and JSON texts
taken from the unit tests. Run it again after the vectors change:

    python3 Fuzz/make-seeds.py [path/to/vectors.md]

Each seed starts with the selector byte its target reads (see the target's doc comment)."""
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared", "reference", "vectors.md")
CORPUS = os.path.join(HERE, "Corpus")


def parts(cell):
    """The messages of a table cell: text (str, with \\x1e made real) or bytes (<hex>)."""
    found = []
    for code in re.findall(r"`([^`]*)`", cell):
        hexed = re.fullmatch(r"<([0-9a-f ]*)>", code)
        if hexed:
            found.append(bytes.fromhex(hexed.group(1)))
        else:
            found.append(code.replace("\\x1e", "\x1e"))
    if not found and cell.strip().startswith("(empty)"):
        found.append("")
    return found


def rows(text):
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if cells and re.fullmatch(r"[A-Z][A-Z0-9]*-[A-Z0-9]+", cells[0]):
            yield cells


def utf8(x):
    return x if isinstance(x, bytes) else x.encode("utf-8")


seeds = {name: {} for name in ["FuzzEngineIOPacket", "FuzzPollingPayload", "FuzzSocketIOPacket",
                               "FuzzJSON", "FuzzEnvelope", "FuzzEngineRequest", "FuzzMessagePack"]}


def socketio_seed(version_byte, messages):
    """Text first; later text messages get the 0xFF marker; pieces joined by 0x00."""
    pieces = []
    for i, m in enumerate(messages):
        if isinstance(m, bytes):
            pieces.append(m)
        else:
            pieces.append(utf8(m) if i == 0 else b"\xff" + utf8(m))
    return bytes([version_byte]) + b"\x00".join(pieces)


with open(VECTORS, encoding="utf-8") as f:
    for cells in rows(f.read()):
        vid = cells[0]
        prefix = vid.split("-")[0]
        if prefix in ("E4", "E3"):
            (m,) = parts(cells[2])[:1]
            v3 = 1 if prefix == "E3" else 0
            binary = 2 if isinstance(m, bytes) else 0
            seeds["FuzzEngineIOPacket"][vid] = bytes([v3 | binary]) + utf8(m)
        elif prefix in ("P4", "P3"):
            (m,) = parts(cells[2])[:1]
            seeds["FuzzPollingPayload"][vid] = bytes([0 if prefix == "P4" else 1]) + utf8(m)
            if prefix == "P4":
                seeds["FuzzEngineRequest"][vid] = (
                    b"\x00POST\n/socket.io/?EIO=4&transport=polling&sid=cFgA3LSXVcSAVuDwAAAD\n\ntext/plain;charset=UTF-8\n"
                    + utf8(m))
        elif prefix == "B3":
            (m,) = parts(cells[2])[:1]
            seeds["FuzzPollingPayload"][vid] = b"\x02" + m
        elif prefix in ("S5", "S4"):
            messages = parts(cells[2])
            seeds["FuzzSocketIOPacket"][vid] = socketio_seed(0 if prefix == "S5" else 1, messages)
            json_start = re.search(r"[\[{\"]", messages[0])
            if json_start:
                seeds["FuzzJSON"][vid] = utf8(messages[0][json_start.start():])
        elif prefix == "X":
            layer, messages = cells[1], parts(cells[2])
            if layer == "EIO4 packet":
                seeds["FuzzEngineIOPacket"][vid] = b"\x00" + utf8(messages[0])
            elif layer == "EIO4 body":
                seeds["FuzzPollingPayload"][vid] = b"\x00" + utf8(messages[0])
            elif layer == "EIO3 body":
                seeds["FuzzPollingPayload"][vid] = b"\x01" + utf8(messages[0])
            elif layer == "SIO v5":
                seeds["FuzzSocketIOPacket"][vid] = socketio_seed(0, messages)

# JSON texts beyond the packets' payloads: the parser's edge cases.
for name, text in {
    "numbers": '[0,-0,1.5e3,-2.25E-2,9007199254740993,1e400,123456789012345678901234567890]',
    "escapes": '"\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0041 \\ud83d\\ude00 \\ud800 \\udc00 \\u20ac"',
    "nested": '{"a":[{"b":[[],{}]},null,true,false],"a":"last"}',
    "utf8": '["€😀é", "\u0001"]'.replace("\u0001", "\\u0001"),
    "whitespace": ' \t\r\n[ 1 , 2 ]\n',
}.items():
    seeds["FuzzJSON"][name] = text.encode("utf-8")

# Envelopes: the table in Envelope.swift and EnvelopeTests.
for name, text in {
    "event": '{"type":"event","event":"news","data":{"title":"hi"},"seq":12}',
    "request": '{"type":"request","event":"echo","data":"hello","id":7}',
    "reply": '{"type":"reply","id":7,"data":["hello",null]}',
    "error": '{"type":"error","id":7,"message":"no handler for \\"echo\\""}',
    "error-without-id": '{"type":"error","message":"bad"}',
    "ack": '{"type":"ack","seq":12}',
    "largest": '{"type":"request","event":"e","data":null,"id":9007199254740991,"seq":9007199254740991}',
    "extra-members": '{"seq":1,"event":"a","type":"event","extra":{"x":1}}',
    "binary-object": '{"type":"event","event":"b","data":{"base64":"AQID"}}',
}.items():
    seeds["FuzzEnvelope"][name] = text.encode("utf-8")

# HTTP requests (transcript 11.1 and the JS server's errors), selector 0: default configuration.
SID = "cFgA3LSXVcSAVuDwAAAD"
for name, (selector, request) in {
    "handshake": (0, "GET\n/socket.io/?EIO=4&transport=polling&t=N8hyd6w\n\n\n"),
    "poll": (0, f"GET\n/socket.io/?EIO=4&transport=polling&sid={SID}&t=N8hyd6w\n\n\n"),
    "post-connect": (0, f"POST\n/socket.io/?EIO=4&transport=polling&sid={SID}\n\ntext/plain;charset=UTF-8\n40"),
    "post-binary-type": (0, f"POST\n/socket.io/?EIO=4&transport=polling&sid={SID}\n\napplication/octet-stream\n40"),
    "websocket-no-upgrade": (0, "GET\n/socket.io/?EIO=4&transport=websocket\n\n\n"),
    "eio3": (0, "GET\n/socket.io/?EIO=3&transport=polling&b64=1\n\n\n"),
    "unknown-transport": (0, "GET\n/socket.io/?EIO=4&transport=flashsocket\n\n\n"),
    "post-handshake": (0, "POST\n/socket.io/?EIO=4&transport=polling\n\n\n"),
    "percent-encoded": (0, "GET\n/socket.io?EIO=%34&transport=pol%6Cing&name=a+b%zz&sid\n\n\n"),
    "not-found": (0, "GET\n/other/?EIO=4&transport=polling\n\n\n"),
    "preflight": (2, "OPTIONS\n/socket.io/?EIO=4&transport=polling\nhttps://app.example.com\n\n"),
    "refused-origin": (2, "GET\n/socket.io/?EIO=4&transport=polling\nhttps://evil.example\n\n"),
    "custom-path": (8, "GET\n/custom?EIO=4&transport=polling\n\n\n"),
}.items():
    seeds["FuzzEngineRequest"][name] = bytes([selector]) + request.encode("utf-8")

# MessagePack (the cluster adapter's attachments): one value of each format family, from the
# specification's format table, and a broadcast message as the adapter stores it.
for name, hexbytes in {
    "nil": "c0", "true": "c3", "fixint": "7f", "uint8": "cc80", "int8": "d0df", "negative-fixint": "e0",
    "float64": "cb3fe0000000000000", "float32": "ca3fc00000", "fixstr": "a161", "str8": "d9026869",
    "bin8": "c403010203", "fixarray": "9201a161", "array32": "dd0000000101", "fixmap": "81a16101",
    "timestamp32": "d6ff00000000", "ext8": "c70307010203",
    "cluster-message": "83a3756964a131a47479706503a36e7370a12f",  # {"uid":"1","type":3,"nsp":"/"}
}.items():
    seeds["FuzzMessagePack"][name] = bytes.fromhex(hexbytes)

for target, files in seeds.items():
    folder = os.path.join(CORPUS, target)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as out:
            out.write(data)
    print(f"{target}: {len(files)} seeds")
