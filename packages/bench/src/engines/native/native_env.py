"""Native SEAL 4.1 (PyPI seal-python 4.1.2.1) versions of the harness's environment and ops.

Mirrors src/harness/BenchEnv.ts and src/harness/ops/*.ts call for call, so the Native
column times the same SEAL work as the WASM columns. The Python binding has no
destination overloads for the evaluator: multiply, square, rotate… return a new
ciphertext, kept in a list and freed after the batch (outside the timed region, like the
JS KeyGen rows); the µs-cheap add/sub/negate use their in-place forms on a private copy
so that a result allocation does not dominate them. Each call still pays ~0.1–0.3 µs of
pybind11 overhead, which only matters for those cheapest rows.
"""

import numpy as np
import seal

DEFAULT_COEFF_BITS = {
    1024: [27],
    2048: [54],
    4096: [36, 36, 37],
    8192: [43, 43, 44, 44, 44],
    16384: [48, 48, 48, 49, 49, 49, 49, 49, 49],
    32768: [55] * 15 + [56],
}
SCHEMES = {
    "bfv": seal.scheme_type.bfv,
    "bgv": seal.scheme_type.bgv,
    "ckks": seal.scheme_type.ckks,
    "bgv-search": seal.scheme_type.bgv,
}
# The `bgv-search` context (benchParameters.ts SEARCH_BENCH_PARAMS): the private search's
# default parameters, n = 4096 only, every prime below 2^31.
SEARCH_PARAMS = {"n": 4096, "coeff_bits": [27, 28, 28], "plain_modulus": 65537}
BATCH_BYTES = 256 * 2**20


def safe_scale_bits(n):
    bits = DEFAULT_COEFF_BITS[n]
    data = bits[:-1] if len(bits) > 1 else bits
    return data[-1] // 2 - 1


class Env:
    """sealbench's BMEnv: context (SecLevelType.none), keys for steps {1, columns}, encoders."""

    def __init__(self, n, scheme, rng, now):
        self.n, self.scheme, self.rng = n, scheme, rng
        parms = seal.EncryptionParameters(SCHEMES[scheme])
        parms.set_poly_modulus_degree(n)
        search = scheme == "bgv-search"
        if search and n != SEARCH_PARAMS["n"]:
            raise RuntimeError(f"the search's parameters are n = {SEARCH_PARAMS['n']} only (asked n = {n})")
        if search:
            parms.set_coeff_modulus(seal.CoeffModulus.Create(n, SEARCH_PARAMS["coeff_bits"]))
        else:
            parms.set_coeff_modulus(seal.CoeffModulus.BFVDefault(n, seal.sec_level_type.tc128))
        self.plain_modulus = None
        if search:
            modulus = seal.Modulus(SEARCH_PARAMS["plain_modulus"])
            parms.set_plain_modulus(modulus)
            self.plain_modulus = modulus.value()
        elif scheme != "ckks":
            modulus = seal.PlainModulus.Batching(n, 20)
            parms.set_plain_modulus(modulus)
            self.plain_modulus = modulus.value()
        t0 = now()
        self.context = seal.SEALContext(parms, True, seal.sec_level_type.none)
        self.context_ms = now() - t0
        key_data = self.context.key_context_data()
        self.log_q = key_data.total_coeff_modulus_bit_count()
        self.coeff_bits = [m.bit_count() for m in key_data.parms().coeff_modulus()]
        if self.coeff_bits != (SEARCH_PARAMS["coeff_bits"] if search else DEFAULT_COEFF_BITS[n]):
            raise RuntimeError(f"the coeff modulus of {scheme} n={n} came out as {self.coeff_bits}")
        self.using_keyswitching = self.context.using_keyswitching()
        self.data_primes = len(self.coeff_bits) - 1 if len(self.coeff_bits) > 1 else 1
        self.scale = 1.0 if search else 2.0 ** safe_scale_bits(n)
        t1 = now()
        self.keygen = seal.KeyGenerator(self.context)
        self.secret_key = self.keygen.secret_key()
        self.public_key = self.keygen.create_public_key()
        self.relin_keys = self.galois_keys = None
        if self.using_keyswitching:
            self.relin_keys = self.keygen.create_relin_keys()
            self.galois_keys = seal.GaloisKeys()
            self.keygen.create_galois_keys([1, 0], self.galois_keys)
        self.keys_ms = now() - t1
        self.encryptor = seal.Encryptor(self.context, self.public_key, self.secret_key)
        self.decryptor = seal.Decryptor(self.context, self.secret_key)
        self.evaluator = seal.Evaluator(self.context)
        self.ckks_encoder = seal.CKKSEncoder(self.context) if scheme == "ckks" else None
        self.batch_encoder = seal.BatchEncoder(self.context) if scheme != "ckks" else None

    @property
    def slots(self):
        return self.n // 2 if self.scheme == "ckks" else self.n

    def random_message(self):
        if self.scheme == "ckks":
            return self.rng.random(self.slots)
        return self.rng.integers(0, self.plain_modulus, self.slots, dtype=np.uint64)

    def encode(self, message, scale=None):
        if self.ckks_encoder is not None:
            return self.ckks_encoder.encode(message, self.scale if scale is None else scale)
        return self.batch_encoder.encode(message)

    def decode(self, pt):
        if self.ckks_encoder is not None:
            return self.ckks_encoder.decode(pt)
        return self.batch_encoder.decode_uint64(pt)

    def random_plain(self, scale=None):
        return self.encode(self.random_message(), scale)

    def random_cipher(self, scale=None):
        ct = seal.Ciphertext()
        self.encryptor.encrypt(self.random_plain(scale), ct)
        return ct

    def cipher_bytes(self, size, primes):
        return size * primes * self.n * 8


def batch_limit(nbytes):
    return max(1, BATCH_BYTES // max(1, nbytes))


class Op:
    """A prepared row: `call(i)` is timed; setup/teardown are not (see PreparedOp.ts)."""

    max_batch = float("inf")

    def setup(self, calls):
        pass

    def call(self, i):
        raise NotImplementedError

    def teardown(self):
        pass


class Fixed(Op):
    def __init__(self, fn):
        self.call = lambda i: fn()


class Producing(Op):
    """Keeps each call's new object until the batch ends, so freeing it is not timed."""

    def __init__(self, nbytes, fn):
        self.max_batch = batch_limit(nbytes)
        self.results = []
        self.fn = fn

    def call(self, i):
        self.results.append(self.fn(i))

    def teardown(self):
        self.results.clear()


class InPlace(Op):
    """Every call gets its own copy of `template`, made before the timed batch."""

    def __init__(self, template, nbytes, fn):
        self.max_batch = batch_limit(nbytes)
        self.template, self.fn, self.copies = template, fn, []

    def setup(self, calls):
        self.copies = [seal.Ciphertext(self.template) for _ in range(calls)]

    def call(self, i):
        self.fn(self.copies[i])

    def teardown(self):
        self.copies = []


def kswitch_bytes(env):
    k = len(env.coeff_bits)
    return env.cipher_bytes(2, k) * max(1, k - 1)


def keygen_ops():
    def secret(env):
        return Producing(env.cipher_bytes(2, len(env.coeff_bits)), lambda i: seal.KeyGenerator(env.context))

    def public(env):
        pk = seal.PublicKey()
        return Fixed(lambda: env.keygen.create_public_key(pk))

    def relin(env):
        rk = seal.RelinKeys()
        return Fixed(lambda: env.keygen.create_relin_keys(rk))

    def galois(env):
        steps = [[int(env.rng.integers(0, env.n // 2))] for _ in range(64)]
        gk = seal.GaloisKeys()
        counter = [0]

        def one_step():
            counter[0] += 1
            env.keygen.create_galois_keys(steps[counter[0] % len(steps)], gk)

        return Fixed(one_step)

    return {"KeyGen/Secret": secret, "KeyGen/Public": public, "KeyGen/Relin": relin, "KeyGen/Galois": galois}


def scheme_ops(group):
    def size2(env):
        return env.cipher_bytes(2, env.data_primes)

    def encrypt_secret(env):
        pt, ct = env.random_plain(), seal.Ciphertext()
        return Fixed(lambda: env.encryptor.encrypt_symmetric(pt, ct))

    def encrypt_public(env):
        pt, ct = env.random_plain(), seal.Ciphertext()
        return Fixed(lambda: env.encryptor.encrypt(pt, ct))

    def decrypt(env):
        ct, pt = env.random_cipher(), seal.Plaintext()
        return Fixed(lambda: env.decryptor.decrypt(ct, pt))

    def encode(env):
        pt = seal.Plaintext()
        if env.scheme == "ckks":
            values = seal.VectorDouble(env.random_message())
            return Fixed(lambda: env.ckks_encoder.encode(values, env.scale, pt))
        values = seal.VectorUInt(env.random_message())
        return Fixed(lambda: env.batch_encoder.encode(values, pt))

    def decode(env):
        pt = env.random_plain()
        return Fixed(lambda: env.decode(pt))

    def binary(method):
        def make(env):
            a, b, fn = env.random_cipher(), env.random_cipher(), getattr(env.evaluator, method)
            return Producing(env.cipher_bytes(3, env.data_primes), lambda i: fn(a, b))

        return make

    def with_plain(method):
        def make(env):
            a, p, fn = env.random_cipher(), env.random_plain(), getattr(env.evaluator, method)
            return Producing(size2(env), lambda i: fn(a, p))

        return make

    def in_place(method, with_plain=False):
        """Cheap ops (µs): the in-place form on a private copy, so no result allocation is timed."""

        def make(env):
            target = env.random_cipher()
            other = env.random_plain() if with_plain else env.random_cipher()
            fn = getattr(env.evaluator, method)
            if method == "negate_inplace":
                return Fixed(lambda: fn(target))
            return Fixed(lambda: fn(target, other))

        return make

    def unary(method):
        def make(env):
            a, fn = env.random_cipher(), getattr(env.evaluator, method)
            return Producing(env.cipher_bytes(3, env.data_primes), lambda i: fn(a))

        return make

    def galois(make_call):
        def make(env):
            a = env.random_cipher()
            return Producing(size2(env), make_call(env, a, env.galois_keys))

        return make

    def mod_switch(env):
        return InPlace(env.random_cipher(), size2(env), env.evaluator.mod_switch_to_next_inplace)

    def rescale(env):
        template = env.random_cipher(env.scale * 2.0**20)
        return InPlace(template, size2(env), env.evaluator.rescale_to_next_inplace)

    def relin(env):
        product = env.evaluator.multiply(env.random_cipher(), env.random_cipher())
        keys = env.relin_keys
        return InPlace(product, env.cipher_bytes(3, env.data_primes), lambda ct: env.evaluator.relinearize_inplace(ct, keys))

    ops = {
        "EncryptSecret": encrypt_secret,
        "EncryptPublic": encrypt_public,
        "Decrypt": decrypt,
        "EvaluateAddCt": in_place("add_inplace"),
        "EvaluateSubCt": in_place("sub_inplace"),
        "EvaluateMulCt": binary("multiply"),
        "EvaluateAddPt": in_place("add_plain_inplace", with_plain=True),
        "EvaluateSubPt": in_place("sub_plain_inplace", with_plain=True),
        "EvaluateMulPt": with_plain("multiply_plain"),
        "EvaluateSquare": unary("square"),
        "EvaluateNegate": in_place("negate_inplace"),
        "EvaluateRelinInplace": relin,
    }
    if group == "CKKS":
        ops.update(
            {
                "EncodeDouble": encode,
                "DecodeDouble": decode,
                "EvaluateRescaleInplace": rescale,
                "EvaluateRotate": galois(lambda env, a, gk: lambda i: env.evaluator.rotate_vector(a, 1, gk)),
                "EvaluateConjugate": galois(lambda env, a, gk: lambda i: env.evaluator.complex_conjugate(a, gk)),
            }
        )
    else:
        ops.update(
            {
                "EncodeBatch": encode,
                "DecodeBatch": decode,
                "EvaluateModSwitchInplace": mod_switch,
                "EvaluateRotateRows": galois(lambda env, a, gk: lambda i: env.evaluator.rotate_rows(a, 1, gk)),
                "EvaluateRotateCols": galois(lambda env, a, gk: lambda i: env.evaluator.rotate_columns(a, gk)),
            }
        )
    return {f"{group}/{name}": make for name, make in ops.items()}


def search_ops():
    """SEAL's rows of the Search group (searchOps.ts); the kernel rows are WebAssembly only."""

    def rotate_rows(env):
        a = env.random_cipher()
        return Producing(env.cipher_bytes(2, env.data_primes), lambda i: env.evaluator.rotate_rows(a, 1, env.galois_keys))

    def multiply_plain_ntt(env):
        a, p = env.random_cipher(), env.random_plain()
        if not a.is_ntt_form():
            raise RuntimeError("a fresh BGV ciphertext should be in NTT form")
        env.evaluator.transform_to_ntt_inplace(p, a.parms_id())
        return Producing(env.cipher_bytes(2, env.data_primes), lambda i: env.evaluator.multiply_plain(a, p))

    return {"Search/EvaluateRotateRows": rotate_rows, "Search/EvaluateMulPtNtt": multiply_plain_ntt}


OP_FACTORIES = {**keygen_ops(), **scheme_ops("BFV"), **scheme_ops("CKKS"), **scheme_ops("BGV"), **search_ops()}
