"""The Native column: runs sealbox benchmark commands against native SEAL 4.1 (seal-python).

Reads the plan (the BenchPlan schema of src/protocol/benchProtocol.ts, with the op catalog)
as the first line of stdin, then one HarnessCommand per line; writes one HarnessEvent per
line to stdout, an `ack` after each command. The measuring rules are a line-by-line port
of src/harness/measureCell.ts, engineWarmup.ts and HarnessSession.ts, so every engine is
timed the same way.
"""

import json
import math
import platform
import sys
import time
import traceback

import numpy as np
import seal
from native_env import DEFAULT_COEFF_BITS, OP_FACTORIES, Env

MAX_CALLS_PER_SAMPLE = 20_000
SCHEME_ORDER = ["ckks", "bfv", "bgv", "bgv-search"]
WARMUP_N = 4096
WARMUP_CAP_FACTOR = 4


def now():
    return time.perf_counter() * 1000.0


def emit(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


def median(values):
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def is_stable(values, window, tolerance):
    if len(values) < window:
        return False
    tail = values[-window:]
    return min(tail) > 0 and max(tail) / min(tail) - 1 <= tolerance


def time_calls(op, calls):
    total, done = 0.0, 0
    while done < calls:
        batch = int(min(op.max_batch, calls - done))
        op.setup(batch)
        try:
            call = op.call
            t0 = now()
            for i in range(batch):
                call(i)
            total += now() - t0
        finally:
            op.teardown()
        done += batch
    return total


def calls_for_at_least(min_ms, estimate_ms):
    return min(MAX_CALLS_PER_SAMPLE, max(1, math.ceil(min_ms / max(estimate_ms, 1e-4))))


def measure_cell(op, policy, budget):
    start = now()
    first_ms = time_calls(op, 1)
    estimate, warmup_calls, warmup_samples = first_ms, 1, []
    while True:
        warmed = warmup_calls >= policy["warmupMinCalls"] and is_stable(
            warmup_samples, policy["warmupWindow"], policy["warmupTolerance"]
        )
        if warmed or now() - start >= budget["warmupMs"]:
            break
        calls = calls_for_at_least(policy["minSampleMs"], estimate)
        estimate = time_calls(op, calls) / calls
        warmup_samples.append(estimate * 1000)
        warmup_calls += calls
    calls_per_sample = max(policy["iterations"], calls_for_at_least(policy["minSampleMs"], estimate))
    repeats, capped = policy["repeats"], False
    if repeats * calls_per_sample * estimate > budget["measureMs"]:
        capped = True
        fit = math.floor(budget["measureMs"] / (repeats * estimate))
        calls_per_sample = max(calls_for_at_least(policy["minSampleMs"], estimate), min(calls_per_sample, fit))
        if calls_per_sample == 1 and repeats * estimate > budget["measureMs"]:
            repeats = max(policy["minRepeats"], math.floor(budget["measureMs"] / estimate))
    samples = [time_calls(op, calls_per_sample) / calls_per_sample * 1000 for _ in range(repeats)]
    return {
        "samplesUs": samples,
        "callsPerSample": calls_per_sample,
        "firstCallUs": first_ms * 1000,
        "warmupCalls": warmup_calls,
        "warmupSamplesUs": warmup_samples,
        "medianUs": median(samples),
        "minUs": min(samples),
        "meanUs": sum(samples) / len(samples),
        "capped": capped,
    }


def timer_resolution_us():
    best = float("inf")
    for _ in range(50):
        t0 = now()
        t1 = now()
        while t1 == t0:
            t1 = now()
        best = min(best, t1 - t0)
    return best * 1000


def op_applies(spec, env):
    if spec["requires"] == "keyswitching":
        return env.using_keyswitching
    if spec["requires"] == "modChain":
        return env.data_primes > 1
    return True


def skip_reason(spec):
    if spec["requires"] == "keyswitching":
        return "no keyswitching: the default coeff modulus has a single prime (sealbench registers no such row)"
    return "single-prime coeff modulus: no modulus chain (sealbench registers no such row)"


def sanity(env, keyswitching):
    """decrypt(encrypt(x)) == x and add / multiply+relinearize / rotate against numpy (see sanityChecks.ts)."""
    checks = []
    t = env.plain_modulus
    data_bits = sum(env.coeff_bits[: env.data_primes])
    scale = 2.0 ** min(40, (data_bits - 4) // 2 if env.using_keyswitching else data_bits - 3)

    def compare(name, got, want):
        if env.scheme == "ckks":
            err = float(np.max(np.abs(got - want)))
            tol = 2.0**-10
            return {"check": name, "ok": bool(err <= tol), "detail": f"max |error| {err:.2e} (tolerance {tol:.2e})"}
        wrong = int(np.count_nonzero(got != want))
        detail = f"all {len(want)} slots exact" if wrong == 0 else f"{wrong} of {len(want)} slots wrong"
        return {"check": name, "ok": wrong == 0, "detail": detail}

    m1, m2 = env.random_message(), env.random_message()
    c1, c2 = seal.Ciphertext(), seal.Ciphertext()
    env.encryptor.encrypt(env.encode(m1, scale), c1)
    env.encryptor.encrypt_symmetric(env.encode(m2, scale), c2)
    dec = lambda ct: env.decode(env.decryptor.decrypt(ct))  # noqa: E731
    checks.append(compare("decrypt(encrypt(x)) == x (public key)", dec(c1), m1))
    checks.append(compare("decrypt(encryptSymmetric(x)) == x (secret key)", dec(c2), m2))
    add = m1 + m2 if t is None else (m1 + m2) % np.uint64(t)
    checks.append(compare("add", dec(env.evaluator.add(c1, c2)), add))
    if keyswitching and env.relin_keys is not None:
        product = env.evaluator.multiply(c1, c2)
        env.evaluator.relinearize_inplace(product, env.relin_keys)
        mul = m1 * m2 if t is None else (m1 * m2) % np.uint64(t)
        checks.append(compare("multiply + relinearize", dec(product), mul))
        if env.scheme == "ckks":
            rotated, want = env.evaluator.rotate_vector(c1, 1, env.galois_keys), np.roll(m1, -1)
        else:
            rotated = env.evaluator.rotate_rows(c1, 1, env.galois_keys)
            want = np.concatenate([np.roll(half, -1) for half in np.split(m1, 2)])
        checks.append(compare("rotate by 1", dec(rotated), want))
    report = {
        "n": env.n,
        "scheme": env.scheme,
        "logQ": env.log_q,
        "coeffModulusBits": env.coeff_bits,
        "usingKeyswitching": env.using_keyswitching,
        "contextMs": env.context_ms,
        "keysMs": env.keys_ms,
        "sanity": checks,
    }
    if t is not None:
        report["plainModulus"] = str(t)
        report["freshNoiseBudgetBits"] = env.decryptor.invariant_noise_budget(c1)
    else:
        report["ckksScaleBits"] = math.log2(env.scale)
    return report


def cell_result(env, spec, timing, started):
    return {"n": env.n, "logQ": env.log_q, "group": spec["group"], "op": spec["op"], **timing, "wallMs": now() - started}


def warm_up_engine(specs, policy, rng):
    started, envs, ops = now(), {}, []
    keyswitching_at_warmup_n = len(DEFAULT_COEFF_BITS[WARMUP_N]) > 1
    for spec in specs:
        if spec["group"] == "Setup" or (spec["requires"] != "none" and not keyswitching_at_warmup_n):
            continue
        if spec["id"] not in OP_FACTORIES:
            continue
        env = envs.get(spec["scheme"]) or envs.setdefault(spec["scheme"], Env(WARMUP_N, spec["scheme"], rng, now))
        ops.append((OP_FACTORIES[spec["id"]](env), {"op": spec["id"], "firstUs": 0, "lastUs": 0, "calls": 0}))
    start = now()
    minimum, cap = start + policy["engineWarmupMs"], start + WARMUP_CAP_FACTOR * policy["engineWarmupMs"]
    round_cost, settled = [], False
    while ops:
        t = now()
        settled = is_stable(round_cost, policy["warmupWindow"] + 2, policy["warmupTolerance"])
        if t >= cap or (t >= minimum and settled):
            break
        for op, trace in ops:
            calls = 1 if trace["calls"] == 0 else max(1, math.ceil(1 / max(trace["lastUs"] / 1000, 0.01)))
            us = time_calls(op, calls) / calls * 1000
            if trace["calls"] == 0:
                trace["firstUs"] = us
            trace["lastUs"] = us
            trace["calls"] += calls
        round_cost.append(sum(trace["lastUs"] for _, trace in ops))
    traces = [trace for _, trace in ops]
    return {"ms": now() - started, "n": WARMUP_N, "roundCostUs": round_cost, "settled": settled, "trace": traces}


class Session:
    """The Python twin of src/harness/HarnessSession.ts: runs one command at a time."""

    def __init__(self, plan, catalog):
        self.plan, self.policy, self.catalog = plan, plan["policy"], catalog
        self.rng = np.random.default_rng(plan["seed"])
        self.started = now()
        self.resolution = timer_resolution_us()
        self.envs, self.cells, self.skipped = [], [], []
        self.engine_warmup = None
        self.env, self.closed_reason, self.n = None, None, 0

    def handle(self, command):
        kind = command["type"]
        if kind == "warmup":
            if self.policy["engineWarmupMs"] > 0:
                emit({"type": "phase", "n": WARMUP_N, "label": "engine warm-up"})
                specs = [self.catalog[op_id] for op_id in self.plan["ops"]]
                self.engine_warmup = warm_up_engine(specs, self.policy, self.rng)
        elif kind == "open":
            self.open(command["n"], command["scheme"])
        elif kind == "cell":
            self.cell(self.catalog[command["op"]])
        elif kind == "close":
            self.env, self.closed_reason = None, None
        elif kind == "finish":
            self.finish()
        else:
            raise ValueError(f"unknown command {kind}")
        emit({"type": "ack", "seq": command["seq"]})

    def open(self, n, scheme):
        self.env, self.closed_reason, self.n = None, None, n
        limit = next((l for l in self.plan.get("limits", []) if l["scheme"] == scheme and n > l["maxN"]), None)
        if limit:
            self.closed_reason = limit["reason"]
            return
        emit({"type": "phase", "n": n, "label": f"{scheme.upper()} context and keys"})
        try:
            self.env = Env(n, scheme, self.rng, now)
        except Exception as error:
            self.closed_reason = f"failed to build the context: {error}"
            return
        report = sanity(self.env, keyswitching=n <= 8192)
        self.envs.append(report)
        emit({"type": "env", "env": report})

    def skip(self, spec, reason):
        row = {"n": self.n, "group": spec["group"], "op": spec["op"], "reason": reason}
        self.skipped.append(row)
        emit({"type": "skip", "row": row})

    def record(self, cell):
        self.cells.append(cell)
        emit({"type": "cell", "cell": cell})

    def cell(self, spec):
        env = self.env
        if env is None or env.scheme != spec["scheme"]:
            return self.skip(spec, self.closed_reason or "no context open")
        t0 = now()
        if spec["group"] == "Setup":
            us = env.context_ms * 1000
            timing = {"samplesUs": [us], "callsPerSample": 1, "firstCallUs": us, "warmupCalls": 0}
            timing.update({"warmupSamplesUs": [], "medianUs": us, "minUs": us, "meanUs": us, "capped": False})
            cell = cell_result(env, spec, timing, t0)
            cell["wallMs"] = env.context_ms
            return self.record(cell)
        if not op_applies(spec, env):
            return self.skip(spec, skip_reason(spec))
        emit({"type": "phase", "n": env.n, "label": spec["id"]})
        if spec["id"] not in OP_FACTORIES:
            return self.skip(spec, "he-ring's kernel is WebAssembly: native SEAL has no such op")
        budget = next((b for b in self.policy["budgets"] if b["n"] == env.n), self.policy["budgets"][-1])
        try:
            op = OP_FACTORIES[spec["id"]](env)
            timing = measure_cell(op, self.policy, budget)
        except Exception as error:  # a failed row is reported, the run goes on
            return self.skip(spec, f"failed: {error}")
        self.record(cell_result(env, spec, timing, t0))

    def finish(self):
        self.env = None
        result = {
            "runtime": {"timerResolutionUs": self.resolution, "userAgent": f"Python {platform.python_version()}"},
            "envs": self.envs,
            "cells": self.cells,
            "skipped": self.skipped,
            "leakedHandles": 0,
            "wallMs": now() - self.started,
        }
        if self.engine_warmup:
            result["engineWarmup"] = self.engine_warmup
        emit({"type": "done", "result": result})


def main():
    first = json.loads(sys.stdin.readline())
    try:
        session = Session(first["plan"], {spec["id"]: spec for spec in first["catalog"]})
        for line in sys.stdin:
            if line.strip():
                session.handle(json.loads(line))
    except Exception as error:
        emit({"type": "error", "message": f"{type(error).__name__}: {error}", "stack": traceback.format_exc()})
        sys.exit(1)


if __name__ == "__main__":
    main()
