"""The native column of the private-search benchmark: sealbox's search on native SEAL 4.1.

Runs the same BSGS matrix-vector product as he-core's searchKernel.ts on native SEAL
(the seal-python 4.1.2.1 wheel), on the same scaled database and the very query bundles
node-seal made, and answers with a response bundle that he-core's client decrypts and
checks against the plaintext oracle. Driven by NativeSearchHarness.ts: one JSON command
per stdin line, one JSON reply per stdout line.

Commands:
  {"cmd": "setup", "case": id, ...}   process the database, load the Galois keys, keep the queries
  {"cmd": "sample", "case": id, "query": k, "response": bool}   one timed evaluation
  {"cmd": "dispose", "case": id}

Phases are timed like PrivateSearchIndex.evaluate: decode (the envelope framing of the
query bundle: one CRC-32 over the bundle, which covers every item, and each item's
header), load (SEAL load of each query ciphertext: seed expansion), compute, save (mod
switch happens in compute, as in WASM; save = SEAL save of each result plus the response
envelope). The wheel is built without zstd or zlib, so the native side reads and writes
uncompressed (seeded) ciphertexts only.
"""

import base64
import json
import os
import resource
import struct
import sys
import tempfile
import time
import traceback
import zlib

import numpy as np
import seal

SCHEMES = {"bfv": seal.scheme_type.bfv, "bgv": seal.scheme_type.bgv}
MAGIC = b"SBX"
KIND_CIPHERTEXT = 7
KIND_BUNDLE = 8
HEADER = 52
QUERY_LABEL = "sealbox.search.query/"
RESPONSE_LABEL = "sealbox.search.response/"


def now():
    return time.perf_counter() * 1000.0


def cpu():
    # getrusage(RUSAGE_THREAD), the clock Node's process.threadCpuUsage() reads: both sides alike.
    usage = resource.getrusage(resource.RUSAGE_THREAD)
    return (usage.ru_utime + usage.ru_stime) * 1000.0


class RefusedQuery(Exception):
    pass


def read_frame(data, offset, what):
    """One envelope's header at `offset`: (kind, flags, compression, fingerprint, key set, meta, payload, end)."""
    if data[offset : offset + 3] != MAGIC or data[offset + 3] != 1:
        raise RefusedQuery(f"{what}: not a sealbox envelope")
    kind, flags, compression = data[offset + 4], data[offset + 5], data[offset + 6]
    payload_length, meta_length = struct.unpack_from("<QI", data, offset + 40)
    meta_start = offset + HEADER
    payload_start = meta_start + meta_length
    body_end = payload_start + payload_length
    if body_end + 4 > len(data):
        raise RefusedQuery(f"{what} is truncated")
    return {
        "kind": kind,
        "flags": flags,
        "compression": compression,
        "fingerprint": bytes(data[offset + 8 : offset + 24]),
        "key_set": bytes(data[offset + 24 : offset + 40]),
        "meta": bytes(data[meta_start:payload_start]),
        "payload": data[payload_start:body_end],
        "body_end": body_end,
        "end": body_end + 4,
    }


def decode_query(data, fingerprint, config_id, count):
    """The minimal framing read: bundle CRC, identity, label and count, then each item's header."""
    view = memoryview(data)
    bundle = read_frame(view, 0, "query bundle")
    if bundle["kind"] != KIND_BUNDLE or bundle["end"] != len(data):
        raise RefusedQuery("the query is not one bundle")
    (stored,) = struct.unpack_from("<I", data, bundle["body_end"])
    if zlib.crc32(view[: bundle["body_end"]]) != stored:
        raise RefusedQuery("the query bundle is corrupted (CRC-32)")
    if bundle["fingerprint"] != fingerprint:
        raise RefusedQuery("the query was made under other parameters")
    meta = json.loads(bundle["meta"])
    if meta.get("label") != QUERY_LABEL + config_id or meta.get("count") != count:
        raise RefusedQuery("the query is for another search config")
    payloads = []
    offset = bundle["end"] - 4 - len(bundle["payload"])
    for i in range(count):
        item = read_frame(view, offset, f"query item {i}")
        if item["kind"] != KIND_CIPHERTEXT or item["fingerprint"] != fingerprint:
            raise RefusedQuery(f"query item {i} is not a ciphertext of these parameters")
        if item["key_set"] != bundle["key_set"]:
            raise RefusedQuery(f"query item {i} belongs to another key set")
        payloads.append(item["payload"])
        offset = item["end"]
    if offset != bundle["body_end"]:
        raise RefusedQuery("the query bundle holds more than its count")
    return bundle, payloads


def write_envelope(kind, flags, fingerprint, key_set, meta, payload_parts):
    meta_bytes = json.dumps(meta, separators=(",", ":")).encode()
    payload_length = sum(len(p) for p in payload_parts)
    header = (
        MAGIC
        + bytes([1, kind, flags, 0, 0])
        + fingerprint
        + key_set
        + struct.pack("<QI", payload_length, len(meta_bytes))
    )
    body = b"".join([header, meta_bytes, *payload_parts])
    return body + struct.pack("<I", zlib.crc32(body))


def encode_response(bundle, config_id, results):
    items = [
        write_envelope(KIND_CIPHERTEXT, 0, bundle["fingerprint"], bundle["key_set"], {"level": 0, "size": 2}, [p])
        for _, p in results
    ]
    meta = {
        "label": RESPONSE_LABEL + config_id,
        "count": len(items),
        "labels": [f"block {index}" for index, _ in results],
    }
    return write_envelope(KIND_BUNDLE, 0, bundle["fingerprint"], bundle["key_set"], meta, items)


def diagonal_slots(shape, block, scaled, b, a):
    """searchLayout.ts diagonalSlots: diagonal g·b + a of the block, pre-rotated by g·b."""
    n, dim, dpad, g = shape["n"], shape["dimension"], shape["paddedDimension"], shape["babyStep"]
    half = n // 2
    shift = dpad // 2 if dpad >= 2 else 0
    giant = g * b
    k = giant + a
    out = np.zeros(n, dtype=np.int64)
    c = np.arange(half)
    source = (c - giant + half) % half
    for rho in (0, 1):
        offset = source if block["folded"] else rho * half + source
        j = (source + k + rho * shift) % dpad
        valid = (offset < block["rows"]) & (j < dim)
        out[rho * half + c[valid]] = scaled[block["firstRow"] + offset[valid], j[valid]]
    return out


class SearchCase:
    def __init__(self, command):
        shape = command["shape"]
        self.shape = shape
        self.scheme = command["scheme"]
        self.config_id = command["configId"]
        self.count = command["queryCiphertexts"]
        self.server_side = command["babySteps"] == "server"
        self.fingerprint = bytes.fromhex(command["fingerprint"])
        parms = seal.EncryptionParameters(SCHEMES[self.scheme])
        parms.set_poly_modulus_degree(shape["n"])
        parms.set_coeff_modulus(seal.CoeffModulus.Create(shape["n"], command["coeffModulusBits"]))
        parms.set_plain_modulus(command["plainModulus"])
        self.context = seal.SEALContext(parms, True, seal.sec_level_type.tc128)
        self.evaluator = seal.Evaluator(self.context)
        encoder = seal.BatchEncoder(self.context)
        self.first_parms_id = self.context.first_parms_id()
        self.last_parms_id = self.context.last_parms_id()
        started = now()
        scaled = np.frombuffer(base64.b64decode(command["scaled"]), dtype="<i4").astype(np.int64)
        scaled = scaled.reshape(command["rows"], shape["dimension"])
        self.blocks = []
        g = shape["babyStep"]
        for block in command["blocks"]:
            rows = []
            for b in range(block["giantSteps"]):
                row = []
                for a in range(g):
                    if b * g + a >= block["diagonals"]:
                        break
                    plain = encoder.encode(diagonal_slots(shape, block, scaled, b, a))
                    row.append(self.evaluator.transform_to_ntt(plain, self.first_parms_id))
                rows.append(row)
            self.blocks.append((block["index"], rows))
        self.process_ms = now() - started
        self.galois_keys = None
        self.key_load_ms = 0.0
        if command.get("galoisKeys"):
            raw = base64.b64decode(command["galoisKeys"])
            with tempfile.NamedTemporaryFile(suffix=".galois", delete=False) as f:
                f.write(raw)
                path = f.name
            try:
                self.galois_keys = seal.GaloisKeys()
                started = now()
                self.galois_keys.load(self.context, path)
                self.key_load_ms = now() - started
            finally:
                os.unlink(path)
        self.queries = [base64.b64decode(q) for q in command["queries"]]

    def run_kernel(self, query, on_block):
        ev, gk = self.evaluator, self.galois_keys
        g = self.shape["babyStep"]
        bfv = self.scheme == "bfv"
        baby = list(query)
        if self.server_side:
            for a in range(1, g):
                baby.append(ev.rotate_rows(baby[a - 1], 1, gk))
        if bfv:
            for ct in baby:
                ev.transform_to_ntt_inplace(ct)
        for index, rows in self.blocks:
            h = len(rows)
            acc = None
            for b in range(h - 1, -1, -1):
                row = rows[b]
                target = ev.multiply_plain(baby[0], row[0])
                for a in range(1, len(row)):
                    ev.add_inplace(target, ev.multiply_plain(baby[a], row[a]))
                if bfv:
                    ev.transform_from_ntt_inplace(target)
                if acc is None:
                    acc = target
                else:
                    ev.rotate_rows_inplace(acc, g, gk)
                    ev.add_inplace(acc, target)
            ev.mod_switch_to_inplace(acc, self.last_parms_id)
            on_block(index, acc)

    def sample(self, k):
        data = self.queries[k % len(self.queries)]
        cpu_start = cpu()
        started = now()
        bundle, payloads = decode_query(data, self.fingerprint, self.config_id, self.count)
        decoded_at = now()
        query = []
        for payload in payloads:
            ct = seal.Ciphertext()
            ct.load_bytes(self.context, bytes(payload))
            if ct.size() != 2 or ct.parms_id() != self.first_parms_id:
                raise RefusedQuery("a query ciphertext is not fresh")
            query.append(ct)
        loaded_at = now()
        results = []
        save_ms = [0.0]

        def on_block(index, acc):
            t = now()
            results.append((index, acc.to_string()))
            save_ms[0] += now() - t

        self.run_kernel(query, on_block)
        computed_at = now()
        response = encode_response(bundle, self.config_id, results)
        finished = now()
        cpu_ms = cpu() - cpu_start
        return {
            "decodeMs": decoded_at - started,
            "loadMs": loaded_at - decoded_at,
            "computeMs": computed_at - loaded_at - save_ms[0],
            "saveMs": save_ms[0] + finished - computed_at,
            "totalMs": finished - started,
            "cpuMs": cpu_ms,
            "responseBytes": len(response),
        }, response


def main():
    cases = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        try:
            kind = command["cmd"]
            if kind == "setup":
                case = SearchCase(command)
                cases[command["case"]] = case
                reply = {"processMs": case.process_ms, "keyLoadMs": case.key_load_ms}
            elif kind == "sample":
                timings, response = cases[command["case"]].sample(command["query"])
                reply = dict(timings)
                if command.get("response"):
                    reply["response"] = base64.b64encode(response).decode()
            elif kind == "rotate":
                # Single rotations of the case's first query ciphertext by 1, one timing each.
                case = cases[command["case"]]
                ct = seal.Ciphertext()
                ct.load_bytes(case.context, bytes(decode_query(case.queries[0], case.fingerprint, case.config_id, case.count)[1][0]))
                times = []
                for _ in range(int(command["samples"])):
                    started = now()
                    case.evaluator.rotate_rows(ct, 1, case.galois_keys)
                    times.append(now() - started)
                reply = {"ms": times}
            elif kind == "dispose":
                cases.pop(command["case"], None)
                reply = {}
            elif kind == "versions":
                import importlib.metadata as metadata
                import platform

                reply = {"python": platform.python_version(), "seal-python": metadata.version("seal-python")}
            else:
                raise ValueError(f"unknown command {kind!r}")
            sys.stdout.write(json.dumps({"ok": True, **reply}) + "\n")
        except Exception as error:  # every failure goes back to the driver, which names it
            message = f"{type(error).__name__}: {error}"
            sys.stdout.write(json.dumps({"ok": False, "error": message, "trace": traceback.format_exc()}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
