;; Galois key switching outside SEAL, for RNS primes below 2^31 (see RnsKernel.ts).
;; Residues are u32 words, one polynomial per prime, in SEAL's order. Every product is
;; Shoup's: x*w mod p with a precomputed w' = floor(w*2^32 / p), four lanes per SIMD
;; instruction, exact for any x < 2^32 and w < p < 2^31 (the result before the last
;; correction is below 2p, which fits 32 bits). Sums of products accumulate in u64
;; words and are reduced once.
;; Build: `pnpm --filter @sealbox/he-ring build:wasm` (writes keySwitchWasm.ts).
;;
;; Two memories (WebAssembly multi-memory), both imported so that the kernel's own heap
;; stays memory 0 for every instruction below: "heap" holds one kernel's tables, keys and
;; scratch; "diagonals" holds a processed database's diagonals, read only (by
;; mulAccDiagonal), and may be a shared memory read by every worker thread of a node.
;; buildWasm.ts compiles this text twice: as is (diagonals shared, for Node's threads) and
;; with the `shared` flag dropped (browsers without cross-origin isolation).
(module
  (import "ring" "heap" (memory $heap 1))
  (import "ring" "diagonals" (memory $diagonals 1 65536 shared))

  ;; x*w mod p, lane-wise (x < 2^32, w < p < 2^31, wq = floor(w*2^32/p)). The element-wise loops
  ;; below (mulScalar, lift, reduce, modDownDelta, modDownFinish) carry this body inline, in a
  ;; block over locals $mx and $mr: V8 does not inline the call there, and each call spilled the
  ;; loop's splatted constants.
  (func $mulv (param $x v128) (param $w v128) (param $wq v128) (param $p v128) (result v128)
    (local $r v128)
    (local.set $r
      (i32x4.sub
        (i32x4.mul (local.get $x) (local.get $w))
        (i32x4.mul
          ;; the high halves of the four 64-bit products x*wq
          (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
            (i64x2.extmul_low_i32x4_u (local.get $x) (local.get $wq))
            (i64x2.extmul_high_i32x4_u (local.get $x) (local.get $wq)))
          (local.get $p))))
    ;; r < 2p: r - p wraps to above 2^31 exactly when r < p, so the unsigned min corrects.
    (i32x4.min_u (local.get $r) (i32x4.sub (local.get $r) (local.get $p))))

  ;; (a + b) mod p and (a - b) mod p for a, b < p.
  (func $addv (param $a v128) (param $b v128) (param $p v128) (result v128)
    (local $s v128)
    (local.set $s (i32x4.add (local.get $a) (local.get $b)))
    (i32x4.min_u (local.get $s) (i32x4.sub (local.get $s) (local.get $p))))
  (func $subv (param $a v128) (param $b v128) (param $p v128) (result v128)
    (local $s v128)
    (local.set $s (i32x4.sub (local.get $a) (local.get $b)))
    (i32x4.min_u (local.get $s) (i32x4.add (local.get $s) (local.get $p))))

  ;; The last two forward stages and the first two inverse ones, where butterflies are
  ;; closer than four words: lanes regrouped by shuffles so they run four wide too.
  ;; gap 2 (m = n/4 groups of 4 words, root w[m + i]): two groups per step.
  (func $stage2 (param $a i32) (param $n i32) (param $tab i32) (param $p i32) (param $inverse i32)
    (local $m i32) (local $i i32) (local $r i32) (local $pv v128) (local $A v128) (local $B v128)
    (local $X v128) (local $Y v128) (local $W v128) (local $WQ v128) (local $U v128) (local $V v128)
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $m (i32.shr_u (local.get $n) (i32.const 2)))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $i) (local.get $m)))
        (local.set $r (i32.add (local.get $tab) (i32.shl (i32.add (local.get $m) (local.get $i)) (i32.const 2))))
        (local.set $W (v128.load64_zero (local.get $r)))
        (local.set $W (i8x16.shuffle 0 1 2 3 0 1 2 3 4 5 6 7 4 5 6 7 (local.get $W) (local.get $W)))
        (local.set $WQ (v128.load64_zero (i32.add (local.get $r) (i32.shl (local.get $n) (i32.const 2)))))
        (local.set $WQ (i8x16.shuffle 0 1 2 3 0 1 2 3 4 5 6 7 4 5 6 7 (local.get $WQ) (local.get $WQ)))
        (local.set $A (v128.load (local.get $a)))
        (local.set $B (v128.load offset=16 (local.get $a)))
        (local.set $X (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $A) (local.get $B)))
        (local.set $Y (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $A) (local.get $B)))
        (if (local.get $inverse)
          (then
            (local.set $U (call $addv (local.get $X) (local.get $Y) (local.get $pv)))
            (local.set $V
              (call $mulv (call $subv (local.get $X) (local.get $Y) (local.get $pv))
                (local.get $W) (local.get $WQ) (local.get $pv))))
          (else
            (local.set $Y (call $mulv (local.get $Y) (local.get $W) (local.get $WQ) (local.get $pv)))
            (local.set $U (call $addv (local.get $X) (local.get $Y) (local.get $pv)))
            (local.set $V (call $subv (local.get $X) (local.get $Y) (local.get $pv)))))
        (v128.store (local.get $a)
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $U) (local.get $V)))
        (v128.store offset=16 (local.get $a)
          (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $U) (local.get $V)))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $step))))

  ;; gap 1 (m = n/2 groups of 2 words, root w[m + i]): four groups per step.
  (func $stage1 (param $a i32) (param $n i32) (param $tab i32) (param $p i32) (param $inverse i32)
    (local $m i32) (local $i i32) (local $r i32) (local $pv v128) (local $A v128) (local $B v128)
    (local $X v128) (local $Y v128) (local $W v128) (local $WQ v128) (local $U v128) (local $V v128)
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $m (i32.shr_u (local.get $n) (i32.const 1)))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $i) (local.get $m)))
        (local.set $r (i32.add (local.get $tab) (i32.shl (i32.add (local.get $m) (local.get $i)) (i32.const 2))))
        (local.set $W (v128.load (local.get $r)))
        (local.set $WQ (v128.load (i32.add (local.get $r) (i32.shl (local.get $n) (i32.const 2)))))
        (local.set $A (v128.load (local.get $a)))
        (local.set $B (v128.load offset=16 (local.get $a)))
        (local.set $X (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $A) (local.get $B)))
        (local.set $Y (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $A) (local.get $B)))
        (if (local.get $inverse)
          (then
            (local.set $U (call $addv (local.get $X) (local.get $Y) (local.get $pv)))
            (local.set $V
              (call $mulv (call $subv (local.get $X) (local.get $Y) (local.get $pv))
                (local.get $W) (local.get $WQ) (local.get $pv))))
          (else
            (local.set $Y (call $mulv (local.get $Y) (local.get $W) (local.get $WQ) (local.get $pv)))
            (local.set $U (call $addv (local.get $X) (local.get $Y) (local.get $pv)))
            (local.set $V (call $subv (local.get $X) (local.get $Y) (local.get $pv)))))
        (v128.store (local.get $a)
          (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $U) (local.get $V)))
        (v128.store offset=16 (local.get $a)
          (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $U) (local.get $V)))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $step))))

  ;; Forward negacyclic NTT in place (n >= 8), SEAL's order (Cooley-Tukey, bit-reversed output):
  ;; tab holds the n root powers w[k] then their w'[k]; the group i of stage m uses w[m + i].
  (func (export "ntt") (param $a i32) (param $n i32) (param $tab i32) (param $p i32)
    (local $m i32) (local $gap i32) (local $i i32) (local $x i32) (local $end i32) (local $half i32)
    (local $r i32) (local $pv v128) (local $wv v128) (local $wqv v128) (local $X v128) (local $Y v128)
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $m (i32.const 1))
    (local.set $gap (i32.shr_u (local.get $n) (i32.const 1)))
    (block $stagesDone
      (loop $stage
        (br_if $stagesDone (i32.lt_u (local.get $gap) (i32.const 4)))
        (local.set $half (i32.shl (local.get $gap) (i32.const 2)))
        (local.set $x (local.get $a))
        (local.set $i (i32.const 0))
        (block $groupsDone
          (loop $group
            (br_if $groupsDone (i32.ge_u (local.get $i) (local.get $m)))
            (local.set $r (i32.add (local.get $tab) (i32.shl (i32.add (local.get $m) (local.get $i)) (i32.const 2))))
            (local.set $wv (i32x4.splat (i32.load (local.get $r))))
            (local.set $wqv (i32x4.splat (i32.load (i32.add (local.get $r) (i32.shl (local.get $n) (i32.const 2))))))
            (local.set $end (i32.add (local.get $x) (local.get $half)))
            (block $done
              (loop $word
                (br_if $done (i32.ge_u (local.get $x) (local.get $end)))
                (local.set $X (v128.load (local.get $x)))
                (local.set $Y
                  (call $mulv
                    (v128.load (i32.add (local.get $x) (local.get $half)))
                    (local.get $wv) (local.get $wqv) (local.get $pv)))
                (v128.store (local.get $x) (call $addv (local.get $X) (local.get $Y) (local.get $pv)))
                (v128.store (i32.add (local.get $x) (local.get $half))
                  (call $subv (local.get $X) (local.get $Y) (local.get $pv)))
                (local.set $x (i32.add (local.get $x) (i32.const 16)))
                (br $word)))
            ;; past the second half of this group
            (local.set $x (i32.add (local.get $end) (local.get $half)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $group)))
        (local.set $m (i32.shl (local.get $m) (i32.const 1)))
        (local.set $gap (i32.shr_u (local.get $gap) (i32.const 1)))
        (br $stage)))
    (call $stage2 (local.get $a) (local.get $n) (local.get $tab) (local.get $p) (i32.const 0))
    (call $stage1 (local.get $a) (local.get $n) (local.get $tab) (local.get $p) (i32.const 0)))

  ;; The inverse of `ntt` without its factor 1/n (Gentleman-Sande, stages in reverse):
  ;; tab holds the inverses of ntt's root powers, then their w'.
  (func (export "intt") (param $a i32) (param $n i32) (param $tab i32) (param $p i32)
    (local $m i32) (local $gap i32) (local $i i32) (local $x i32) (local $end i32) (local $half i32)
    (local $r i32) (local $pv v128) (local $wv v128) (local $wqv v128) (local $X v128) (local $Y v128)
    (local.set $pv (i32x4.splat (local.get $p)))
    (call $stage1 (local.get $a) (local.get $n) (local.get $tab) (local.get $p) (i32.const 1))
    (call $stage2 (local.get $a) (local.get $n) (local.get $tab) (local.get $p) (i32.const 1))
    (local.set $m (i32.shr_u (local.get $n) (i32.const 3)))
    (local.set $gap (i32.const 4))
    (block $stagesDone
      (loop $stage
        (br_if $stagesDone (i32.eqz (local.get $m)))
        (local.set $half (i32.shl (local.get $gap) (i32.const 2)))
        (local.set $x (local.get $a))
        (local.set $i (i32.const 0))
        (block $groupsDone
          (loop $group
            (br_if $groupsDone (i32.ge_u (local.get $i) (local.get $m)))
            (local.set $r (i32.add (local.get $tab) (i32.shl (i32.add (local.get $m) (local.get $i)) (i32.const 2))))
            (local.set $wv (i32x4.splat (i32.load (local.get $r))))
            (local.set $wqv (i32x4.splat (i32.load (i32.add (local.get $r) (i32.shl (local.get $n) (i32.const 2))))))
            (local.set $end (i32.add (local.get $x) (local.get $half)))
            (block $done
              (loop $word
                (br_if $done (i32.ge_u (local.get $x) (local.get $end)))
                (local.set $X (v128.load (local.get $x)))
                (local.set $Y (v128.load (i32.add (local.get $x) (local.get $half))))
                (v128.store (local.get $x) (call $addv (local.get $X) (local.get $Y) (local.get $pv)))
                (v128.store (i32.add (local.get $x) (local.get $half))
                  (call $mulv
                    (call $subv (local.get $X) (local.get $Y) (local.get $pv))
                    (local.get $wv) (local.get $wqv) (local.get $pv)))
                (local.set $x (i32.add (local.get $x) (i32.const 16)))
                (br $word)))
            (local.set $x (i32.add (local.get $end) (local.get $half)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $group)))
        (local.set $m (i32.shr_u (local.get $m) (i32.const 1)))
        (local.set $gap (i32.shl (local.get $gap) (i32.const 1)))
        (br $stage))))

  ;; Harvey's lazy butterflies, for primes below 2^30 (every prime of the search params):
  ;; 4p fits 32 bits, so values may run up to 4p (forward) or 2p (inverse) between stages
  ;; and one correction per butterfly replaces three. Outputs are fully reduced, as `ntt`'s
  ;; and `intt`'s are: the same words (residues are unique), fewer instructions.
  ;; x*w mod p up to 2p (x < 2^32, w < p < 2^31): Shoup's product without its last correction.
  (func $mulLazy (param $x v128) (param $w v128) (param $wq v128) (param $p v128) (result v128)
    (i32x4.sub
      (i32x4.mul (local.get $x) (local.get $w))
      (i32x4.mul
        (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
          (i64x2.extmul_low_i32x4_u (local.get $x) (local.get $wq))
          (i64x2.extmul_high_i32x4_u (local.get $x) (local.get $wq)))
        (local.get $p))))

  ;; a mod m for a < 2m (m = p, 2p; a - m wraps above a exactly when a < m).
  (func $lessOnce (param $a v128) (param $m v128) (result v128)
    (i32x4.min_u (local.get $a) (i32x4.sub (local.get $a) (local.get $m))))

  ;; `stage2` lazily: forward inputs below 4p (outputs below 4p), inverse below 2p (below 2p).
  (func $stage2Lazy (param $a i32) (param $n i32) (param $tab i32) (param $p i32) (param $inverse i32)
    (local $m i32) (local $i i32) (local $r i32) (local $pv v128) (local $p2 v128) (local $A v128) (local $B v128)
    (local $X v128) (local $Y v128) (local $W v128) (local $WQ v128) (local $U v128) (local $V v128)
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $p2 (i32x4.add (local.get $pv) (local.get $pv)))
    (local.set $m (i32.shr_u (local.get $n) (i32.const 2)))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $i) (local.get $m)))
        (local.set $r (i32.add (local.get $tab) (i32.shl (i32.add (local.get $m) (local.get $i)) (i32.const 2))))
        (local.set $W (v128.load64_zero (local.get $r)))
        (local.set $W (i8x16.shuffle 0 1 2 3 0 1 2 3 4 5 6 7 4 5 6 7 (local.get $W) (local.get $W)))
        (local.set $WQ (v128.load64_zero (i32.add (local.get $r) (i32.shl (local.get $n) (i32.const 2)))))
        (local.set $WQ (i8x16.shuffle 0 1 2 3 0 1 2 3 4 5 6 7 4 5 6 7 (local.get $WQ) (local.get $WQ)))
        (local.set $A (v128.load (local.get $a)))
        (local.set $B (v128.load offset=16 (local.get $a)))
        (local.set $X (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $A) (local.get $B)))
        (local.set $Y (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $A) (local.get $B)))
        (if (local.get $inverse)
          (then
            (local.set $U (call $lessOnce (i32x4.add (local.get $X) (local.get $Y)) (local.get $p2)))
            (local.set $V
              (call $mulLazy (i32x4.sub (i32x4.add (local.get $X) (local.get $p2)) (local.get $Y))
                (local.get $W) (local.get $WQ) (local.get $pv))))
          (else
            (local.set $X (call $lessOnce (local.get $X) (local.get $p2)))
            (local.set $Y (call $mulLazy (local.get $Y) (local.get $W) (local.get $WQ) (local.get $pv)))
            (local.set $U (i32x4.add (local.get $X) (local.get $Y)))
            (local.set $V (i32x4.sub (i32x4.add (local.get $X) (local.get $p2)) (local.get $Y)))))
        (v128.store (local.get $a)
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23 (local.get $U) (local.get $V)))
        (v128.store offset=16 (local.get $a)
          (i8x16.shuffle 8 9 10 11 12 13 14 15 24 25 26 27 28 29 30 31 (local.get $U) (local.get $V)))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (local.set $i (i32.add (local.get $i) (i32.const 2)))
        (br $step))))

  ;; `stage1` lazily; forward, it is the last stage: its outputs are reduced below p.
  (func $stage1Lazy (param $a i32) (param $n i32) (param $tab i32) (param $p i32) (param $inverse i32)
    (local $m i32) (local $i i32) (local $r i32) (local $pv v128) (local $p2 v128) (local $A v128) (local $B v128)
    (local $X v128) (local $Y v128) (local $W v128) (local $WQ v128) (local $U v128) (local $V v128)
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $p2 (i32x4.add (local.get $pv) (local.get $pv)))
    (local.set $m (i32.shr_u (local.get $n) (i32.const 1)))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $i) (local.get $m)))
        (local.set $r (i32.add (local.get $tab) (i32.shl (i32.add (local.get $m) (local.get $i)) (i32.const 2))))
        (local.set $W (v128.load (local.get $r)))
        (local.set $WQ (v128.load (i32.add (local.get $r) (i32.shl (local.get $n) (i32.const 2)))))
        (local.set $A (v128.load (local.get $a)))
        (local.set $B (v128.load offset=16 (local.get $a)))
        (local.set $X (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $A) (local.get $B)))
        (local.set $Y (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $A) (local.get $B)))
        (if (local.get $inverse)
          (then
            (local.set $U (call $lessOnce (i32x4.add (local.get $X) (local.get $Y)) (local.get $p2)))
            (local.set $V
              (call $mulLazy (i32x4.sub (i32x4.add (local.get $X) (local.get $p2)) (local.get $Y))
                (local.get $W) (local.get $WQ) (local.get $pv))))
          (else
            (local.set $X (call $lessOnce (local.get $X) (local.get $p2)))
            (local.set $Y (call $mulLazy (local.get $Y) (local.get $W) (local.get $WQ) (local.get $pv)))
            (local.set $U
              (call $lessOnce (call $lessOnce (i32x4.add (local.get $X) (local.get $Y)) (local.get $p2)) (local.get $pv)))
            (local.set $V
              (call $lessOnce
                (call $lessOnce (i32x4.sub (i32x4.add (local.get $X) (local.get $p2)) (local.get $Y)) (local.get $p2))
                (local.get $pv)))))
        (v128.store (local.get $a)
          (i8x16.shuffle 0 1 2 3 16 17 18 19 4 5 6 7 20 21 22 23 (local.get $U) (local.get $V)))
        (v128.store offset=16 (local.get $a)
          (i8x16.shuffle 8 9 10 11 24 25 26 27 12 13 14 15 28 29 30 31 (local.get $U) (local.get $V)))
        (local.set $a (i32.add (local.get $a) (i32.const 32)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $step))))

  ;; `ntt` for p < 2^30 (inputs below 4p; outputs below p).
  (func (export "nttLazy") (param $a i32) (param $n i32) (param $tab i32) (param $p i32)
    (local $m i32) (local $gap i32) (local $i i32) (local $x i32) (local $end i32) (local $half i32)
    (local $r i32) (local $pv v128) (local $p2 v128) (local $wv v128) (local $wqv v128) (local $X v128) (local $Y v128)
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $p2 (i32x4.add (local.get $pv) (local.get $pv)))
    (local.set $m (i32.const 1))
    (local.set $gap (i32.shr_u (local.get $n) (i32.const 1)))
    (block $stagesDone
      (loop $stage
        (br_if $stagesDone (i32.lt_u (local.get $gap) (i32.const 4)))
        (local.set $half (i32.shl (local.get $gap) (i32.const 2)))
        (local.set $x (local.get $a))
        (local.set $i (i32.const 0))
        (block $groupsDone
          (loop $group
            (br_if $groupsDone (i32.ge_u (local.get $i) (local.get $m)))
            (local.set $r (i32.add (local.get $tab) (i32.shl (i32.add (local.get $m) (local.get $i)) (i32.const 2))))
            (local.set $wv (i32x4.splat (i32.load (local.get $r))))
            (local.set $wqv (i32x4.splat (i32.load (i32.add (local.get $r) (i32.shl (local.get $n) (i32.const 2))))))
            (local.set $end (i32.add (local.get $x) (local.get $half)))
            (block $done
              (loop $word
                (br_if $done (i32.ge_u (local.get $x) (local.get $end)))
                (local.set $X (call $lessOnce (v128.load (local.get $x)) (local.get $p2)))
                (local.set $Y
                  (call $mulLazy
                    (v128.load (i32.add (local.get $x) (local.get $half)))
                    (local.get $wv) (local.get $wqv) (local.get $pv)))
                (v128.store (local.get $x) (i32x4.add (local.get $X) (local.get $Y)))
                (v128.store (i32.add (local.get $x) (local.get $half))
                  (i32x4.sub (i32x4.add (local.get $X) (local.get $p2)) (local.get $Y)))
                (local.set $x (i32.add (local.get $x) (i32.const 16)))
                (br $word)))
            (local.set $x (i32.add (local.get $end) (local.get $half)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $group)))
        (local.set $m (i32.shl (local.get $m) (i32.const 1)))
        (local.set $gap (i32.shr_u (local.get $gap) (i32.const 1)))
        (br $stage)))
    (call $stage2Lazy (local.get $a) (local.get $n) (local.get $tab) (local.get $p) (i32.const 0))
    (call $stage1Lazy (local.get $a) (local.get $n) (local.get $tab) (local.get $p) (i32.const 0)))

  ;; `intt` for p < 2^30 (inputs below 2p; outputs below 2p: the 1/n product that follows reduces them).
  (func (export "inttLazy") (param $a i32) (param $n i32) (param $tab i32) (param $p i32)
    (local $m i32) (local $gap i32) (local $i i32) (local $x i32) (local $end i32) (local $half i32)
    (local $r i32) (local $pv v128) (local $p2 v128) (local $wv v128) (local $wqv v128) (local $X v128) (local $Y v128)
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $p2 (i32x4.add (local.get $pv) (local.get $pv)))
    (call $stage1Lazy (local.get $a) (local.get $n) (local.get $tab) (local.get $p) (i32.const 1))
    (call $stage2Lazy (local.get $a) (local.get $n) (local.get $tab) (local.get $p) (i32.const 1))
    (local.set $m (i32.shr_u (local.get $n) (i32.const 3)))
    (local.set $gap (i32.const 4))
    (block $stagesDone
      (loop $stage
        (br_if $stagesDone (i32.eqz (local.get $m)))
        (local.set $half (i32.shl (local.get $gap) (i32.const 2)))
        (local.set $x (local.get $a))
        (local.set $i (i32.const 0))
        (block $groupsDone
          (loop $group
            (br_if $groupsDone (i32.ge_u (local.get $i) (local.get $m)))
            (local.set $r (i32.add (local.get $tab) (i32.shl (i32.add (local.get $m) (local.get $i)) (i32.const 2))))
            (local.set $wv (i32x4.splat (i32.load (local.get $r))))
            (local.set $wqv (i32x4.splat (i32.load (i32.add (local.get $r) (i32.shl (local.get $n) (i32.const 2))))))
            (local.set $end (i32.add (local.get $x) (local.get $half)))
            (block $done
              (loop $word
                (br_if $done (i32.ge_u (local.get $x) (local.get $end)))
                (local.set $X (v128.load (local.get $x)))
                (local.set $Y (v128.load (i32.add (local.get $x) (local.get $half))))
                (v128.store (local.get $x)
                  (call $lessOnce (i32x4.add (local.get $X) (local.get $Y)) (local.get $p2)))
                (v128.store (i32.add (local.get $x) (local.get $half))
                  (call $mulLazy
                    (i32x4.sub (i32x4.add (local.get $X) (local.get $p2)) (local.get $Y))
                    (local.get $wv) (local.get $wqv) (local.get $pv)))
                (local.set $x (i32.add (local.get $x) (i32.const 16)))
                (br $word)))
            (local.set $x (i32.add (local.get $end) (local.get $half)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $group)))
        (local.set $m (i32.shr_u (local.get $m) (i32.const 1)))
        (local.set $gap (i32.shl (local.get $gap) (i32.const 1)))
        (br $stage))))

  ;; a[k] = a[k]*w mod p for k < len (a multiple of 4).
  (func (export "mulScalar") (param $a i32) (param $len i32) (param $w i32) (param $wq i32) (param $p i32)
    (local $mx v128) (local $mr v128) (local $end i32) (local $wv v128) (local $wqv v128) (local $pv v128)
    (local.set $wv (i32x4.splat (local.get $w)))
    (local.set $wqv (i32x4.splat (local.get $wq)))
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $len) (i32.const 2))))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $a) (local.get $end)))
        (v128.store (local.get $a)
          (block (result v128)
            (local.set $mx (v128.load (local.get $a)))
            (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $wv))
              (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $wqv)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $wqv))) (local.get $pv))))
            (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $pv)))))
        (local.set $a (i32.add (local.get $a) (i32.const 16)))
        (br $word))))

  ;; dst[k] = src[k] mod p for any u32 src (one = floor(2^32/p): Shoup's product by 1).
  (func (export "lift") (param $dst i32) (param $src i32) (param $len i32) (param $one i32) (param $p i32)
    (local $mx v128) (local $mr v128) (local $end i32) (local $ov v128) (local $oqv v128) (local $pv v128)
    (local.set $ov (i32x4.splat (i32.const 1)))
    (local.set $oqv (i32x4.splat (local.get $one)))
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $len) (i32.const 2))))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $src) (local.get $end)))
        (v128.store (local.get $dst)
          (block (result v128)
            (local.set $mx (v128.load (local.get $src)))
            (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $ov))
              (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $oqv)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $oqv))) (local.get $pv))))
            (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $pv)))))
        (local.set $src (i32.add (local.get $src) (i32.const 16)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (br $word))))

  ;; dst[k] = src[table[k]] for k < n: a Galois automorphism of NTT-form slots.
  (func (export "permute") (param $dst i32) (param $src i32) (param $table i32) (param $n i32)
    (local $end i32)
    (local.set $end (i32.add (local.get $dst) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end)))
        (i32.store (local.get $dst)
          (i32.load (i32.add (local.get $src) (i32.shl (i32.load (local.get $table)) (i32.const 2)))))
        (local.set $dst (i32.add (local.get $dst) (i32.const 4)))
        (local.set $table (i32.add (local.get $table) (i32.const 4)))
        (br $word))))

  ;; acc[k] += x[k]*y[k] over u64 acc, u32 x and y, k < len (a multiple of 4).
  (func (export "mulAcc") (param $acc i32) (param $x i32) (param $y i32) (param $len i32)
    (local $end i32) (local $X v128) (local $Y v128)
    (local.set $end (i32.add (local.get $x) (i32.shl (local.get $len) (i32.const 2))))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $x) (local.get $end)))
        (local.set $X (v128.load (local.get $x)))
        (local.set $Y (v128.load (local.get $y)))
        (v128.store (local.get $acc)
          (i64x2.add (v128.load (local.get $acc)) (i64x2.extmul_low_i32x4_u (local.get $X) (local.get $Y))))
        (v128.store offset=16 (local.get $acc)
          (i64x2.add (v128.load offset=16 (local.get $acc)) (i64x2.extmul_high_i32x4_u (local.get $X) (local.get $Y))))
        (local.set $acc (i32.add (local.get $acc) (i32.const 32)))
        (local.set $x (i32.add (local.get $x) (i32.const 16)))
        (local.set $y (i32.add (local.get $y) (i32.const 16)))
        (br $word))))

;; mulAcc with y read from the diagonals memory, for both polynomials of a ciphertext:
  ;; acc[k] += x[k]*diagonal[k] and acc'[k] += x'[k]*diagonal[k] (acc' = acc + accOff, x' =
  ;; x + xOff), k < len: each diagonal word is read once for both (a database's diagonals are
  ;; read from memory once per query, not twice).
  (func (export "mulAccDiagonal") (param $acc i32) (param $x i32) (param $y i32) (param $len i32)
    (param $accOff i32) (param $xOff i32)
    (local $end i32) (local $X v128) (local $Y v128) (local $acc1 i32)
    (local.set $end (i32.add (local.get $x) (i32.shl (local.get $len) (i32.const 2))))
    (local.set $acc1 (i32.add (local.get $acc) (local.get $accOff)))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $x) (local.get $end)))
        (local.set $Y (v128.load $diagonals (local.get $y)))
        (local.set $X (v128.load (local.get $x)))
        (v128.store (local.get $acc)
          (i64x2.add (v128.load (local.get $acc)) (i64x2.extmul_low_i32x4_u (local.get $X) (local.get $Y))))
        (v128.store offset=16 (local.get $acc)
          (i64x2.add (v128.load offset=16 (local.get $acc)) (i64x2.extmul_high_i32x4_u (local.get $X) (local.get $Y))))
        (local.set $X (v128.load (i32.add (local.get $x) (local.get $xOff))))
        (v128.store (local.get $acc1)
          (i64x2.add (v128.load (local.get $acc1)) (i64x2.extmul_low_i32x4_u (local.get $X) (local.get $Y))))
        (v128.store offset=16 (local.get $acc1)
          (i64x2.add (v128.load offset=16 (local.get $acc1)) (i64x2.extmul_high_i32x4_u (local.get $X) (local.get $Y))))
        (local.set $acc (i32.add (local.get $acc) (i32.const 32)))
        (local.set $acc1 (i32.add (local.get $acc1) (i32.const 32)))
        (local.set $x (i32.add (local.get $x) (i32.const 16)))
        (local.set $y (i32.add (local.get $y) (i32.const 16)))
        (br $word))))

  ;; acc0[k] += x[table[k]]*y0[k] and acc1[k] += x[table[k]]*y1[k] (u64 accs, u32 x, y0, y1),
  ;; k < len (a multiple of 4): a hoisted rotation's products, the automorphism of the shared
  ;; digit x gathered four lanes at a time instead of written out and read back.
  (func (export "mulAccPermuted") (param $acc0 i32) (param $acc1 i32) (param $x i32) (param $table i32)
    (param $y0 i32) (param $y1 i32) (param $len i32)
    (local $end i32) (local $T v128) (local $X v128) (local $Y v128)
    (local.set $end (i32.add (local.get $table) (i32.shl (local.get $len) (i32.const 2))))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $table) (local.get $end)))
        (local.set $T (i32x4.shl (v128.load (local.get $table)) (i32.const 2)))
        (local.set $X
          (i32x4.replace_lane 3
            (i32x4.replace_lane 2
              (i32x4.replace_lane 1
                (i32x4.splat (i32.load (i32.add (local.get $x) (i32x4.extract_lane 0 (local.get $T)))))
                (i32.load (i32.add (local.get $x) (i32x4.extract_lane 1 (local.get $T)))))
              (i32.load (i32.add (local.get $x) (i32x4.extract_lane 2 (local.get $T)))))
            (i32.load (i32.add (local.get $x) (i32x4.extract_lane 3 (local.get $T))))))
        (local.set $Y (v128.load (local.get $y0)))
        (v128.store (local.get $acc0)
          (i64x2.add (v128.load (local.get $acc0)) (i64x2.extmul_low_i32x4_u (local.get $X) (local.get $Y))))
        (v128.store offset=16 (local.get $acc0)
          (i64x2.add (v128.load offset=16 (local.get $acc0)) (i64x2.extmul_high_i32x4_u (local.get $X) (local.get $Y))))
        (local.set $Y (v128.load (local.get $y1)))
        (v128.store (local.get $acc1)
          (i64x2.add (v128.load (local.get $acc1)) (i64x2.extmul_low_i32x4_u (local.get $X) (local.get $Y))))
        (v128.store offset=16 (local.get $acc1)
          (i64x2.add (v128.load offset=16 (local.get $acc1)) (i64x2.extmul_high_i32x4_u (local.get $X) (local.get $Y))))
        (local.set $acc0 (i32.add (local.get $acc0) (i32.const 32)))
        (local.set $acc1 (i32.add (local.get $acc1) (i32.const 32)))
        (local.set $table (i32.add (local.get $table) (i32.const 16)))
        (local.set $y0 (i32.add (local.get $y0) (i32.const 16)))
        (local.set $y1 (i32.add (local.get $y1) (i32.const 16)))
        (br $word))))

  ;; dst[k] = acc[k] mod p (u64 acc, u32 dst): hi*(2^32 mod p) + lo, both by Shoup.
  ;; c = 2^32 mod p, cq its w', one = floor(2^32/p).
  (func (export "reduce") (param $dst i32) (param $acc i32) (param $len i32)
    (param $c i32) (param $cq i32) (param $one i32) (param $p i32)
    (local $mx v128) (local $mr v128) (local $end i32) (local $A v128) (local $B v128) (local $pv v128) (local $cv v128) (local $cqv v128)
    (local $ov v128) (local $oqv v128)
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $cv (i32x4.splat (local.get $c)))
    (local.set $cqv (i32x4.splat (local.get $cq)))
    (local.set $ov (i32x4.splat (i32.const 1)))
    (local.set $oqv (i32x4.splat (local.get $one)))
    (local.set $end (i32.add (local.get $dst) (i32.shl (local.get $len) (i32.const 2))))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end)))
        (local.set $A (v128.load (local.get $acc)))
        (local.set $B (v128.load offset=16 (local.get $acc)))
        (v128.store (local.get $dst)
          (call $addv
            (block (result v128)
              (local.set $mx (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $A) (local.get $B)))
              (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $cv))
                (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                  (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $cqv)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $cqv))) (local.get $pv))))
              (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $pv))))
            (block (result v128)
              (local.set $mx (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $A) (local.get $B)))
              (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $ov))
                (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                  (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $oqv)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $oqv))) (local.get $pv))))
              (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $pv))))
            (local.get $pv)))
        (local.set $acc (i32.add (local.get $acc) (i32.const 32)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (br $word))))

  ;; A key switch's products at one key-level prime: out0[k] = (fold ? out0[k] : 0) +
  ;; sum over e < count of d_e[k]*key0_e[k] mod p, out1 alike with key1_e, k < len (a multiple
  ;; of 4); d_e = d + e*dStride, key0_e = key + e*keyStride, key1_e = key0_e + key1Off. Each
  ;; digit word is read once for both products, the sums stay in registers (u64x2) and are
  ;; reduced once, as `reduce` does. The caller keeps count within the u64 headroom.
  (func (export "keyProduct") (param $out0 i32) (param $out1 i32) (param $d i32) (param $dStride i32)
    (param $key i32) (param $keyStride i32) (param $key1Off i32) (param $count i32) (param $len i32)
    (param $fold i32) (param $c i32) (param $cq i32) (param $one i32) (param $p i32)
    (local $mx v128) (local $mr v128) (local $k i32) (local $end i32) (local $e i32) (local $da i32) (local $ka i32)
    (local $D v128) (local $K0 v128) (local $K1 v128) (local $lo0 v128) (local $hi0 v128) (local $lo1 v128)
    (local $hi1 v128) (local $pv v128) (local $cv v128) (local $cqv v128) (local $ov v128) (local $oqv v128)
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $cv (i32x4.splat (local.get $c)))
    (local.set $cqv (i32x4.splat (local.get $cq)))
    (local.set $ov (i32x4.splat (i32.const 1)))
    (local.set $oqv (i32x4.splat (local.get $one)))
    (local.set $end (i32.shl (local.get $len) (i32.const 2)))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $k) (local.get $end)))
        (if (local.get $fold)
          (then
            (local.set $D (v128.load (i32.add (local.get $out0) (local.get $k))))
            (local.set $lo0 (i64x2.extend_low_i32x4_u (local.get $D)))
            (local.set $hi0 (i64x2.extend_high_i32x4_u (local.get $D)))
            (local.set $D (v128.load (i32.add (local.get $out1) (local.get $k))))
            (local.set $lo1 (i64x2.extend_low_i32x4_u (local.get $D)))
            (local.set $hi1 (i64x2.extend_high_i32x4_u (local.get $D))))
          (else
            (local.set $lo0 (v128.const i64x2 0 0))
            (local.set $hi0 (v128.const i64x2 0 0))
            (local.set $lo1 (v128.const i64x2 0 0))
            (local.set $hi1 (v128.const i64x2 0 0))))
        (local.set $da (i32.add (local.get $d) (local.get $k)))
        (local.set $ka (i32.add (local.get $key) (local.get $k)))
        (local.set $e (local.get $count))
        (block $termsDone
          (loop $term
            (br_if $termsDone (i32.eqz (local.get $e)))
            (local.set $D (v128.load (local.get $da)))
            (local.set $K0 (v128.load (local.get $ka)))
            (local.set $K1 (v128.load (i32.add (local.get $ka) (local.get $key1Off))))
            (local.set $lo0 (i64x2.add (local.get $lo0) (i64x2.extmul_low_i32x4_u (local.get $D) (local.get $K0))))
            (local.set $hi0 (i64x2.add (local.get $hi0) (i64x2.extmul_high_i32x4_u (local.get $D) (local.get $K0))))
            (local.set $lo1 (i64x2.add (local.get $lo1) (i64x2.extmul_low_i32x4_u (local.get $D) (local.get $K1))))
            (local.set $hi1 (i64x2.add (local.get $hi1) (i64x2.extmul_high_i32x4_u (local.get $D) (local.get $K1))))
            (local.set $da (i32.add (local.get $da) (local.get $dStride)))
            (local.set $ka (i32.add (local.get $ka) (local.get $keyStride)))
            (local.set $e (i32.sub (local.get $e) (i32.const 1)))
            (br $term)))
        (v128.store (i32.add (local.get $out0) (local.get $k))
          (call $addv
            (block (result v128)
              (local.set $mx (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $lo0) (local.get $hi0)))
              (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $cv))
                (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                  (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $cqv)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $cqv))) (local.get $pv))))
              (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $pv))))
            (block (result v128)
              (local.set $mx (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $lo0) (local.get $hi0)))
              (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $ov))
                (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                  (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $oqv)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $oqv))) (local.get $pv))))
              (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $pv))))
            (local.get $pv)))
        (v128.store (i32.add (local.get $out1) (local.get $k))
          (call $addv
            (block (result v128)
              (local.set $mx (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31 (local.get $lo1) (local.get $hi1)))
              (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $cv))
                (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                  (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $cqv)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $cqv))) (local.get $pv))))
              (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $pv))))
            (block (result v128)
              (local.set $mx (i8x16.shuffle 0 1 2 3 8 9 10 11 16 17 18 19 24 25 26 27 (local.get $lo1) (local.get $hi1)))
              (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $ov))
                (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                  (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $oqv)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $oqv))) (local.get $pv))))
              (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $pv))))
            (local.get $pv)))
        (local.set $k (i32.add (local.get $k) (i32.const 16)))
        (br $word))))

  ;; dst[k] = (dst[k] + src[k]) mod p.
  (func (export "addInto") (param $dst i32) (param $src i32) (param $len i32) (param $p i32)
    (local $end i32) (local $pv v128)
    (local.set $pv (i32x4.splat (local.get $p)))
    (local.set $end (i32.add (local.get $dst) (i32.shl (local.get $len) (i32.const 2))))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end)))
        (v128.store (local.get $dst)
          (call $addv (v128.load (local.get $dst)) (v128.load (local.get $src)) (local.get $pv)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (local.set $src (i32.add (local.get $src) (i32.const 16)))
        (br $word))))

  ;; BGV's mod-down by the special prime P, first half: from tl (the P-residue of the
  ;; key-switched polynomial, coefficient form) the correction delta mod q that makes
  ;; c - delta divisible by P and delta = 0 mod t: delta = k*P + tl with k = -tl*P^-1 mod t.
  ;; Constants come with their w' (...q) and floor(2^32/q) (qOne).
  (func (export "modDownDelta") (param $delta i32) (param $tl i32) (param $len i32)
    (param $t i32) (param $k i32) (param $kq i32)
    (param $q i32) (param $qOne i32) (param $pModQ i32) (param $pModQq i32)
    (local $mx v128) (local $mr v128) (local $end i32) (local $TL v128) (local $ov v128) (local $tv v128) (local $qv v128)
    (local $kv v128) (local $kqv v128) (local $qOnev v128) (local $pv v128) (local $pqv v128)
    (local.set $ov (i32x4.splat (i32.const 1)))
    (local.set $tv (i32x4.splat (local.get $t)))
    (local.set $qv (i32x4.splat (local.get $q)))
    (local.set $kv (i32x4.splat (local.get $k)))
    (local.set $kqv (i32x4.splat (local.get $kq)))
    (local.set $qOnev (i32x4.splat (local.get $qOne)))
    (local.set $pv (i32x4.splat (local.get $pModQ)))
    (local.set $pqv (i32x4.splat (local.get $pModQq)))
    (local.set $end (i32.add (local.get $tl) (i32.shl (local.get $len) (i32.const 2))))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $tl) (local.get $end)))
        (local.set $TL (v128.load (local.get $tl)))
        (v128.store (local.get $delta)
          (call $addv
            (block (result v128)
              (local.set $mx (block (result v128)
              (local.set $mx (local.get $TL))
              (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $kv))
                (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                  (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $kqv)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $kqv))) (local.get $tv))))
              (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $tv)))))
              (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $pv))
                (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                  (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $pqv)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $pqv))) (local.get $qv))))
              (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $qv))))
            (block (result v128)
              (local.set $mx (local.get $TL))
              (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $ov))
                (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                  (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $qOnev)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $qOnev))) (local.get $qv))))
              (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $qv))))
            (local.get $qv)))
        (local.set $tl (i32.add (local.get $tl) (i32.const 16)))
        (local.set $delta (i32.add (local.get $delta) (i32.const 16)))
        (br $word))))

  ;; Second half, in NTT form: dst[k] += (c[k] - delta[k])*P^-1 mod q.
  (func (export "modDownFinish") (param $dst i32) (param $c i32) (param $delta i32) (param $len i32)
    (param $inv i32) (param $invq i32) (param $q i32)
    (local $mx v128) (local $mr v128) (local $end i32) (local $qv v128) (local $iv v128) (local $iqv v128)
    (local.set $qv (i32x4.splat (local.get $q)))
    (local.set $iv (i32x4.splat (local.get $inv)))
    (local.set $iqv (i32x4.splat (local.get $invq)))
    (local.set $end (i32.add (local.get $dst) (i32.shl (local.get $len) (i32.const 2))))
    (block $done
      (loop $word
        (br_if $done (i32.ge_u (local.get $dst) (local.get $end)))
        (v128.store (local.get $dst)
          (call $addv
            (v128.load (local.get $dst))
            (block (result v128)
              (local.set $mx (call $subv (v128.load (local.get $c)) (v128.load (local.get $delta)) (local.get $qv)))
              (local.set $mr (i32x4.sub (i32x4.mul (local.get $mx) (local.get $iv))
                (i32x4.mul (i8x16.shuffle 4 5 6 7 12 13 14 15 20 21 22 23 28 29 30 31
                  (i64x2.extmul_low_i32x4_u (local.get $mx) (local.get $iqv)) (i64x2.extmul_high_i32x4_u (local.get $mx) (local.get $iqv))) (local.get $qv))))
              (i32x4.min_u (local.get $mr) (i32x4.sub (local.get $mr) (local.get $qv))))
            (local.get $qv)))
        (local.set $dst (i32.add (local.get $dst) (i32.const 16)))
        (local.set $c (i32.add (local.get $c) (i32.const 16)))
        (local.set $delta (i32.add (local.get $delta) (i32.const 16)))
        (br $word))))
)
