#!/usr/bin/env python3
"""Makes a large plain-JSON Kineto trace for the import benchmark.

Repeats the traceEvents of a real (shared) Kineto trace until the output is about --target-mb MB.
Copy k is shifted in time by k spans of the source trace, and its correlation ids, flow ids,
External ids, autograd sequence numbers and ProfilerStep#N numbers are offset so that every copy
stays unique, as if the profiler had recorded k more steps. Metadata events ('M': process and
thread names) are written once, as a real trace has them. The other top-level members
(schemaVersion, deviceProperties, ...) are kept verbatim.

Each event keeps the source's own text layout (Kineto's indented style), so the bytes per event
match a real trace; only the numbers listed above are rewritten. Events are written one by one, so
the generator needs memory for the source trace only, not for the output.

Python 3 standard library only.
"""

import argparse
import gzip
import json
import math
import os
import re
import sys

DEFAULT_SOURCE = ("/work/shared/traces/kineto-v100-resnet50-workers0/"
                  "worker0.1623143089861.pt.trace.json.gz")

# Numbers rewritten per copy, by key. The key must be the exact JSON key (quotes included) so that
# "Device Id" or text inside strings never matches; a key inside a JSON string has its quotes
# escaped and cannot match either.
_TIME_KEYS = ("ts", "external ts")
_CORRELATION_KEYS = ("correlation", "id")          # flow "id" equals the correlation id
_EXTERNAL_KEYS = ("External id", "external id")
_SEQUENCE_KEYS = ("Sequence number",)
_NUMBER_RE = re.compile(
    r'"(ts|external ts|correlation|id|External id|external id|Sequence number)"(\s*:\s*)'
    r'(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)')
_STEP_RE = re.compile(r'"ProfilerStep#(\d+)"')


def read_source(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        return f.read().decode("utf-8")


def split_document(text):
    """Returns (prefix, [(event_text, event_obj)], suffix): prefix ends with the '[' of
    traceEvents, suffix starts right after its closing ']'."""
    decoder = json.JSONDecoder()
    match = re.search(r'"traceEvents"\s*:\s*\[', text)
    if not match:
        sys.exit("error: the source has no \"traceEvents\" array")
    prefix = text[:match.end()]
    pos = match.end()
    events = []
    whitespace = re.compile(r"\s*")
    while True:
        pos = whitespace.match(text, pos).end()
        if text[pos] == "]":
            break
        obj, end = decoder.raw_decode(text, pos)
        events.append((text[pos:end], obj))
        pos = whitespace.match(text, end).end()
        if text[pos] == ",":
            pos += 1
        elif text[pos] != "]":
            sys.exit(f"error: unexpected {text[pos]!r} at character {pos} in traceEvents")
    suffix = text[pos + 1:]
    # The rest must still be a valid document (e.g. traceEvents was not nested somewhere).
    json.loads(prefix + "]" + suffix)
    return prefix, events, suffix


def compile_template(event_text):
    """Splits an event's text into literal pieces and (kind, number text) slots."""
    pieces = []
    slots = []
    last = 0
    spans = []
    for m in _NUMBER_RE.finditer(event_text):
        spans.append((m.start(3), m.end(3), m.group(1), m.group(3)))
    for m in _STEP_RE.finditer(event_text):
        spans.append((m.start(1), m.end(1), "step", m.group(1)))
    spans.sort()
    for start, end, key, number in spans:
        pieces.append(event_text[last:start])
        slots.append((key, number))
        last = end
    pieces.append(event_text[last:])
    return pieces, slots


def shifted(key, number, copy, strides):
    if copy == 0:
        return number
    if key in _TIME_KEYS:
        whole, dot, fraction = number.partition(".")
        if "e" in number or "E" in number:
            return repr(float(number) + copy * strides["time"])
        return str(int(whole) + copy * strides["time"]) + dot + fraction
    if "." in number or "e" in number or "E" in number:
        return number  # not an id we know how to offset
    value = int(number)
    if value <= 0:
        return number  # 0 / -1 mean "none"
    if key in _CORRELATION_KEYS:
        return str(value + copy * strides["correlation"])
    if key in _EXTERNAL_KEYS:
        return str(value + copy * strides["external"])
    if key in _SEQUENCE_KEYS:
        return str(value + copy * strides["sequence"])
    if key == "step":
        return str(value + copy * strides["step"])
    return number


def strides_of(events):
    starts, ends = [], []
    max_correlation = max_external = max_sequence = 0
    steps = []
    for _, obj in events:
        if obj.get("ph") == "M":
            continue
        ts = obj.get("ts")
        if isinstance(ts, (int, float)):
            starts.append(ts)
            dur = obj.get("dur", 0)
            ends.append(ts + (dur if isinstance(dur, (int, float)) else 0))
        args = obj.get("args") or {}
        for key in ("correlation",):
            if isinstance(args.get(key), int):
                max_correlation = max(max_correlation, args[key])
        if isinstance(obj.get("id"), int):
            max_correlation = max(max_correlation, obj["id"])
        for key in _EXTERNAL_KEYS:
            if isinstance(args.get(key), int):
                max_external = max(max_external, args[key])
        if isinstance(args.get("Sequence number"), int):
            max_sequence = max(max_sequence, args["Sequence number"])
        name = obj.get("name")
        if isinstance(name, str):
            m = re.fullmatch(r"ProfilerStep#(\d+)", name)
            if m:
                steps.append(int(m.group(1)))
    if not starts:
        sys.exit("error: no timed events in the source")
    return {
        # One microsecond of gap so that copies never overlap.
        "time": int(math.ceil(max(ends) - min(starts))) + 1,
        "correlation": max_correlation + 1,
        "external": max_external + 1,
        "sequence": max_sequence + 1,
        "step": (max(steps) - min(steps) + 1) if steps else 0,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", nargs="?", default=DEFAULT_SOURCE,
                        help="Kineto trace to repeat (.json or .json.gz)")
    parser.add_argument("-o", "--output", required=True, help="plain JSON file to write")
    parser.add_argument("--target-mb", type=float, default=1024.0,
                        help="approximate output size in MB (2^20 bytes), default 1024")
    args = parser.parse_args()

    try:
        text = read_source(args.source)
    except (OSError, UnicodeDecodeError) as error:
        sys.exit(f"error: cannot read {args.source}: {error}")
    prefix, events, suffix = split_document(text)
    del text
    strides = strides_of(events)
    metadata = [e for e in events if e[1].get("ph") == "M"]
    repeated = [e for e in events if e[1].get("ph") != "M"]
    templates = [compile_template(t) for t, _ in repeated]
    separator = ",\n  "

    copy_bytes = sum(len(t.encode("utf-8")) + len(separator) for t, _ in repeated)
    fixed_bytes = (len(prefix.encode("utf-8")) + len(suffix.encode("utf-8")) +
                   sum(len(t.encode("utf-8")) + len(separator) for t, _ in metadata))
    target_bytes = args.target_mb * (1 << 20)
    copies = max(1, round((target_bytes - fixed_bytes) / copy_bytes))
    print(f"source: {args.source}: {len(events)} events ({len(metadata)} metadata), "
          f"{copy_bytes / 1e6:.1f} MB per copy, span {strides['time']} us; writing {copies} copies",
          file=sys.stderr)

    events_written = 0
    tmp = args.output + ".partial"
    with open(tmp, "w", encoding="utf-8", newline="", buffering=8 << 20) as out:
        out.write(prefix)
        out.write("\n  ")
        first = True
        for event_text, _ in metadata:
            if not first:
                out.write(separator)
            out.write(event_text)
            first = False
            events_written += 1
        for copy in range(copies):
            chunk = []
            for pieces, slots in templates:
                if not first:
                    chunk.append(separator)
                first = False
                if not slots:
                    chunk.append(pieces[0])
                    continue
                parts = [pieces[0]]
                for i, (key, number) in enumerate(slots):
                    parts.append(shifted(key, number, copy, strides))
                    parts.append(pieces[i + 1])
                chunk.append("".join(parts))
            out.write("".join(chunk))
            events_written += len(templates)
            print(f"  copy {copy + 1}/{copies}", file=sys.stderr, end="\r")
        out.write("\n]")
        out.write(suffix)
    os.replace(tmp, args.output)
    size = os.path.getsize(args.output)
    print(file=sys.stderr)
    print(f"wrote {args.output}: {events_written} events, {size} bytes ({size / 1e6:.1f} MB), "
          f"{copies} copies")


if __name__ == "__main__":
    main()
