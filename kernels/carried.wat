;; The loop that reads a carried module's text into its bytes (ts/parts/carried.ts fromCarried;
;; the text is written by scripts/build.mjs carriedText). The build assembles it with binaryen's
;; wasm-as into ts/generated/carried-decoder.ts. It runs once per module, in the engine's
;; baseline code (a call is not tiered up while it runs), so the loop has one branch and no
;; bounds checks: the tables answer for every pair of byte values, and the text ends with a byte
;; that is no token.
;;
;; Memory, filled by fromCarried: at 0, 256 bytes by a token's first character: the token's
;; length (1 or 2; anything for a character that starts none); at 256, 256 × 256 i16 by
;; (first << 8 | second): the byte the token that starts with these characters stands for (a
;; one-character token's in its whole row), -1 for none. Then the text, one byte a character,
;; ended by a 0 (no token), and room for as many bytes as it has characters.
(module
  (memory (export "memory") 3)
  ;; Where `decode` stopped reading: past the 0 that ends the text when every token was read.
  (global $read (export "read") (mut i32) (i32.const 0))
  ;; Reads the tokens from $at into bytes from $out until a character that starts no token: the
  ;; end of the bytes written. fromCarried checks where it stopped.
  (func (export "decode") (param $at i32) (param $out i32) (result i32)
    (local $first i32)
    (local $byte i32)
    (loop $next
      (local.set $first (i32.load8_u (local.get $at)))
      (local.set $byte
        (i32.load16_s offset=256
          (i32.shl (i32.or (i32.shl (local.get $first) (i32.const 8)) (i32.load8_u offset=1 (local.get $at))) (i32.const 1))))
      (local.set $at (i32.add (local.get $at) (i32.load8_u (local.get $first))))
      (i32.store8 (local.get $out) (local.get $byte))
      (local.set $out (i32.add (local.get $out) (i32.const 1)))
      (br_if $next (i32.ge_s (local.get $byte) (i32.const 0))))
    (global.set $read (local.get $at))
    (i32.sub (local.get $out) (i32.const 1))))
