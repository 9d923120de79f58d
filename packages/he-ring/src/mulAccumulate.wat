;; The inner loop of client-side private search, outside SEAL: acc[i] += x[i] * p[i] over
;; u64 words in SEAL's own layout (RNS residues, NTT form), with the reduction mod each
;; prime deferred. SEAL reduces every product (Barrett on emulated 128-bit products in
;; WebAssembly); for primes below 2^32 a product fits in 64 bits exactly, so the caller
;; adds up to `headroom` products before one reduction (see DyadicAccumulator.ts).
;; Build: `pnpm --filter @sealbox/he-core build:wasm` (writes mulAccumulateWasm.ts).
;;
;; Memory: one linear memory, grown by the host to fit, holding only little-endian u64
;; words; the module keeps no state of its own, every address is a parameter. The host
;; (DyadicAccumulator.ts) lays it out once per database, each region 16-byte aligned for
;; v128 loads:
;;   0             primes[count]                         the level's primes, one word each
;;   accAt         acc[polys][count][n]                  the running sum of one result ciphertext
;;   queryAt       query[maxQuery][polys][count][n]      one query's ciphertexts, as loaded
;;   plainAt       plain[plaintexts][count][n]           the database's plaintexts, copied once
;; A polynomial of residues is SEAL's own layout: prime by prime, n coefficients each
;; (NTT form), so SEAL's bytes are copied in and out unchanged.
(module
  (memory (export "memory") 1)

  ;; acc[poly][i] += x[poly][i] * p[i] for i < len, poly < polys (len a multiple of 2).
  (func (export "mulAccumulate")
    (param $acc i32) (param $x i32) (param $p i32) (param $polys i32) (param $len i32)
    (local $pp i32) (local $end i32) (local $bytes i32)
    (local.set $bytes (i32.shl (local.get $len) (i32.const 3)))
    (block $polysDone
      (loop $poly
        (br_if $polysDone (i32.eqz (local.get $polys)))
        (local.set $pp (local.get $p))
        (local.set $end (i32.add (local.get $x) (local.get $bytes)))
        (block $done
          (loop $word
            (br_if $done (i32.ge_u (local.get $x) (local.get $end)))
            (v128.store (local.get $acc)
              (i64x2.add
                (v128.load (local.get $acc))
                (i64x2.mul (v128.load (local.get $x)) (v128.load (local.get $pp)))))
            (local.set $acc (i32.add (local.get $acc) (i32.const 16)))
            (local.set $x (i32.add (local.get $x) (i32.const 16)))
            (local.set $pp (i32.add (local.get $pp) (i32.const 16)))
            (br $word)))
        (local.set $polys (i32.sub (local.get $polys) (i32.const 1)))
        (br $poly))))

  ;; words[poly][j][k] %= primes[j] for k < n, j < count, poly < polys.
  (func (export "reduce")
    (param $words i32) (param $polys i32) (param $count i32) (param $n i32) (param $primes i32)
    (local $j i32) (local $q i64) (local $end i32)
    (block $polysDone
      (loop $poly
        (br_if $polysDone (i32.eqz (local.get $polys)))
        (local.set $j (i32.const 0))
        (block $primesDone
          (loop $prime
            (br_if $primesDone (i32.ge_u (local.get $j) (local.get $count)))
            (local.set $q (i64.load (i32.add (local.get $primes) (i32.shl (local.get $j) (i32.const 3)))))
            (local.set $end (i32.add (local.get $words) (i32.shl (local.get $n) (i32.const 3))))
            (block $done
              (loop $word
                (br_if $done (i32.ge_u (local.get $words) (local.get $end)))
                (i64.store (local.get $words) (i64.rem_u (i64.load (local.get $words)) (local.get $q)))
                (local.set $words (i32.add (local.get $words) (i32.const 8)))
                (br $word)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $prime)))
        (local.set $polys (i32.sub (local.get $polys) (i32.const 1)))
        (br $poly))))

  ;; How many words[poly][j][k] are not below primes[j] (0: every residue is reduced).
  (func (export "countUnreduced")
    (param $words i32) (param $polys i32) (param $count i32) (param $n i32) (param $primes i32) (result i32)
    (local $j i32) (local $q i64) (local $end i32) (local $bad i32)
    (block $polysDone
      (loop $poly
        (br_if $polysDone (i32.eqz (local.get $polys)))
        (local.set $j (i32.const 0))
        (block $primesDone
          (loop $prime
            (br_if $primesDone (i32.ge_u (local.get $j) (local.get $count)))
            (local.set $q (i64.load (i32.add (local.get $primes) (i32.shl (local.get $j) (i32.const 3)))))
            (local.set $end (i32.add (local.get $words) (i32.shl (local.get $n) (i32.const 3))))
            (block $done
              (loop $word
                (br_if $done (i32.ge_u (local.get $words) (local.get $end)))
                (local.set $bad
                  (i32.add (local.get $bad) (i64.ge_u (i64.load (local.get $words)) (local.get $q))))
                (local.set $words (i32.add (local.get $words) (i32.const 8)))
                (br $word)))
            (local.set $j (i32.add (local.get $j) (i32.const 1)))
            (br $prime)))
        (local.set $polys (i32.sub (local.get $polys) (i32.const 1)))
        (br $poly)))
    (local.get $bad))
)
